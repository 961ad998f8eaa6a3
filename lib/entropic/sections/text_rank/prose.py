"""The sentences of the capacity sweep's page whose words follow the data: the calibration, each corpus's reading
with its uncertainty, the outcomes of both declarations, the concentration of the full-width kernels, the engines
and the cost. Every number is read from the stored students (``second.judge``, ``analysis``, ``tables``)."""

from __future__ import annotations

import math

import pandas as pd

from ...engine import statistics as stats
from ...report.numbers import number, span
from . import analysis, second, tables, third
from .analysis import CV_LIMIT, DECIDED, MISSING, NOT_SIGNIFICANT
from .declared import AMENDMENT_DATE, BUDGET_DATE, FIRST_DATE, SECOND_DATE, THIRD_DATE
from .prose_third import third_facts
from .spec import ROUTING


def facts(results, appendix_b=None, found: dict | None = None, third_found: dict | None = None) -> dict:
    """Every number and sentence the page's prose quotes (``found``: ``second.judge``'s result, ``third_found``:
    ``third.judge``'s, each computed when not given)."""
    cfg = results.cfg
    found = second.judge(results, appendix_b) if found is None else found
    third_found = third.judge(results, appendix_b) if third_found is None else third_found
    first = analysis.compare(results, appendix_b)
    budget, _ = analysis.budgets(results)
    cost = tables.cost(results)
    out = {"budget": f"{budget / 1e6:g}M", "widest": cfg.widest, "students": len(results.entries),
           "hours": sum(e.seconds for e in results.entries) / 3600,
           "jobs_asked": len(results.entries) + len(results.missing)}
    out["cost_sentence"] = _cost_sentence(cost, results)
    out["calibration_sentence"] = _calibration_sentence(found, cfg)
    out["corpus_sentences"] = "\n".join(f"- {s}" for s in _corpus_sentences(found, first, cfg))
    out["low_rank_sentence"] = _low_rank_sentence(found["outcomes"], first)
    out["across_sentence"] = _across_sentence(found["outcomes"], first)
    out["concentration_sentence"] = _concentration_sentence(analysis.first(analysis.rows(results, appendix_b), cfg),
                                                            found, cfg, budget)
    check_table = analysis.check(results, appendix_b)
    out["engines_sentence"] = (_reuse_sentence(check_table, found, budget) if len(check_table) else
                               "The reuse check has not run yet.") + _engines_sentence(found, cfg)
    out["first_tolerance_sentence"] = _tolerance_sentence(results, appendix_b)
    out["margin"] = number(cfg.margin)
    return out | third_facts(third_found, cfg)


def _and(names: list[str]) -> str:
    return "no corpus" if not names else names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _interval(row) -> str:
    low, high = row["interval"]
    return f"{low}–{high}"


# --- the calibration -----------------------------------------------------------------------------------------------


def _calibration_sentence(found: dict, cfg) -> str:
    calib = found["calibration"]
    known = sorted({cfg.routing_rank, *cfg.known_ranks})
    done = calib[calib["complete"]] if len(calib) else calib
    if len(done) < len(known):
        waiting = [k for k in known if k not in set(done["known rank"] if len(done) else [])]
        return (f"The calibration at the known {'rank' if len(waiting) == 1 else 'ranks'} "
                f"{_and([str(k) for k in waiting])} is not stored yet, so no range of known ranks read is stated.")
    readings = [f"{int(r['r_hat'])} at r* = {int(r['known rank'])} (90 % interval {_interval(r)})"
                for _, r in done.iterrows()]
    text = (f"On the routing corpus with kernels of known rank {_and([str(k) for k in known])}, the sweep reads "
            f"r̂ = {_and(readings)}.")
    missed = done[~done["read"]]
    span_ = found["range"]
    if missed.empty:
        off = [f"at r* = {int(r['known rank'])} it reads {int(r['r_hat'])} (the fitted loss one grid step below "
               f"r* lies {number(r['knee_in_tau'], 2)} τ above the full width)"
               for _, r in done.iterrows() if int(r["r_hat"]) != int(r["known rank"])]
        text += (f" Every known rank is read within one grid step: over ranks {span_[0]} to {span_[1]} the sweep reads "
                 f"the rank within one grid step, as tested at these {len(done)} ranks"
                 + (f"; {_and(off)}, so a real corpus's r̂ is a rank to within a grid step, not exactly." if off
                    else "."))
    else:
        text += " " + "; ".join(
            f"known rank {int(r['known rank'])} is missed (the fitted loss one grid step below it lies "
            f"{number(r['knee_in_tau'], 2)} τ above the full width)" for _, r in missed.iterrows()) + "."
        text += (f" The ranks read span {span_[0]}–{span_[1]}." if span_ else " No contiguous range of known ranks "
                 "is read.")
    if span_ is not None:
        outside = [c for c, r in _deciding(found).iterrows() if r["complete"] and pd.isna(r["known_rank"])
                   and not span_[0] <= r["r_hat"] <= span_[1]]
        text += (f" Outside that range lie the readings of {_and(outside)}: there r̂ says only which side of the range "
                 f"the rank lies on." if outside else " Every real corpus's r̂ lies inside that range.")
    return text


def _deciding(found: dict) -> pd.DataFrame:
    table = found["readings"]
    return table[table["decides"]].set_index("corpus")


# --- the corpora -------------------------------------------------------------------------------------------------


def _corpus_sentences(found: dict, first: pd.DataFrame, cfg) -> list[str]:
    """Per real corpus: r̂ with its interval, its gap in units of τ and its resampled agreement; the outcome by
    both declarations; the readings shown beside the deciding one."""
    outcomes = found["outcomes"].set_index("quantity")
    first_of = {q.split(":")[0]: o for q, o in zip(first["quantity"], first["outcome"], strict=True)}
    table = found["readings"]
    out = []
    for corpus in cfg.corpora:
        own = table[table["corpus"] == corpus]
        row = outcomes[outcomes.index.str.startswith(f"{corpus}:")].iloc[0]
        deciding = own[own["decides"]].iloc[0] if (own["decides"]).any() else None
        if deciding is None or not deciding["complete"]:
            text = f"**{corpus}**: {row['outcome']}" + (f" ({row['why']})" if row["why"] else "")
        else:
            text = (f"**{corpus}** ({_reading_words(deciding)}): " + _one_reading(deciding, cfg)
                    + f"; {row['outcome']}" + (f" ({row['why']})" if row["why"] else ""))
        text += f". First declaration: {first_of.get(corpus, MISSING)}"
        beside = [f"{_reading_words(r)}: " + _one_reading(r, cfg, short=True)
                  for _, r in own[~own["decides"] & own["complete"]].iterrows()]
        out.append(text + (f"; shown {'beside' if deciding is not None and deciding['complete'] else 'meanwhile'}, "
                           f"{'; '.join(beside)}" if beside else "") + ".")
    return out


def _reading_words(row) -> str:
    where = {second.ONE_ENGINE: "one engine", analysis.APP_B: "App. B's full-width models"}.get(row["full width"], "")
    return f"{int(row['seeds'])} seeds" + (f", {where}" if where else "")


def _one_reading(row, cfg, short: bool = False) -> str:
    hat = int(row["r_hat"])
    text = f"r̂ = {hat} (90 % interval {_interval(row)})"
    if short:
        return text + f", {second.percent(row['agreement'])} agree"
    gap = (f"the next narrower width lies {number(row['gap_in_tau'])} τ above the full width"
           if math.isfinite(row["gap_in_tau"]) else "no narrower width is in the grid")
    return f"{text}; {gap}; {second.percent(row['agreement'])} of resamples agree on its outcome"


def _low_rank_sentence(found: pd.DataFrame, first: pd.DataFrame) -> str:
    """How many corpora each declaration decides, and what keeps the others open."""
    def counted(frame):
        real = frame[frame["key"] == "low_rank"]
        decided = real[real["outcome"].isin(DECIDED)]
        names = {o: [q.split(":")[0] for q in decided[decided["outcome"] == o]["quantity"]] for o in DECIDED}
        return real, decided, names

    real, decided, names = counted(found)
    said = "; ".join(f"{o}: {_and(n)}" for o, n in names.items() if n)
    text = f"By the second declaration {len(decided)} of {len(real)} corpora are decided" + (f" ({said})" if said
                                                                                             else "")
    open_ = real[~real.index.isin(decided.index)]
    if len(open_):
        reasons = {}
        for q, o, why in zip(open_["quantity"], open_["outcome"], open_["why"], strict=True):
            reasons.setdefault(o if o == MISSING else f"{o} ({why.split(':')[0]})", []).append(q.split(":")[0])
        text += "; " + "; ".join(f"{_and(n)}: {r}" for r, n in reasons.items())
    _, first_decided, first_names = counted(first)
    return text + (f". The first declaration decided {len(first_decided)} of {len(real)} ("
                   + "; ".join(f"{o}: {_and(n)}" for o, n in first_names.items() if n) + ").")


def _across_sentence(found: pd.DataFrame, first: pd.DataFrame) -> str:
    """Claims (b) and (c) by the second rule, with the first declaration's outcome beside."""
    across = found[found["key"].isin(["separates", "predicts"])].set_index("key")
    earlier = first[first["key"].isin(["separates", "predicts"])].set_index("key")["outcome"]
    if (across["outcome"] == MISSING).any():
        return "Claims (b) and (c) wait until every corpus has its second reading."
    said = []
    for key, row in across.iterrows():
        if key == "separates":
            low, high = row["interval"]
            value = (f"The CV of r̂ is {number(row['ours'], 2)} (90 % interval {number(low, 2)}–{number(high, 2)}), "
                     f"against a bar of {number(row['bar'], 3)}, the larger of {CV_LIMIT:.2f} and App. B's largest "
                     f"model-side CV in the same cell")
        elif math.isfinite(row["ours"]):
            low, high = row["interval"]
            value = (f"Pearson's r between the lag-MI predictor and r̂ is {number(row['ours'], 2)} (p = "
                     f"{number(row['p'], 2)}; 90 % interval over resamples {number(low, 2)}–{number(high, 2)})")
        else:
            value = "Pearson's r between the lag-MI predictor and r̂ is not defined"
        why = f" ({row['why']})" if row["why"] else \
            " (too few corpora to decide its sign)" if row["outcome"] == NOT_SIGNIFICANT else ""
        letter = "b" if key == "separates" else "c"
        said.append(f"({letter}) {value}: {row['outcome']}{why}; the first declaration: {earlier.get(key, MISSING)}.")
    return " ".join(said)


def _tolerance_sentence(results, appendix_b) -> str:
    """The first declaration's readings of r̂ at τ/2 and 2τ (shown, never substituted): in how many corpora r̂
    moves and where (a)'s outcome would change."""
    cfg = results.cfg
    table = analysis.ranks(analysis.first(analysis.rows(results, appendix_b), cfg), cfg.ranks)
    budget, _ = analysis.budgets(results)
    hats = table[(table["tokens"] == budget) & (table["corpus"] != ROUTING)].dropna(subset=["r_hat"])
    if len(hats) < len(cfg.corpora):
        return ""
    moved = hats[(hats["r_hat_half_tau"] != hats["r_hat"]) | (hats["r_hat_double_tau"] != hats["r_hat"])]
    full = hats["r_hat"] >= cfg.widest
    flips = hats[((hats["r_hat_half_tau"] >= cfg.widest) != full) | ((hats["r_hat_double_tau"] >= cfg.widest) != full)]
    moves = ", ".join(f"{c} {int(h)} and {int(d)}" for c, h, d in zip(
        moved["corpus"], moved["r_hat_half_tau"], moved["r_hat_double_tau"], strict=True))
    return (f"Read by the first rule at half and twice the tolerance (readings, not verdicts), r̂ moves in "
            f"{len(moved)} of {len(hats)} corpora" + (f" ({moves})" if moves else "") + "; (a)'s outcome differs "
            f"under one of them for {_and(list(flips['corpus']))}.")


# --- the kernels, the engines, the cost ----------------------------------------------------------------------------


def _concentration_sentence(students: pd.DataFrame, found: dict, cfg, budget: int) -> str:
    """What the full-width kernels show (``declared``: concentration, shown, not judged): the span of their mean
    per-head R̃_eff (eq. 2) beside the span of r̂, and in how many corpora it lies within a factor of two of r̂, as
    recovery would have it."""
    full = students[(students["tokens"] == budget) & (students["rank"] == cfg.widest)]
    energy = full.groupby("corpus")["kernel_energy_rank"].mean().dropna()
    hats = pd.Series({c: row["r_hat"] for c in [ROUTING, *cfg.corpora]
                      if (row := second.shown(found, c)) is not None}, dtype=float)
    both = [c for c in [ROUTING, *cfg.corpora] if c in energy.index and c in hats.index]
    if not both:
        return "No full-width student has a stored kernel spectrum to read."
    near = [c for c in both if hats[c] / 2 <= energy[c] <= 2 * hats[c]]
    absent = [c for c in cfg.corpora if c not in energy.index]
    rho = stats.spearman(energy[both], hats[both].astype(float)) \
        if len(both) > 2 and hats[both].nunique() > 1 and energy[both].nunique() > 1 else math.nan
    factor, reach = energy[both].max() / energy[both].min(), hats[both].max() / hats[both].min()
    text = (f"At full width the learned kernels' mean per-head R̃_eff (eq. 2) spans {span(energy[both])} over "
            f"{_and(both)} (a factor of {number(factor)}), while r̂ spans {span(hats[both].astype(int))} (a factor of "
            f"{number(reach)}; Spearman ρ = {number(rho, 2)})")
    if factor < 2 <= reach / 2:
        text += ": the trained kernels concentrate on a similar number of directions whatever rank the sweep reads"
    return (text + f"; R̃_eff lies within a factor of two of r̂, as recovery would have it, in {len(near)} of "
            f"{len(both)}" + (f"; App. B stored no kernel spectra for the full-width models of {_and(absent)}"
                              if absent else "") + ".")


def _reuse_sentence(check_table: pd.DataFrame, found: dict, budget: int) -> str:
    """The reuse check in words: the full-width student trained again against App. B's stored one, by the rule."""
    last = check_table.iloc[-1]
    deciding = _deciding(found)
    corpus = last["corpus"]
    tau = float(deciding.loc[corpus, "tau"]) if corpus in deciding.index and deciding.loc[corpus, "complete"] \
        else math.nan
    stored, again, difference = last["App. B's stored model"], last["trained again"], last["difference"]
    verdict = "" if not math.isfinite(tau) else (
        ": the reuse stands by the first declaration's rule." if abs(difference) <= tau else
        ": outside τ, so by the declared rule the full-width students must be trained by this engine.")
    return (f"Trained again by this sweep's engine, {corpus}'s seed-{int(last['seed'])} full-width student "
            f"reaches {number(again)} nats at {budget / 1e6:g}M tokens against {number(stored)} for App. B's stored "
            f"model (a difference of {number(difference, 2)}; τ = {number(tau, 2)}){verdict}")


def _engines_sentence(found: dict, cfg) -> str:
    """Where a corpus has both a one-engine reading and one with App. B's full-width models: r̂ of each."""
    table = found["readings"]
    pairs = []
    for corpus in cfg.one_engine:
        own = table[(table["corpus"] == corpus) & table["complete"]]
        one = own[own["full width"] == second.ONE_ENGINE]
        mixed = own[(own["full width"] == analysis.APP_B) & (own["seeds"] == (one["seeds"].iloc[0] if len(one) else 0))]
        if len(one) and len(mixed):
            pairs.append(f"{corpus} {int(one['r_hat'].iloc[0])} against {int(mixed['r_hat'].iloc[0])}")
    if not pairs:
        return ""
    return (" With the sweep's engine at every width (one engine), r̂ reads " + _and(pairs) + " with App. B's "
            "full-width models.")


def _cost_sentence(cost: pd.DataFrame, results) -> str:
    if cost.empty:
        return "No student is stored yet."
    by = cost.reset_index()
    parts = [f"{int(r['students'])} for {r['kind']} ({number(r['CPU hours'], 2)} h)" for _, r in by.iterrows()]
    after = by.groupby("trained after the declaration", sort=False)["students"].sum()
    threads = sorted({str(e.provenance.get("threads")) for e in results.entries if e.provenance.get("threads")})
    devices = sorted({e.provenance.get("device", "?") for e in results.entries})
    thread_words = "one thread" if threads == ["1"] else f"{' or '.join(threads)} threads"
    dates = {"the first": FIRST_DATE, "the second": SECOND_DATE, "the third": THIRD_DATE,
             "the amendment": AMENDMENT_DATE, "the amendment's budget": BUDGET_DATE}
    when = [f"{int(n)} after {name} ({dates[name]})" for name, n in after.items()]
    return (f"The sweep trained {len(results.entries)} students, each on {thread_words} of {_and(devices)}: "
            f"{'; '.join(parts)}. Of them, {_and(when)}.")

