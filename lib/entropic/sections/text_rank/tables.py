"""The capacity sweep's tables as its page shows them: the claims' outcomes under both declarations, the readings
of r̂ per corpus with their uncertainty, the calibration, the first declaration's per-corpus table, and what the
students cost, by declaration and kind."""

from __future__ import annotations

import math

import pandas as pd

from ...report.numbers import DASH
from . import analysis, second
from .analysis import MISSING, UNDECIDED
from .declared import AMENDMENT_DATE, BUDGET_DATE, SECOND_DATE, THIRD_DATE
from .spec import COPYING, ROUTING

LETTERS = {"low_rank": "a", "separates": "b", "predicts": "c"}


def claim_names(found: pd.DataFrame) -> list[str]:
    return [f"({LETTERS[k]}) " + (q.split(":")[0] if k == "low_rank" else "across corpora")
            for k, q in zip(found["key"], found["quantity"], strict=True)]


def measured_words(found: pd.DataFrame) -> list[str]:
    return [q.split(": ", 1)[1] if k == "low_rank" and ": " in q else q
            for k, q in zip(found["key"], found["quantity"], strict=True)]


def outcomes(found: pd.DataFrame, first: pd.DataFrame | None = None) -> pd.DataFrame:
    """The claims as the page's table shows them: the outcome first (the second declaration's, when ``first``, the
    first declaration's outcomes, is given beside it), the claim, what was measured, our value, and, where any claim
    is open, what keeps it open."""
    out = pd.DataFrame({"outcome": found["outcome"].to_numpy()})
    if first is not None:
        earlier = dict(zip(claim_names(first), first["outcome"], strict=True))
        out["first declaration's outcome"] = [earlier.get(name, DASH) for name in claim_names(found)]
    out["claim"] = claim_names(found)
    out["measured"] = measured_words(found)
    out["ours"] = found["ours"].to_numpy()
    out["open because"] = found["why"].to_numpy()
    return out if (out["open because"] != "").any() else out.drop(columns="open because")


READINGS_COLUMNS = ["corpus", "seeds", "full width", "r̂", "90 % interval", "mode (share)", "gap below r̂ (τ)",
                    "τ (nats)", "(a) agreement or within one step"]


def readings(found: dict) -> pd.DataFrame:
    """Per reading (the routing corpora by known rank, then the real corpora, the deciding reading first): its seeds
    and full-width students, r̂ with its 90 % interval and its mode's share, the next narrower width's fitted gap
    in units of τ, τ, and the agreement of (a) (a real corpus) or the share within one grid step (a known rank). A
    reading whose students are not all stored yet is left out (the outcomes table says which corpus waits)."""
    table = found["readings"]
    calib = found["calibration"].set_index("corpus") if len(found["calibration"]) else pd.DataFrame()
    rows = []
    for _, row in table[table["complete"].astype(bool)].iterrows():
        share = (calib.loc[row["corpus"], "within_share"] if row["corpus"] in calib.index else math.nan) \
            if pd.notna(row["known_rank"]) else row.get("agreement", math.nan)
        rows.append({"corpus": row["corpus"] if row["decides"] else f"{row['corpus']} (shown beside)",
                     "seeds": int(row["seeds"]), "full width": _source(row["full width"]),
                     "r̂": int(row["r_hat"]), "90 % interval": "–".join(map(str, row["interval"])),
                     "mode (share)": f"{int(row['mode'])} ({second.percent(row['mode_share'])})",
                     "gap below r̂ (τ)": row["gap_in_tau"], "τ (nats)": row["tau"],
                     "(a) agreement or within one step": second.percent(share) if pd.notna(share) else DASH})
    return pd.DataFrame(rows, columns=READINGS_COLUMNS).set_index("corpus")


def _source(source: str) -> str:
    return {analysis.SWEEP: "sweep (trained)", second.ONE_ENGINE: "sweep (one engine)",
            analysis.APP_B: "App. B's models"}.get(source, source)


def calibration(found: dict) -> pd.DataFrame:
    """Per known rank r*: r̂ and its 90 % interval, the share of resamples within one grid step, whether r* is read,
    the share that reads below the full width, and the knee's depth in units of τ."""
    calib = found["calibration"]
    if calib.empty:
        return calib
    return pd.DataFrame({
        "known rank r*": calib["known rank"].to_numpy(),
        "r̂": [int(v) if ok else DASH for v, ok in zip(calib.get("r_hat", []), calib["complete"], strict=False)],
        "90 % interval": ["–".join(map(str, v)) if ok else DASH
                          for v, ok in zip(calib.get("interval", []), calib["complete"], strict=False)],
        "within one step": [second.percent(v) if ok else DASH
                            for v, ok in zip(calib.get("within_share", []), calib["complete"], strict=False)],
        "read": [bool(v) if ok else math.nan for v, ok in zip(calib.get("read", []), calib["complete"], strict=False)],
        "below full width": [second.percent(v) if ok else DASH
                             for v, ok in zip(calib.get("below_full_share", []), calib["complete"], strict=False)],
        "knee one step below r* (τ)": [v if ok else math.nan for v, ok in zip(calib.get("knee_in_tau", []),
                                                                             calib["complete"], strict=False)],
    }).set_index("known rank r*")


def first_table(results, appendix_b=None) -> pd.DataFrame:
    """The first declaration's table per corpus (the routing corpus first): r̂ at the budget and at the one before,
    r̂ under τ/2 and 2τ, τ, the full-width loss, the gap of the next narrower width, and App. B's predicted rank."""
    cfg = results.cfg
    table = analysis.ranks(analysis.first(analysis.rows(results, appendix_b), cfg), cfg.ranks)
    budget, before = analysis.budgets(results)
    at = table[table["tokens"] == budget].set_index("corpus")
    earlier = table[table["tokens"] == before].set_index("corpus") if before else pd.DataFrame()
    order = [c for c in [ROUTING, *cfg.corpora] if c in at.index]
    pred = analysis.predictor(appendix_b, [c for c in order if c != ROUTING])

    def whole(value):
        return DASH if value is None or pd.isna(value) else str(int(value))

    return pd.DataFrame({
        f"r̂ at {budget / 1e6:g}M": [whole(at.loc[c, "r_hat"]) for c in order],
        f"r̂ at {before / 1e6:g}M" if before else "": [whole(earlier["r_hat"].get(c)) if c in earlier.index else DASH
                                                    for c in order],
        "r̂ at τ/2, 2τ": [f"{whole(at.loc[c, 'r_hat_half_tau'])}, {whole(at.loc[c, 'r_hat_double_tau'])}"
                         for c in order],
        "τ (nats)": [at.loc[c, "tau"] for c in order],
        "full-width loss (nats)": [at.loc[c, "widest_loss"] for c in order],
        "gap of the next narrower width (nats)": [at.loc[c, "gap_below"] for c in order],
        "lag-MI predicted rank": [pred.get(c, math.nan) if pred is not None else math.nan for c in order],
    }, index=pd.Index(order, name="corpus"))


def kind_of(entry, cfg) -> str:
    """What a stored student is for: the power check, the calibration, the first sweep, more seeds, one engine, or
    the reuse check."""
    p = entry.params
    if entry.job.endswith("-check") or "-check-" in entry.job:
        return "the reuse check"
    if p.get("tokens", cfg.tokens) == cfg.amended_tokens != cfg.tokens:
        return ("the amendment's probe" if p["seed"] == cfg.probe_seed else "the amendment's calibration"
                if p["corpus"] == ROUTING else "the amendment's real corpora")
    if p["corpus"] == COPYING or p.get("kind") == "generated":
        return "the third calibration"
    if p["seed"] in cfg.fresh_seeds and p["corpus"] != ROUTING:
        return "fresh seeds"
    if p["corpus"] == ROUTING:
        return "the power check" if p.get("routing_rank", cfg.routing_rank) == cfg.routing_rank else "the calibration"
    if cfg.reuse and p["rank"] == cfg.widest:  # whatever its seed: the declaration counts these apart
        return "one engine"
    if p["seed"] not in cfg.seeds:
        return "more seeds"
    return "the sweep"


def cost(results) -> pd.DataFrame:
    """The students by kind (``kind_of``) and by the declaration they were trained after (their provenance date
    against ``declared``'s dates): how many, CPU hours, devices and threads."""
    rows = [{"kind": kind_of(e, results.cfg),
             "after": _after(str(e.provenance.get("date", ""))),
             "hours": e.seconds / 3600, "device": e.provenance.get("device", DASH),
             "threads": e.provenance.get("threads", DASH)} for e in results.entries]
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows)
    order = ["the power check", "the sweep", "the reuse check", "the calibration", "more seeds", "one engine",
             "the third calibration", "fresh seeds", "the amendment's probe", "the amendment's calibration",
             "the amendment's real corpora"]
    table = frame.groupby(["after", "kind"], sort=False).agg(
        students=("hours", "size"), hours=("hours", "sum"), device=("device", lambda d: ", ".join(sorted(set(d)))),
        threads=("threads", lambda t: ", ".join(sorted({str(v) for v in t}))))
    table = table.reset_index()
    table["order"] = table["kind"].map({k: i for i, k in enumerate(order)})
    table["rank"] = table["after"].map({"the first": 0, "the second": 1, "the third": 2, "the amendment": 3,
                                        "the amendment's budget": 4})
    table = table.sort_values(["rank", "order"]).drop(columns=["order", "rank"])
    return table.rename(columns={"after": "trained after the declaration", "hours": "CPU hours"}).set_index("kind")


def _after(date: str) -> str:
    """The declaration a student was trained after, by its provenance date."""
    for stated, name in ((BUDGET_DATE, "the amendment's budget"), (AMENDMENT_DATE, "the amendment"),
                         (THIRD_DATE, "the third"), (SECOND_DATE, "the second")):
        if date >= stated:
            return name
    return "the first"


def third_calibration(found: dict, cfg) -> pd.DataFrame:
    """Per generator, budget and known rank r* (the third rule, as amended): r̂ with its 90 % interval, whether r* is
    read exactly or by how many grid steps it is missed, the full-width students' excess over the generator's floor in
    units of δ, whether the class learned the generator within δ (the amendment's criterion, the one that gates) and
    by the third declaration's (half the zero-kernel teacher's excess), and the generator's calibrated range."""
    calib = found["calibration"]
    if calib.empty:
        return calib

    def read(missed: int, hat: int, exact: bool) -> str:
        steps = "exactly" if missed == 0 else f"{abs(missed)} step{'s' if abs(missed) > 1 else ''} " + (
            "low" if missed < 0 else "high")
        return steps if hat < cfg.widest or exact else f"{steps} (not shown to persist)"

    def flag(value) -> str:
        return DASH if value is None or pd.isna(value) else "✓" if value else "✗"

    return pd.DataFrame({
        "generator": calib["generator"], "budget": [f"{b / 1e6:g}M" for b in calib["budget"]],
        "known rank r*": calib["known rank"],
        "r̂ (90 % interval)": [f"{int(r)} ({'–'.join(map(str, v))})" for r, v in zip(calib["r_hat"], calib["interval"],
                                                                                     strict=True)],
        "read": [read(m, int(h), bool(e)) for m, h, e in zip(calib["missed by"], calib["r_hat"], calib["exact"],
                                                              strict=True)],
        "full width above its floor (δ)": calib["excess"] / cfg.margin,
        "learned within δ": [flag(v) for v in calib["within"]],
        "learned by the third's criterion": [flag(v) for v in calib["learned"]],
    }).set_index(["generator", "budget", "known rank r*"])


def probe_table(found: dict, cfg) -> pd.DataFrame:
    """The learnability probe: per generator, the full width's excess over its floor and the width-16 gap to it, in
    units of δ, at each checkpoint from half the amendment's budget on (columns: the tokens)."""
    probe = found["probe"]
    if probe.empty:
        return probe
    rows = {}
    for (generator, tokens), row in probe.set_index(["generator", "tokens"]).iterrows():
        rows.setdefault((generator, "full width above its floor"), {})[f"{tokens / 1e6:.4g}M"] = row["excess"]
        rows.setdefault((generator, "width 16 above the full width"), {})[f"{tokens / 1e6:.4g}M"] = row["gap"]
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index = pd.MultiIndex.from_tuples(table.index, names=["generator", "in units of δ"])
    return table


THIRD_COLUMNS = ["corpus", "reading", "seeds", "r̂ at δ", "90 % interval", "r̂ at δ/2, 2δ", "width below r̂",
                 "width-16 gap at the budget (nats, bounds)", "width-16 gap projected to 2T (nats)"]


def third_readings(found: dict, cfg) -> pd.DataFrame:
    """Per reading of the third rule (generators first; a real corpus's fresh seeds, then its stored seeds): r̂
    (≤ r̂ where the width below it is not shown to persist), its 90 % interval over joint resamples, r̂ at δ/2 and
    2δ, the status of the width below r̂, and the width-16 gap at the budget and projected to twice it."""
    rows = []
    for _, row in found["readings"][found["readings"]["complete"].astype(bool)].iterrows():
        grid = list(row["grid"])
        at = grid.index(int(row["r_hat"]))
        mean, low, high = row["gap"][-1]
        rows.append({"corpus": row["corpus"], "reading": f"{row['reading']}, {row['budget'] / 1e6:g}M",
                     "seeds": ", ".join(map(str, row["seeds"])),
                     "r̂ at δ": f"≤ {int(row['r_hat'])}" if row["r_hat"] < cfg.widest and not row["exact"]
                     else f"{int(row['r_hat'])}",
                     "90 % interval": "–".join(map(str, row["interval"])),
                     "r̂ at δ/2, 2δ": f"{int(row['half'])}, {int(row['double'])}",
                     "width below r̂": f"{grid[at - 1]}: {row['states'][at - 1]}" if at else DASH,
                     "width-16 gap at the budget (nats, bounds)": f"{mean:.4f} ({low:.4f} to {high:.4f})",
                     "width-16 gap projected to 2T (nats)": row["projected"][-1]})
    return pd.DataFrame(rows, columns=THIRD_COLUMNS).set_index(["corpus", "reading"])


def declarations(third_found: dict, second_found: dict, first: pd.DataFrame, cfg) -> pd.DataFrame:
    """Per claim, the outcome under each rule: the amended rule at its budget (it decides) with r̂, the amended rule
    and the third rule as declared on the stored seeds at the third declaration's budget, the second declaration's
    and the first's, and what keeps the deciding outcome open (and the stored seeds', where they are open for
    another reason)."""
    out = third_found["outcomes"]
    names = claim_names(out)

    def by_name(frame: pd.DataFrame) -> dict:
        return {n: (o, m, w, v) for n, o, m, w, v in zip(claim_names(frame), frame["outcome"], measured_words(frame),
                                                        frame["why"], frame["ours"], strict=True)}

    def cell(found: tuple | None) -> str:
        """The outcome with r̂, and where it is open the kind of reason ("calibration", "budget")."""
        if found is None:
            return DASH
        outcome, measured, why, value = found
        tag = f" ({why.split(':')[0]})" if why and outcome == UNDECIDED and ":" in why else ""
        return outcome if pd.isna(value) else f"{outcome}: {measured.split(' (')[0]}{tag}"

    deciding, stored, third = by_name(out), by_name(third_found["stored"]), by_name(third_found["third_stored"])
    earlier = {label: dict(zip(claim_names(f), f["outcome"], strict=True))
               for label, f in (("second", second_found["outcomes"]), ("first", first))}

    def why(name: str) -> str:  # the deciding outcome's reason (a reading not computed yet says so in its cell)
        outcome, _, own, _ = deciding[name]
        return "" if outcome == MISSING else own

    amended, at = f"{cfg.amended_tokens / 1e6:g}M", f"{cfg.tokens / 1e6:g}M"
    table = pd.DataFrame({"claim": names, f"amended rule, {amended} (decides)": [cell(deciding[n]) for n in names],
                          f"amended rule, {at}, stored seeds": [cell(stored.get(n)) for n in names],
                          f"third rule, {at}, stored seeds": [cell(third.get(n)) for n in names],
                          "second declaration": [earlier["second"].get(n, DASH) for n in names],
                          "first declaration": [earlier["first"].get(n, DASH) for n in names],
                          "open because": [why(n) for n in names]})
    table = table if (table["open because"] != "").any() else table.drop(columns="open because")
    return table.set_index("claim")
