"""The frontier's phase diagrams: where exact recovery of r* ends over (n, σ), (n, d) and (r*, n), and the
sentence the page says about them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...report.numbers import span
from .analysis import label, scored
from .spec import PHASE


def phase_fractions(results, x: str, y: str, fixed: dict) -> dict[str, pd.DataFrame]:
    """Fraction of seeds with the integer rank = r*, per estimator of ``PHASE``, on the cells where the
    parameters of ``fixed`` hold: a (y, x) grid."""
    rows = scored(results["phase"])
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


def phase_text(results) -> str:
    cfg = results.cfg
    table = minimal_n(results)
    known, unknown = (table[label(n)] for n in PHASE)
    noise = phase_fractions(results, "n", "sigma", {"d": cfg.d, "r_star": cfg.phase_r_star})
    width = phase_fractions(results, "n", "d", {"sigma": cfg.sigma, "r_star": cfg.phase_r_star})
    names = [label(n).split(" (")[0] for n in PHASE]
    unknown_n, known_n = (span(ns, "no n of the grid") for ns in (unknown, known))
    text = (f"At the grid's σ = {cfg.sigma:g} and d = {cfg.d}, the smallest n of the grid from which every seed reads "
            f"r\\* exactly is {unknown_n} for the {names[1]} and {known_n} for the {names[0]}, across "
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


def goal_small_n(results) -> pd.DataFrame:
    """The goal estimator in the phase cells it ran in (``phase_goal``), per n at the grid's d and r*, one column per
    σ: the fraction of seeds whose integer rank is r*, and, across all its cells, how many fits lost a half-sample
    fit (read by the all-n rule) and how many failed on all samples."""
    if "phase_goal" not in results.tables:
        return pd.DataFrame()
    cfg = results.cfg
    rows = scored(results["phase_goal"])
    own = rows[np.isclose(rows["d"], cfg.d) & (rows["r_star"] == cfg.phase_r_star)]
    table = own.pivot_table(index="n", columns="sigma", values="exact", aggfunc="mean")
    table.columns = [f"exact, σ = {s:g}" for s in table.columns]
    by = rows.groupby("n")
    table["half-sample fit failed (all cells)"] = by["half_sample_failure"].agg(lambda f: int((f != "").sum()))
    table["failed on all samples (all cells)"] = by["failure"].agg(lambda f: int((f != "").sum()))
    table["fits (all cells)"] = by.size()
    return table.rename_axis("n")


def goal_text(results) -> str:
    """Where the goal estimator's exactness ends in n at the grid's σ, d and r*, and how its small-n fits fail."""
    table = goal_small_n(results)
    cfg = results.cfg
    column = f"exact, σ = {cfg.sigma:g}"
    if table.empty or column not in table:
        return "The goal estimator has not run in the phase cells yet."
    exact = table[column]
    whole = exact.index[exact == 1.0]
    halves, failed = int(table["half-sample fit failed (all cells)"].sum()), int(
        table["failed on all samples (all cells)"].sum())
    fits = int(table["fits (all cells)"].sum())
    ends = (f"reads r* = {cfg.phase_r_star} exactly in every seed from n = {int(whole.min())} on"
            if len(whole) and (exact.loc[whole.min():] == 1.0).all() else
            f"is exact in every seed at n = {span(whole)}" if len(whole) else "is exact in every seed at no n up to "
            f"{int(exact.index.max())}")
    return (f"The goal estimator, run in the {fits} small-n fits of the diagrams (n ≤ {cfg.goal_phase_max_n}), "
            f"{ends} at σ = {cfg.sigma:g}, d = {cfg.d}. In {halves} fits a half-sample fit diverged while the fit on "
            f"all samples succeeded: those are read by the all-n rule, as declared; {failed} fits failed on all "
            f"samples. It is undefined for T > d: one sample's attention rows are recovered as Y_n (X_n V)⁺, which "
            f"identifies the T × T mixing only when X_n V has full row rank, T ≤ d.")
