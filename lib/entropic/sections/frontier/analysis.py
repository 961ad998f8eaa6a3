"""The frontier page's tables, its comparison beside the paper and the numbers its prose quotes (see the
package docstring)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...pipeline import verdicts
from ...pipeline.verdicts import Claim
from . import CLAIMS, ESTIMATORS, GOAL_ESTIMATOR, GOAL_TOLERANCE, HOLDOUT, PHASE, TRAINED_ESTIMATOR

# --- the tables ------------------------------------------------------------------------------------

def _scored(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows with their errors: |R̃_eff − R̃_eff(K*)|, |R̃_eff − r*|, exact (integer rank = r*), within the goal."""
    out = frame.copy()
    out["error_teacher"] = (out["energy_rank"] - out["teacher_energy_rank"]).abs()
    out["error_r_star"] = (out["energy_rank"] - out["r_star"]).abs()
    out["exact"] = out["numerical_rank"] == out["r_star"]
    out["within"] = out["error_teacher"] <= GOAL_TOLERANCE
    return out


def setting_rows(results, setting: str = "grid") -> pd.DataFrame:
    est = results["estimates"]
    return _scored(est[est["setting"] == setting])


def label(name: str) -> str:
    return ESTIMATORS[name][0]


def kind(name: str) -> str:
    """The estimator's kind (``verdicts.ESTIMATOR_KINDS``)."""
    return ESTIMATORS[name][2]


def pre_training(name: str) -> bool:
    """Whether the estimator is of the paper's pre-training sense (never fits a student's training loss)."""
    return verdicts.pre_training(kind(name))


def kinds_of(names) -> str:
    """The kinds of several estimators, joined as a row's ``estimator`` column."""
    return " + ".join(dict.fromkeys(kind(n) for n in names))


def _order(frame: pd.DataFrame) -> pd.DataFrame:
    names = [n for n in ESTIMATORS if n in set(frame.index)]
    return frame.loc[names].rename(index=label).rename_axis("estimator")


def _count(flags) -> str:
    flags = np.asarray(flags, dtype=bool)
    return f"{int(flags.sum())}/{len(flags)}"


def errors(results, against: str = "teacher", setting: str = "grid") -> pd.DataFrame:
    """Seed means of |R̃_eff − R̃_eff(K*)| (``against="teacher"``) or |R̃_eff − r*| per estimator and r*, and
    the worst task."""
    rows = setting_rows(results, setting)
    column = f"error_{'teacher' if against == 'teacher' else 'r_star'}"
    table = rows.pivot_table(index="estimator", columns="r_star", values=column, aggfunc="mean")
    table.columns = [f"r* = {r}" for r in table.columns]
    table["worst"] = rows.groupby("estimator")[column].max()
    return _order(table)


def summary(results, setting: str = "grid") -> pd.DataFrame:
    """Per estimator: given V*, exact-r* tasks, tasks within the goal's tolerance, the largest seed CV of
    R̃_eff over r*, converged runs, failed runs and the mean wall time per task."""
    rows = setting_rows(results, setting)
    out = {}
    for name, own in rows.groupby("estimator"):
        integer = own["numerical_rank"].notna().any() or (own["failure"] != "").any()
        cv = own.groupby("r_star")["energy_rank"].agg(verdicts.coefficient_of_variation).max()
        out[name] = {"kind": kind(name), "given V*": ESTIMATORS[name][1], "pre-training": pre_training(name),
                     "exact r*": _count(own["exact"]) if integer else "—",
                     f"within {GOAL_TOLERANCE}": _count(own["within"]), "seed CV (largest)": cv,
                     "converged": _count(own["converged"]), "failed": int((own["failure"] != "").sum()),
                     "seconds per task": own["seconds"].mean()}
    return _order(pd.DataFrame(out).T)


def exact_on_grid(rows: pd.DataFrame) -> list[str]:
    """Estimators whose integer rank is r* in every task and whose R̃_eff tracks the teacher's (10 %) in every task."""
    return [name for name, own in rows.groupby("estimator")
            if own["exact"].all() and verdicts.tracks_teacher(own["energy_rank"], own["teacher_energy_rank"])]


def best_v_unknown(rows: pd.DataFrame) -> str:
    """The V-unknown estimator with the most exact-r* tasks, then the most tasks within the goal, then the
    smallest worst error."""
    unknown = rows[~rows["estimator"].map(lambda n: ESTIMATORS[n][1])]
    score = unknown.groupby("estimator").agg(exact=("exact", "sum"), within=("within", "sum"),
                                             worst=("error_teacher", "max"))
    return min(score.index, key=lambda n: (-score.loc[n, "exact"], -score.loc[n, "within"], score.loc[n, "worst"]))


def goal_rows(results) -> pd.DataFrame:
    """The goal estimator's rows on the grid and every held-out setting, scored."""
    est = _scored(results["estimates"])
    return est[(est["estimator"] == GOAL_ESTIMATOR) & ((est["setting"] == "grid") | est["setting"].isin(HOLDOUT))]


def compare(results) -> pd.DataFrame:
    """The paper's §6/§7 statements, judged on the estimators of the paper's own pre-training sense; the
    maximum-likelihood estimators (trained students) are reported in the summary, never in a verdict."""
    cfg, rows, out = results.cfg, setting_rows(results), []
    paper = cfg.paper_setting

    def claim(key: str, fallback: str) -> Claim:
        return CLAIMS[key] if paper else Claim(fallback, None, CLAIMS[key].where)

    ours = rows[rows["estimator"].map(pre_training)]
    exact = exact_on_grid(ours)
    names = list(dict.fromkeys(ours["estimator"]))
    out.append(verdicts.row(f"pre-training estimators exact on the whole grid, of {len(names)} "
                            f"({', '.join(map(label, exact)) or 'none'})", len(exact), CLAIMS["no_exact"],
                            "exactness", not exact, estimator=kinds_of(names)))
    for name in ("v_unknown_alternating", GOAL_ESTIMATOR):
        own = rows[rows["estimator"] == name]
        ranks = own["numerical_rank"]
        out.append(verdicts.row(f"{label(name)}: integer rank (range {ranks.min():.0f}–{ranks.max():.0f})",
                                ranks.mean(), CLAIMS["numerical"], "saturation",
                                verdicts.saturates(ranks, own["r_star"]), estimator=kind(name)))
    smallest = rows[(rows["estimator"] == GOAL_ESTIMATOR) & (rows["r_star"] == min(cfg.r_stars))]
    out.append(verdicts.row(f"{label(GOAL_ESTIMATOR)}: R̃_eff at r* = {min(cfg.r_stars)}",
                            smallest["energy_rank"].mean(),
                            claim("small", "over-estimates at small r*") if min(cfg.r_stars) == 1 else
                            Claim("over-estimates at small r*", None, CLAIMS["small"].where), "over-estimate",
                            verdicts.over_estimates(smallest["energy_rank"], smallest["teacher_energy_rank"]),
                            se=verdicts.mean_se(smallest, "energy_rank"), estimator=kind(GOAL_ESTIMATOR)))
    goal = goal_rows(results)
    met = goal["exact"] & goal["within"] & (goal["failure"] == "")
    settings = goal["setting"].nunique()
    out.append(verdicts.row(f"goal, {label(GOAL_ESTIMATOR)}: tasks of the grid and {settings - 1} held-out settings "
                            f"with the integer rank = r*, |R̃_eff − R̃_eff(K*)| ≤ {GOAL_TOLERANCE} and no failed fit "
                            f"(of {len(goal)})", int(met.sum()), CLAIMS["limitation"], "goal", not bool(met.all()),
                            estimator=kind(GOAL_ESTIMATOR)))
    return verdicts.table(out)


def holdout(results, column: str = "exact") -> pd.DataFrame:
    """Held-out settings × estimators: exact-r* tasks (``column="exact"``, as k/N) or the worst
    |R̃_eff − R̃_eff(K*)| (``column="error_teacher"``)."""
    est = _scored(results["estimates"])
    settings = [h for h in HOLDOUT if h in set(est["setting"])]
    table = {}
    for setting in settings:
        own = est[est["setting"] == setting]
        by = own.groupby("estimator")
        if column == "exact":
            table[HOLDOUT[setting][0]] = {n: (_count(g["exact"]) if g["numerical_rank"].notna().any()
                                              or (g["failure"] != "").any() else "—") for n, g in by}
        else:
            table[HOLDOUT[setting][0]] = by["error_teacher"].max()
    frame = pd.DataFrame(table)
    return _order(frame).rename_axis("estimator")


# --- the phase diagrams ----------------------------------------------------------------------------

def phase_fractions(results, x: str, y: str, fixed: dict) -> dict[str, pd.DataFrame]:
    """Fraction of seeds with the integer rank = r*, per estimator of ``PHASE``, on the cells where the
    parameters of ``fixed`` hold: a (y, x) grid."""
    rows = _scored(results["phase"])
    for key, value in fixed.items():
        rows = rows[np.isclose(rows[key], value)]
    return {name: rows[rows["estimator"] == name].pivot_table(index=y, columns=x, values="exact", aggfunc="mean")
            for name in PHASE}


def smallest_exact_n(grid: pd.DataFrame) -> pd.Series:
    """Per row of a (y, n) grid of exact fractions: the smallest n from which on every seed is exact (at that
    n and at every larger n of the grid); NaN when even the largest n is not."""
    out = {}
    for key, row in grid.iterrows():
        ok = (row == 1.0).to_numpy()[::-1]  # from the largest n down
        run = len(ok) if ok.all() else int(np.argmin(ok))
        out[key] = float(row.index[len(ok) - run]) if run else math.nan
    return pd.Series(out, dtype=float)


def minimal_n(results) -> pd.DataFrame:
    """Per r* and estimator of ``PHASE``: ``smallest_exact_n`` at the grid's σ and d."""
    cfg = results.cfg
    fractions = phase_fractions(results, "n", "r_star", {"sigma": cfg.sigma, "d": cfg.d})
    return pd.DataFrame({label(name): smallest_exact_n(grid) for name, grid in fractions.items()}).rename_axis("r*")


# --- the numbers the prose quotes -------------------------------------------------------------------

def facts(results, table3=None) -> dict:
    """Every number and sentence the page's prose quotes; ``table3``: the Table 3 section's results, whose
    students' training cost is set beside the trained estimator's."""
    cfg, rows = results.cfg, setting_rows(results)
    top = max(cfg.r_stars)
    at_top = rows[rows["r_star"] == top].groupby("estimator")["energy_rank"].mean()
    goal = goal_rows(results)
    met = goal["exact"] & goal["within"] & (goal["failure"] == "")
    old = rows[rows["estimator"].str.startswith("v_unknown_alternating")]
    grid_jobs = [e for e in results.entries if e.params.get("setting") == "grid"]
    phase_jobs = [e for e in results.entries if e.params.get("setting") == "phase"]
    held_jobs = [e for e in results.entries if e.params.get("setting") in HOLDOUT]
    best = best_v_unknown(rows)
    out = {"tasks": int(goal.shape[0]), "top": top,
           "teacher_top": float(rows.loc[rows["r_star"] == top, "teacher_energy_rank"].mean()),
           "old_top": float(at_top.get("v_unknown_alternating", math.nan)),
           "known_top": float(at_top.get("v_known_log", math.nan)),
           "goal_top": float(at_top.get(GOAL_ESTIMATOR, math.nan)),
           "trained_top": float(at_top.get(TRAINED_ESTIMATOR, math.nan)),
           "goal_failed": int((goal["failure"] != "").sum()),
           "goal_met": int(met.sum()), "goal_worst": float(goal["error_teacher"].max()),
           "goal_exact": int(goal["exact"].sum()), "goal_within": int(goal["within"].sum()),
           "old_unconverged": int((~old["converged"].astype(bool)).sum()), "old_runs": len(old),
           "best": label(best), "best_is_goal": best == GOAL_ESTIMATOR,
           "grid_seconds": float(sum(e.provenance.get("seconds", 0.0) for e in grid_jobs)),
           "phase_seconds": float(sum(e.provenance.get("seconds", 0.0) for e in phase_jobs)),
           "phase_tasks": len(phase_jobs), "held_jobs": len(held_jobs),
           "held_seconds": float(sum(e.provenance.get("seconds", 0.0) for e in held_jobs))}
    out["goal_text"] = _goal_text(goal, met, out)
    out["tolerance"] = GOAL_TOLERANCE
    out["exact_text"] = _exact_text(rows)
    if len(set(results["estimates"]["setting"]) - {"grid"}):
        out["holdout_text"] = _holdout_text(results)
    else:
        out["holdout_text"] = "No held-out setting is computed in this profile."
    out["phase_text"] = _phase_text(results) if "phase" in results.tables else "The phase diagrams are not computed."
    from .causes import cause_counts, student_table

    out["student_text"] = _student_text(student_table(results), table3)
    out["causes_text"] = _causes_text(cause_counts(results))
    return out


def _student_text(table: pd.DataFrame, table3) -> str:
    if table.empty:
        return "no student was trained at this profile."
    text = (f"over the {len(table)} tasks the student's kernel differs from the estimator's by at most "
            f"{table['‖K_student − K̂‖ / ‖K̂‖'].max():.2g} (relative), their losses by at most "
            f"{(table['loss, student'] - table['loss, estimator']).abs().max():.2g}, and their integer ranks are "
            + ("equal in every task" if (table["rank, student"] == table["rank, estimator"]).all() else
               f"equal in {int((table['rank, student'] == table['rank, estimator']).sum())} of {len(table)}")
            + f". The student took {table['seconds, student'].mean():.2g} s per task and the estimator "
              f"{table['seconds, estimator'].mean():.2g} s (its two half-sample fits included)")
    jobs = [e for e in getattr(table3, "entries", []) if e.params.get("kind") == "recovery"]
    if jobs:
        seconds = np.mean([e.provenance.get("seconds", 0.0) for e in jobs])
        devices = sorted({e.provenance.get("device", "?") for e in jobs})
        text += (f"; a Table 3 recovery job (over-parameterized students trained by Adam at the paper's step "
                 f"counts) took {seconds:.3g} s on average ({', '.join(devices)})")
    return text + "."


def _causes_text(counts: pd.DataFrame) -> str:
    if counts.empty:
        return "No phase-diagram fit stored its singular values at this profile."
    parts = []
    for name, row in counts.iterrows():
        parts.append(f"the {name.split(' (')[0]} separates r\\* in {row['separate r*']} of its {row['fits']} fits; "
                     f"of those, the split-half rule reads r\\* in {row['…and the split-half rule reads it']} and the "
                     f"all-n rule in {row['…and the all-n rule reads it']}")
    return "Why exactness ends: " + "; ".join(parts) + "."


def _goal_text(goal: pd.DataFrame, met: pd.Series, f: dict) -> str:
    name = label(GOAL_ESTIMATOR)
    if met.all():
        return (f"**The goal is reached.** With V unknown and never fitting a student's training loss, the {name} "
                f"estimator reads the integer r\\* exactly in all {len(goal)} tasks of the grid and the held-out "
                f"settings, its energy effective rank within {goal['error_teacher'].max():.2g} of the teacher kernel's "
                f"in every task (the goal allows {GOAL_TOLERANCE}), with no failed fit.")
    misses = goal[~met]
    listed = "; ".join(f"{'the grid' if s == 'grid' else HOLDOUT[s][0]}, r\\* = {r}, seed {seed}: "
                       + (f"the fit failed ({why.split(':')[0]})" if why else
                          f"rank {rank:.0f}, R̃_eff error {err:.2g}")
                       for s, r, seed, why, rank, err in zip(misses["setting"], misses["r_star"], misses["seed"],
                                                            misses["failure"], misses["numerical_rank"],
                                                            misses["error_teacher"], strict=True))
    return (f"**The goal is not reached:** the {name} estimator meets it in {int(met.sum())} of the {len(goal)} "
            f"tasks of the grid and the held-out settings (integer rank = r\\* in {int(goal['exact'].sum())}, "
            f"R̃_eff within {GOAL_TOLERANCE} in {int(goal['within'].sum())}, {f['goal_failed']} failed fits). "
            f"It misses at {listed}. It also needs T ≤ D: the rows it regresses are recovered from one sample each.")


def _exact_text(rows: pd.DataFrame) -> str:
    """Which estimators are exact on the whole grid, by kind: the pre-training ones judge the paper; the trained
    ones are reported as training."""
    within = f"{verdicts.RECOVERY_TOLERANCE:.0%}"
    exact = exact_on_grid(rows)
    ours = [n for n in exact if pre_training(n)]
    trained = [n for n in exact if not pre_training(n)]
    text = (f"Of the pre-training estimators, {len(ours)} read r\\* exactly in every task of this grid with an "
            f"energy rank within {within} of the teacher's"
            + (f" ({'; '.join(f'{label(n)}: {kind(n)}' for n in ours)}): a limit the paper stated is exceeded by "
               f"an estimator of ours, so its \"no single estimator is exact\" does not hold here."
               if ours else ": the paper's \"no single estimator is exact\" holds for them."))
    if trained:
        text += (f" The {' and '.join(label(n) for n in trained)} estimators are exact too, but they are maximum-"
                 f"likelihood fits of the student's training loss — trained full-rank students with a data-chosen "
                 f"threshold — so they answer Table 3's question (training recovers r\\*), not open problem (i).")
    return text


def _holdout_text(results) -> str:
    est = _scored(results["estimates"])
    own = est[(est["estimator"] == GOAL_ESTIMATOR) & (est["setting"] != "grid")]
    name = label(GOAL_ESTIMATOR).removesuffix(" (new)")
    missed = [f"{HOLDOUT[s][0]} ({_count(g['exact'])})" for s, g in own.groupby("setting", sort=False)
              if not g["exact"].all()]
    text = (f"Unchanged, the {name} estimator reads r\\* exactly in {int(own['exact'].sum())} of the {len(own)} "
            f"held-out tasks" + (f"; it misses in {', '.join(missed)}." if missed else ", in every held-out setting."))
    worst = own.loc[own["error_teacher"].idxmax()] if own["error_teacher"].notna().any() else None
    if worst is not None:
        text += (f" Its largest energy-rank error there is {worst['error_teacher']:.2g} "
                 f"({HOLDOUT[worst['setting']][0]}, r\\* = {worst['r_star']}), against the goal's {GOAL_TOLERANCE}.")
    return text


def _span(series: pd.Series) -> str:
    values = series.dropna()
    if not len(values):
        return "no n of the grid"
    return f"{values.min():g}" if values.min() == values.max() else f"{values.min():g}–{values.max():g}"


def _largest_exact(grid: pd.DataFrame, n: int) -> str:
    """The largest value of the grid's rows up to which every seed is exact at sample size ``n``."""
    if n not in grid.columns:
        return "—"
    ok = (grid[n] == 1.0).to_numpy()
    run = len(ok) if ok.all() else int(np.argmin(ok))
    return f"{grid.index[run - 1]:g}" if run else f"none of the grid's (from {grid.index[0]:g})"


def _relapses(row: pd.Series) -> bool:
    """Whether every seed is exact at some n but not at a larger n of the row."""
    exact = (row == 1.0).to_numpy()
    return bool(exact.any() and not exact[int(np.argmax(exact)):].all())


def _phase_text(results) -> str:
    cfg = results.cfg
    table = minimal_n(results)
    known, unknown = (table[label(n)] for n in PHASE)
    noise = phase_fractions(results, "n", "sigma", {"d": cfg.d, "r_star": cfg.phase_r_star})
    width = phase_fractions(results, "n", "d", {"sigma": cfg.sigma, "r_star": cfg.phase_r_star})
    names = [label(n).split(" (")[0] for n in PHASE]
    text = (f"At the grid's σ = {cfg.sigma:g} and d = {cfg.d}, the smallest n of the grid from which every seed reads "
            f"r\\* exactly is {_span(unknown)} for the {names[1]} and {_span(known)} for the {names[0]}, across "
            f"r\\* = {', '.join(map(str, table.index))}"
            + (f" ({min(cfg.phase_ns)} is the grid's smallest n: exact recovery may reach below it)."
               if min(cfg.phase_ns) in set(table.stack()) else "."))
    if noise[PHASE[0]].shape[1]:
        text += (f" At n = {cfg.n} and r\\* = {cfg.phase_r_star}, every seed is exact up to σ = "
                 f"{_largest_exact(noise[PHASE[1]], cfg.n)} for the {names[1]} and up to σ = "
                 f"{_largest_exact(noise[PHASE[0]], cfg.n)} for the {names[0]}.")
    if width[PHASE[1]].shape[0] > 1:
        parts = [", ".join(f"{'none of the grid' if math.isnan(v) else f'{v:g}'} at d = {d:g}"
                           for d, v in smallest_exact_n(width[name]).items()) for name in PHASE[::-1]]
        text += (f" Over widths (σ = {cfg.sigma:g}, r\\* = {cfg.phase_r_star}), the smallest exact n is {parts[0]} "
                 f"for the {names[1]}, and {parts[1]} for the {names[0]}.")
    relapses = [f"{y} = {key:g}" for grids, y in ((noise, "σ"), (width, "d"))
                for key, row in grids[PHASE[0]].iterrows() if _relapses(row)]
    if relapses:
        text += (f" The {names[0]} loses r\\* again at a larger n after reading it exactly at a smaller one "
                 f"({', '.join(relapses)}): more data shrink its noise threshold but not the bias of its logarithm.")
    cells = pd.concat([(g[PHASE[1]] >= g[PHASE[0]]).stack() for g in (noise, width)])
    return text + (f" In {int(cells.sum())} of the {len(cells)} cells of the two diagrams the {names[1]} is exact in "
                   f"at least as many seeds as the {names[0]}, which is given V\\*.")
