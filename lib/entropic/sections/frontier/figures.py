"""The frontier page's figures (see the package docstring)."""

from __future__ import annotations

import math
import textwrap

import matplotlib.pyplot as plt
import numpy as np

from ...report import figures
from .analysis import label as _label
from .analysis import setting_rows
from .causes import causes
from .phase import minimal_n, phase_fractions
from .spec import ESTIMATORS, GOAL_TOLERANCE

# --- the figures -----------------------------------------------------------------------------------

def _short(name: str) -> str:
    """An estimator's label without the parenthesis that says whose reading it is."""
    return _label(name).split(" (")[0]


def _wrapped(name: str, width: int) -> str:
    """``_short(name)`` broken into lines of at most ``width`` characters (a title over half the figure's width)."""
    return "\n".join(textwrap.wrap(_short(name), width))


def _signed_axis(ax, values, linthresh: float, floor: float) -> None:
    """A symmetric-log y axis reaching at least ±``floor``, with ticks at 0 and every decade from ``linthresh``
    inside the limits (so that labels cannot overprint)."""
    low, high = min(float(np.nanmin(values)), -floor) * 1.6, max(float(np.nanmax(values)), floor) * 1.6
    ax.set_yscale("symlog", linthresh=linthresh, linscale=0.6)
    ax.set_ylim(low, high)
    decades = [10.0**k for k in range(round(math.log10(linthresh)), 3)]
    ticks = sorted([0.0] + [v for v in decades if v <= high] + [-v for v in decades if -v >= low])
    ax.set_yticks(ticks, ["0" if t == 0 else f"{t:g}".replace("-", "−") for t in ticks])
    ax.yaxis.set_minor_locator(plt.NullLocator())


def figure_errors(results):
    """Signed error R̃_eff − R̃_eff(K*) against r*, one line per estimator (seed means, band: seed range)."""
    rows = setting_rows(results)
    rows = rows.assign(signed=rows["energy_rank"] - rows["teacher_energy_rank"])
    names = [n for n in ESTIMATORS if n in set(rows["estimator"])]
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.4))
    ax.axhspan(-GOAL_TOLERANCE, GOAL_TOLERANCE, color="grey", alpha=0.18, lw=0,
               label=f"the goal: within ±{GOAL_TOLERANCE}")
    ax.axhline(0, color="k", lw=0.8)
    for i, name in enumerate(names):
        stats = rows[rows["estimator"] == name].groupby("r_star")["signed"].agg(["mean", "min", "max"])
        shift = (i - (len(names) - 1) / 2) * 0.05
        ax.plot(stats.index + shift, stats["mean"], marker=figures.MARKERS[i % 8], ls=figures.DASHES[i % 4],
                color=f"C{i}", ms=5, label=_short(name))
        ax.fill_between(stats.index + shift, stats["min"], stats["max"], color=f"C{i}", alpha=0.12, lw=0)
    _signed_axis(ax, rows["signed"].to_numpy(), 0.01, GOAL_TOLERANCE)
    ax.set(xlabel="teacher rank $r^*$", ylabel=r"$\tilde R_\mathrm{eff} - \tilde R_\mathrm{eff}(K^*)$")
    ax.set_xticks(sorted(rows["r_star"].unique()))
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=2)
    return fig


def figure_phase(results, y: str = "sigma"):
    """Fraction of seeds reading r* exactly over (n, ``y``), ``y`` = ``"sigma"`` or ``"d"``, for the V-known log
    inversion and the V-unknown least squares side by side; a star marks the grid's (the paper's) setting."""
    cfg = results.cfg
    fixed = {"d": cfg.d, "r_star": cfg.phase_r_star} if y == "sigma" else {"sigma": cfg.sigma,
                                                                          "r_star": cfg.phase_r_star}
    grids = phase_fractions(results, "n", y, fixed)
    fig, axes = plt.subplots(1, 2, figsize=(figures.WIDTH, 3.9), sharey=True, layout="constrained")
    where = "the paper's setting" if cfg.paper_setting else "the grid's setting"
    mark = {"sigma": cfg.sigma, "d": cfg.d}[y]
    for ax, (name, grid) in zip(axes, grids.items(), strict=True):
        image = ax.imshow(grid.to_numpy(dtype=float), origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(grid.shape[1]), [f"{n:g}" for n in grid.columns], rotation=90)
        ax.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index])
        ax.grid(False)
        ax.set_title(_wrapped(name, 28), fontsize=figures.SMALL)
        ax.set_xlabel("samples n")
        columns, index = list(grid.columns), [float(v) for v in grid.index]
        if cfg.n in columns and any(math.isclose(v, mark) for v in index):
            row = next(i for i, v in enumerate(index) if math.isclose(v, mark))
            ax.plot(columns.index(cfg.n), row, ls="none", marker="*", ms=15, mfc="white", mec="k",
                    label=f"{where}: n = {cfg.n}, {'σ' if y == 'sigma' else 'd'} = {mark:g}")
    axes[0].set_ylabel("noise σ" if y == "sigma" else "width d")
    fig.colorbar(image, ax=list(axes), label="fraction of seeds\nwith rank = r*", fraction=0.05, pad=0.03)
    figures.legend_below(fig, axes[0], ncol=1)
    return fig


def figure_minimal_n(results):
    """The smallest n from which every seed reads r* exactly, against r*, for the two estimators of ``PHASE``."""
    table, cfg = minimal_n(results), results.cfg
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 3.6))
    ceiling = max(cfg.phase_ns) * 1.8
    for i, column in enumerate(table.columns):
        shift = (i - 0.5) * 0.08
        ax.plot(table.index + shift, table[column], marker=figures.MARKERS[i], ls=figures.DASHES[i], color=f"C{i}",
                ms=6, label=column.split(" (")[0])
        never = table.index[table[column].isna()]
        if len(never):
            ax.plot(never + shift, [ceiling] * len(never), ls="none", marker="x", ms=8, color=f"C{i}",
                    label=f"{column.split(' (')[0]}: not exact at any n ≤ {max(cfg.phase_ns)}")
    ax.set_yscale("log")
    ax.set_yticks(list(cfg.phase_ns), [f"{n:g}" for n in cfg.phase_ns])
    ax.yaxis.set_minor_locator(plt.NullLocator())
    ax.set(xlabel="teacher rank $r^*$", ylabel="smallest $n$, every seed exact")
    ax.set_xticks(list(table.index))
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=1)
    return fig


def figure_causes(results):
    """Where exactness ends, and why, over (n, σ) at the phase r* and the grid's d: per estimator of ``PHASE`` (rows),
    the fraction of seeds whose fit separates r* (a gap at r*), and the fractions the split-half rule and the
    all-n (Gavish–Donoho) rule read exactly (columns)."""
    cfg, table = results.cfg, causes(results)
    table = table[(table["d"] == cfg.d) & (table["r_star"] == cfg.phase_r_star)]
    columns = ["separated", "split-half exact", "all-n exact"]
    titles = ["the fit\nseparates r*", "split-half rule\nreads r*", "all-n rule\nreads r*"]
    names = list(dict.fromkeys(table["estimator"]))
    fig, axes = plt.subplots(len(names), 3, figsize=(figures.WIDTH, 2.2 + 2.3 * len(names)), sharex=True, sharey=True,
                             squeeze=False, layout="constrained")
    image = None
    for i, name in enumerate(names):
        own = table[table["estimator"] == name]
        for j, column in enumerate(columns):
            grid = own.pivot_table(index="sigma", columns="n", values=column)
            ax = axes[i][j]
            image = ax.imshow(grid.to_numpy(dtype=float), origin="lower", cmap="viridis", vmin=0, vmax=1,
                              aspect="auto")
            ax.set_xticks(range(grid.shape[1]), [f"{n:g}" if k % 2 == 0 else "" for k, n in enumerate(grid.columns)],
                          rotation=90, fontsize=figures.SMALL)
            ax.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index], fontsize=figures.SMALL)
            ax.grid(False)
            if i == 0:
                ax.set_title(titles[j], fontsize=figures.SMALL)
            if i == len(names) - 1:
                ax.set_xlabel("samples n")
        axes[i][0].set_ylabel(f"{_wrapped(name, 24)}\nnoise σ", fontsize=figures.SMALL)
    if image is not None:
        fig.colorbar(image, ax=axes.ravel().tolist(), label="fraction of seeds", fraction=0.04, pad=0.02)
    return fig
