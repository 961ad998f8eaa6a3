"""The sentences of the capacity sweep's page whose words follow the data, and the table of r̂ per corpus."""

from __future__ import annotations

import math

import pandas as pd

from ...engine import statistics as stats
from ...report.numbers import number, span
from .analysis import (
    CV_LIMIT,
    DECIDED,
    MISSING,
    NOT_SIGNIFICANT,
    budgets,
    check,
    compare,
    power,
    predictor,
    ranks,
    rows,
)
from .spec import ROUTING


def per_corpus(results, appendix_b=None) -> pd.DataFrame:
    """Per corpus (the routing corpus first): r̂ at the budget and at the one before, τ and the seeds' spread, r̂
    under τ/2 and 2τ, the full-width loss, the gap of the next narrower width, and App. B's predicted rank."""
    cfg = results.cfg
    table = ranks(rows(results, appendix_b), cfg.ranks)
    budget, before = budgets(results)
    at = table[table["tokens"] == budget].set_index("corpus")
    earlier = table[table["tokens"] == before].set_index("corpus") if before else pd.DataFrame()
    order = [c for c in [ROUTING, *cfg.corpora] if c in at.index]
    pred = predictor(appendix_b, [c for c in order if c != ROUTING])

    def whole(value):
        return "—" if value is None or pd.isna(value) else str(int(value))

    out = pd.DataFrame({
        f"r̂ at {budget / 1e6:g}M": [whole(at.loc[c, "r_hat"]) for c in order],
        f"r̂ at {before / 1e6:g}M" if before else "": [whole(earlier["r_hat"].get(c)) if c in earlier.index else "—"
                                                    for c in order],
        "r̂ at τ/2, 2τ": [f"{whole(at.loc[c, 'r_hat_half_tau'])}, {whole(at.loc[c, 'r_hat_double_tau'])}"
                         for c in order],
        "τ (nats)": [at.loc[c, "tau"] for c in order],
        "full-width loss (nats)": [at.loc[c, "widest_loss"] for c in order],
        "gap of the next narrower width (nats)": [at.loc[c, "gap_below"] for c in order],
        "lag-MI predicted rank": [pred.get(c, math.nan) if pred is not None else math.nan for c in order],
    }, index=pd.Index(order, name="corpus"))
    return out


def facts(results, appendix_b=None) -> dict:
    """Every number and sentence the page's prose quotes."""
    cfg = results.cfg
    table = ranks(rows(results, appendix_b), cfg.ranks)
    budget, _ = budgets(results)
    sees = power(results, table)
    found = compare(results, appendix_b)
    trained = list(results.entries)
    seconds = sum(_seconds(e) for e in trained)
    out = {"budget": f"{budget / 1e6:g}M", "widest": cfg.widest, "routing_rank": cfg.routing_rank,
           "students": len(trained), "hours": seconds / 3600,
           "devices": ", ".join(sorted({e.provenance.get("device", "?") for e in trained})) or "—",
           "threads": ", ".join(sorted({str(e.provenance["threads"]) for e in trained if e.provenance.get("threads")}))
           or "—", "jobs_asked": len(results.entries) + len(results.missing)}
    out["power_sentence"] = _power_sentence(sees, cfg, budget)
    real = found[found["key"] == "low_rank"]
    decided = real[real["outcome"].isin(DECIDED)]
    hats = table[(table["tokens"] == budget) & (table["corpus"] != ROUTING)].dropna(subset=["r_hat"])
    out["r_hats"] = ", ".join(f"{c} {int(h)}" for c, h in zip(hats["corpus"], hats["r_hat"], strict=True)) or "none yet"
    said = [f"{q.split(':')[0]}: {o}" for q, o in zip(decided["quantity"], decided["outcome"], strict=True)]
    others = real.loc[~real.index.isin(decided.index)]
    reasons = sorted({f"{o} ({why})" for o, why in zip(others["outcome"], others["why"], strict=True)})
    out["low_rank_sentence"] = (f"{len(decided)} of {len(real)} corpora have a decided outcome"
                                + (f" ({', '.join(said)})" if said else "") + "; "
                                + (f"the others are {'; '.join(reasons)}." if reasons else "none is open."))
    out["across_sentence"] = _across_sentence(found)
    out["tolerance_sentence"] = _tolerance_sentence(hats, cfg.widest) if len(real) == len(decided) else ""
    out["concentration_sentence"] = _concentration_sentence(rows(results, appendix_b), table, cfg, budget)
    out["tau_span"] = span(table[(table["tokens"] == budget) & (table["corpus"] != ROUTING)]["tau"])
    check_table = check(results, appendix_b)
    out["reuse_sentence"] = _reuse_sentence(check_table, table, budget) if len(check_table) else \
        "The reuse check has not run yet."
    return out


def outcomes(found: pd.DataFrame) -> pd.DataFrame:
    """The declared claims as the page's table shows them: the outcome first, then what was measured (per corpus
    for (a), across corpora for (b) and (c)), our value, and, where any claim is open, what keeps it open."""
    letter = {"low_rank": "a", "separates": "b", "predicts": "c"}
    names = [f"({letter[k]}) " + (q.split(":")[0] if k == "low_rank" else "across corpora")
             for k, q in zip(found["key"], found["quantity"], strict=True)]
    measured = [q.split(": ", 1)[1] if k == "low_rank" and ": " in q else q
                for k, q in zip(found["key"], found["quantity"], strict=True)]
    out = pd.DataFrame({"outcome": found["outcome"].to_numpy(), "claim": names, "measured": measured,
                        "ours": found["ours"].to_numpy(), "open because": found["why"].to_numpy()})
    return out if (out["open because"] != "").any() else out.drop(columns="open because")


def _tolerance_sentence(hats: pd.DataFrame, widest: int) -> str:
    """The readings of r̂ at τ/2 and 2τ (shown, never substituted): in how many corpora r̂ moves, where (a)'s
    outcome would change, and the CV of r̂ under each."""
    moved = hats[(hats["r_hat_half_tau"] != hats["r_hat"]) | (hats["r_hat_double_tau"] != hats["r_hat"])]
    full = hats["r_hat"] >= widest
    flips = hats[((hats["r_hat_half_tau"] >= widest) != full) | ((hats["r_hat_double_tau"] >= widest) != full)]
    cvs = [stats.coefficient_of_variation(hats[c].astype(float)) for c in ("r_hat_half_tau", "r_hat_double_tau")]
    moves = ", ".join(f"{c} {int(h)} and {int(d)}" for c, h, d in zip(
        moved["corpus"], moved["r_hat_half_tau"], moved["r_hat_double_tau"], strict=True))
    return (f"Read at half and twice the tolerance instead (readings, not verdicts), r̂ moves in {len(moved)} of "
            f"{len(hats)} corpora" + (f" ({moves})" if moves else "") + "; (a)'s outcome differs under one of them "
            f"for {_and(list(flips['corpus']))}, and the CV of r̂ is {number(cvs[0], 2)} and {number(cvs[1], 2)}"
            + (f", above {CV_LIMIT} under both" if min(cvs) > CV_LIMIT else "") + ".")


def _seconds(entry) -> float:
    """A student's wall time: its job's seconds, or, for a student resumed from a checkpoint, its training loop's
    seconds summed over the parts (the job's own count only the part that finished it), whichever is larger."""
    loop = [float(row.get("train_seconds", 0.0)) for row in entry.tables.get("models", [])]
    return max([float(entry.provenance.get("seconds", 0.0)), *loop])


def _concentration_sentence(students: pd.DataFrame, table: pd.DataFrame, cfg, budget: int) -> str:
    """Shown, not judged (``declared``: concentration): the full-width students' mean per-head R̃_eff (eq. 2) beside
    each corpus's r̂, and the corpora whose full-width students have no stored spectrum."""
    full = students[(students["tokens"] == budget) & (students["rank"] == cfg.widest)]
    energy = full.groupby("corpus")["kernel_energy_rank"].mean()
    hats = table[table["tokens"] == budget].set_index("corpus")["r_hat"]
    order = [c for c in [ROUTING, *cfg.corpora] if c in energy.index]
    shown = [f"{c} {number(energy[c])} (r̂ = {int(hats[c])})" for c in order
             if pd.notna(energy[c]) and pd.notna(hats.get(c))]
    absent = [c for c in order if pd.isna(energy[c])]
    if not shown:
        return "No full-width student has a stored kernel spectrum to read."
    return (f"At full width the learned kernels' mean per-head R̃_eff (eq. 2) reads {', '.join(shown)}; recovery "
            f"would put it near r̂ (shown, not judged)" + (f"; App. B stored no kernel spectra for the "
                                                           f"full-width models of {_and(absent)}" if absent else "")
            + ".")


def _and(names: list[str]) -> str:
    return "no corpus" if not names else names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _across_sentence(found: pd.DataFrame) -> str:
    """Claims (b) and (c) in words: the value each rule judged, what it is shown beside, and the outcome."""
    across = found[found["key"].isin(["separates", "predicts"])].set_index("key")
    if (across["outcome"] == MISSING).any():
        return "The claims across corpora, (b) and (c), wait until at least three corpora have r̂."
    said = []
    for key, row in across.iterrows():
        value = f"{'The CV of r̂' if key == 'separates' else 'Pearson’s r'} is {number(row['ours'], 2)}"
        beside = f" ({row['beside']})" if row["beside"] else ""
        why = f" ({row['why']})" if row["why"] else \
            " (too few corpora to decide its sign)" if row["outcome"] == NOT_SIGNIFICANT else ""
        said.append(f"({'b' if key == 'separates' else 'c'}) {value}{beside}: {row['outcome']}{why}.")
    return " ".join(said)


def _power_sentence(sees: dict, cfg, budget: int) -> str:
    if not sees["complete"]:
        return ("The power check (the sweep on the routing corpus of known rank) is not complete yet, so no "
                "real-corpus outcome is read.")
    return (f"On the routing corpus, whose routing kernel has rank {cfg.routing_rank}, the sweep reads r̂ = "
            f"{sees['r_hat']} at {budget / 1e6:g}M tokens: " + (
                "the knee sits at the kernel's rank, so a flat curve on real text is a finding, not a sweep blind to "
                "rank." if sees["passes"] else
                "not the kernel's rank, so by the declared rule no real-corpus outcome can be decided: the sweep "
                "does not see rank at this budget."))


def _reuse_sentence(check_table: pd.DataFrame, table: pd.DataFrame, budget: int) -> str:
    """The reuse check in words: the full-width student trained again against App. B's stored one, by the rule."""
    last = check_table.iloc[-1]
    own = table[(table["tokens"] == budget) & (table["corpus"] == last["corpus"])]["tau"]
    tau = float(own.iloc[0]) if len(own) and pd.notna(own.iloc[0]) else math.nan
    stored, again, difference = last["App. B's stored model"], last["trained again"], last["difference"]
    verdict = "" if not math.isfinite(tau) else (
        ": the reuse stands." if abs(difference) <= tau else
        ": outside τ, so by the declared rule the full-width students must be trained by this engine.")
    return (f"Trained again by this sweep's engine, {last['corpus']}'s seed-{int(last['seed'])} full-width student "
            f"reaches {number(again)} nats at {budget / 1e6:g}M tokens against {number(stored)} for App. B's stored "
            f"model (a difference of {number(difference, 2)}; τ = {number(tau, 2)}){verdict}")
