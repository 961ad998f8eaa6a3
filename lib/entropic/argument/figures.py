"""The figures of the Argument part: the theory page's checks (``engine.synthetic.theorems``,
``engine.synthetic.inflation``) and the teaching page's experiments (``argument.teaching``).
Each function takes what the engine returned and returns its Figure, sized for the book's column, in the
book's style (``figures``); legends sit below the axes, outside the data.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import transforms
from matplotlib.ticker import FixedLocator

from ..report.figures import SMALL, WIDTH, fit_columns
from ..report.numbers import number


def _legend_below(ax, ncol: int = 2) -> None:
    """The legend centred under the axes, below its tick labels and x label: anchored at the axes' bottom edge
    and moved down by their height in points (a fixed fraction of the axes would land on the x label of a
    short axes, and move when the layout resizes the axes)."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    below = (ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0) * 72 / fig.dpi + 4
    anchor = transforms.offset_copy(ax.transAxes, fig=fig, y=-below, units="points")
    fit_columns(fig, lambda n: ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor,
                                         ncol=n, frameon=False), ncol)


def _figure(height: float = 4.0):
    return plt.subplots(figsize=(WIDTH, height))


def _symlog(ax, width: float, values: np.ndarray) -> None:
    """Symmetric-log y axis, linear within ± width, with ticks at 0 and at whole decades beyond the band
    (automatic ticks crowd around 0)."""
    ax.set_yscale("symlog", linthresh=width)
    first = math.floor(math.log10(width)) + 1

    def decades(extent: float) -> list[float]:
        if extent <= width:
            return []
        ks = list(range(first, math.floor(math.log10(extent)) + 2))
        return [10.0**k for k in ks[:: max(1, math.ceil(len(ks) / 5))]]  # at most five labels a side

    top, bottom = float(np.max(values)), -float(np.min(values))
    ticks = [0.0, *decades(top), *(-t for t in decades(bottom))]
    ax.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.set_ylim(-max(10.0 ** (math.floor(math.log10(bottom)) + 1) if bottom > width else 0, 1.5 * width),
                max(10.0 ** (math.floor(math.log10(top)) + 1) if top > width else 0, 1.5 * width))


def figure_eckart_young(demo: pd.DataFrame):
    """Error of rank-r approximations of one matrix: the tail sum, the truncated SVD, random competitors."""
    fig, ax = _figure()
    ax.plot(demo["r"], demo["tail"], "k-", lw=1.2, label=r"tail $\Sigma_{j>r}\,\sigma_j^2$")
    ax.plot(demo["r"], demo["truncation"], "o", color="C0", ms=7, label="truncated SVD")
    ax.plot(demo["r"], demo["best_random"], "^", color="C1", ms=7, label="best of random rank-r fits")
    ax.set(yscale="log", xlabel="rank r", ylabel=r"$\|M - B\|_F^2$", xticks=list(demo["r"]))
    _legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def figure_excess(table: pd.DataFrame, r_star: int, band: float, series: dict[str, str],
                  optimum: str | None = "optimum", xlabel: str = "rank r"):
    """Excess risk against rank on a symmetric-log axis, linear within ± ``band`` · floor (shaded).

    ``series`` maps a column of ``table`` to its legend label (drawn as markers); ``optimum`` names the
    column of the population optimum (a dashed line), or None.
    """
    fig, ax = _figure()
    width = band * float(table["floor"].iloc[0])
    ax.axhspan(-width, width, color="C2", alpha=0.15, lw=0, label=f"±{band:.0%} of the noise floor")
    if optimum is not None:
        ax.plot(table["r"], table[optimum], "k--", lw=1.2, label="population optimum (Eckart–Young)")
    for (column, label), marker, color in zip(series.items(), "oxs", ("C0", "C3", "C4"), strict=False):
        ax.plot(table["r"], table[column], marker, color=color, ms=7, mew=2, label=label)
    ax.axvline(r_star, color="grey", ls=":", lw=1.2, label=f"$r^*$ = {r_star}")
    _symlog(ax, width, table[[*series, *([optimum] if optimum else [])]].to_numpy())
    ax.set(xlabel=xlabel, ylabel=r"excess risk  $L - \sigma^2 T d$", xticks=list(table["r"]))
    _legend_below(ax)
    fig.tight_layout()
    return fig


def figure_break(demo: dict):
    """Top: A* and the realized mixer X K Xᵀ/√D of a trained full-rank kernel on two inputs. Bottom: excess
    at rank r* of the ladder's students, on their training set and on fresh inputs, beside the equivariant
    floor (``argument.teaching.break_demo``)."""
    fig = plt.figure(figsize=(WIDTH, 6.6), layout="constrained")
    grid = fig.add_gridspec(2, 3, height_ratios=[1, 1.05])
    titles = ["$A^*$\n(every $X$)", "$M(X_1)$\nof B1c", "$M(X_2)$\nof B1c"]
    for k, (matrix, title) in enumerate(zip([demo["operator"], *demo["mixers"]], titles, strict=True)):
        ax = fig.add_subplot(grid[0, k])
        limit = float(np.abs(matrix).max())
        ax.imshow(matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set(title=title, xticks=[], yticks=[])
        ax.title.set_fontsize(SMALL)
    ax = fig.add_subplot(grid[1, :])
    table = demo["excess"]
    y, height = np.arange(len(table)), 0.38
    ax.barh(y - height / 2, table["train"], height, color="C0", label="on its training set")
    ax.barh(y + height / 2, table["population"], height, color="C1", label="on fresh inputs (population)")
    for column, offset in (("train", -height / 2), ("population", height / 2)):
        for k, value in enumerate(table[column]):  # right of the bar, or of 0 for a bar of negative length
            ax.annotate(number(value), (max(value, 0.0), k + offset), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=SMALL)
    ax.axvline(demo["floor"], color="C3", ls="--", lw=1.5, label="least population excess of any equivariant predictor")
    ax.set_yticks(y, list(table["student"]))
    ax.invert_yaxis()
    ax.set(xlabel=r"excess at rank $r^*$  ($L - \sigma^2 T d$)", xlim=(0, 1.15 * float(table["population"].max())))
    _legend_below(ax, ncol=1)
    return fig


def figure_deficiency(check: pd.DataFrame):
    """Theorem 5 on random instances: bound / exact optimum against the condition number of Σ_X."""
    fig, ax = _figure()
    ax.scatter(check["kappa"], check["ratio_frobenius"], marker="o", s=22, color="C0",
               label=r"our constant $\lambda_{\min}(\Sigma_X)\,\|V^*\|_F^2$")
    ax.scatter(check["kappa"], check["ratio_paper"], marker="^", s=22, color="C1",
               label=r"paper's constant $\lambda_{\min}(\Sigma_X)\,\sigma_{\min}(V^*)^2$")
    ax.axhline(1.0, color="k", lw=1, ls="--", label="exact optimum (ratio 1)")
    ax.set(xscale="log", yscale="log", xlabel=r"condition number of $\Sigma_X$", ylabel="lower bound / exact")
    _legend_below(ax, ncol=1)
    fig.tight_layout()
    return fig


def figure_mp(check: pd.DataFrame):
    """Theorem 8: R(Â) − R against n on log–log axes, simulated (seed mean, bars: range over seeds), the
    first-order prediction and the paper's correction."""
    by_n = check.groupby("n")
    mean, low, high = by_n["simulated"].mean(), by_n["simulated"].min(), by_n["simulated"].max()
    fig, ax = _figure()
    ax.errorbar(mean.index, mean, yerr=[mean - low, high - mean], fmt="o", color="C0", capsize=3,
                label=r"simulated $R_{\mathrm{eff}}(\hat A) - R_{\mathrm{eff}}(A^*)$")
    ax.plot(mean.index, by_n["first_order"].mean(), "-", color="C0", lw=1.5, label="first order (derived here)")
    ax.plot(mean.index, by_n["paper"].mean(), "--", color="C1", lw=1.5, label=r"paper's $(T - R)/(2n)$")
    ax.set(xscale="log", yscale="log", xlabel="samples n", ylabel="inflation of the effective rank")
    _legend_below(ax)
    fig.tight_layout()
    return fig
