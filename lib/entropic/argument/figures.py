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


def _legend_below(ax, ncol: int | None = None) -> None:
    """The legend centred under the axes, below its tick labels and x label: anchored at the axes' bottom edge
    and moved down by their height in points (a fixed fraction of the axes would land on the x label of a
    short axes, and move when the layout resizes the axes). In one row where it fits the figure's width
    (``ncol``: at most that many columns), else in as few rows as fit."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    below = (ax.get_window_extent(renderer).y0 - ax.get_tightbbox(renderer).y0) * 72 / fig.dpi + 4
    anchor = transforms.offset_copy(ax.transAxes, fig=fig, y=-below, units="points")
    ncol = ncol or len(ax.get_legend_handles_labels()[0])
    fit_columns(fig, lambda n: ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor,
                                         ncol=n, frameon=False), ncol)


def _figure(height: float = 4.0, width: float = WIDTH):
    return plt.subplots(figsize=(width, height))


def _symlog(ax, width: float, values: np.ndarray, labels: int = 5) -> None:
    """Symmetric-log y axis, linear within ± width, with ticks at 0 and at whole decades beyond the band
    (automatic ticks crowd around 0), at most ``labels`` of them a side (fewer on a short axis)."""
    ax.set_yscale("symlog", linthresh=width)
    first = math.floor(math.log10(width)) + 1

    def decades(extent: float) -> list[float]:
        if extent <= width:
            return []
        ks = list(range(first, math.floor(math.log10(extent)) + 2))
        return [10.0**k for k in ks[:: max(1, math.ceil(len(ks) / labels))]]

    top, bottom = float(np.max(values)), -float(np.min(values))
    ticks = [0.0, *decades(top), *(-t for t in decades(bottom))]
    ax.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.set_ylim(-max(10.0 ** (math.floor(math.log10(bottom)) + 1) if bottom > width else 0, 1.5 * width),
                max(10.0 ** (math.floor(math.log10(top)) + 1) if top > width else 0, 1.5 * width))


def figure_eckart_young(demo: pd.DataFrame, height: float = 4.0, width: float = WIDTH):
    """Error of rank-r approximations of one matrix: the tail sum, the truncated SVD, random competitors."""
    fig, ax = _figure(height, width)
    ax.plot(demo["r"], demo["tail"], "k-", lw=1.2, label=r"tail $\Sigma_{j>r}\,\sigma_j^2$")
    ax.plot(demo["r"], demo["truncation"], "o", color="C0", ms=7, label="truncated SVD")
    ax.plot(demo["r"], demo["best_random"], "^", color="C1", ms=7, label="best of random rank-r fits")
    ax.set(yscale="log", xlabel="rank r", ylabel=r"$\|M - B\|_F^2$", xticks=list(demo["r"]))
    _legend_below(ax)
    fig.tight_layout()
    return fig


def figure_excess(table: pd.DataFrame, r_star: int, band: float, series: dict[str, str],
                  optimum: str | None = "optimum", xlabel: str = "rank r", height: float = 4.0,
                  width: float = WIDTH):
    """Excess risk against rank on a symmetric-log axis, linear within ± ``band`` · floor (shaded).

    ``series`` maps a column of ``table`` to its legend label (drawn as markers); ``optimum`` names the
    column of the population optimum (a dashed line), or None. ``width`` and ``height`` in inches.
    """
    fig, ax = _figure(height, width)
    half = band * float(table["floor"].iloc[0])  # the band's half-width
    ax.axhspan(-half, half, color="C2", alpha=0.15, lw=0, label=f"±{band:.0%} of the noise floor")
    if optimum is not None:
        ax.plot(table["r"], table[optimum], "k--", lw=1.2, label="population optimum (Eckart–Young)")
    for (column, label), marker, color in zip(series.items(), "oxs", ("C0", "C3", "C4"), strict=False):
        ax.plot(table["r"], table[column], marker, color=color, ms=7, mew=2, label=label)
    ax.axvline(r_star, color="grey", ls=":", lw=1.2, label=f"$r^*$ = {r_star}")
    labels = 5 if height >= 3.5 else 3  # a short axis has room for fewer decade labels
    _symlog(ax, half, table[[*series, *([optimum] if optimum else [])]].to_numpy(), labels)
    ax.set(xlabel=xlabel, ylabel=r"excess risk  $L - \sigma^2 T d$", xticks=list(table["r"]))
    _legend_below(ax)
    fig.tight_layout()
    return fig


def figure_mixers(demo: dict, height: float = 2.1, width: float = WIDTH):
    """A* beside the realized mixer X K Xᵀ/√D of a trained full-rank kernel (B1c) on two of its inputs
    (``argument.teaching.break_demo``), each on its own signed color scale."""
    fig, axes = plt.subplots(1, 3, figsize=(width, height), layout="constrained")
    titles = ["$A^*$ (every $X$)", "$M(X_1)$ of B1c", "$M(X_2)$ of B1c"]
    for ax, matrix, title in zip(axes, [demo["operator"], *demo["mixers"]], titles, strict=True):
        limit = float(np.abs(matrix).max())
        ax.imshow(matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set(title=title, xticks=[], yticks=[])
        ax.title.set_fontsize(SMALL)
    return fig


def figure_rungs(demo: dict, height: float = 3.4, width: float = WIDTH, labels: str = "student"):
    """Excess at rank r* of the ladder's students, on their training set and on fresh inputs, beside the
    equivariant floor (``argument.teaching.break_demo``); ``labels`` names the rows by ``student`` (B1: linear QK)
    or, in a narrow figure, by ``rung`` (B1). A bar too short to see is labelled ≈ 0."""
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    table = demo["excess"]
    y, bar = np.arange(len(table)), 0.38
    ax.barh(y - bar / 2, table["train"], bar, color="C0", label="training set")
    ax.barh(y + bar / 2, table["population"], bar, color="C1", label="fresh inputs")
    tiny = 0.01 * float(table["population"].max())  # a bar this short reads as 0; one label says so
    for column, offset in (("train", -bar / 2), ("population", bar / 2)):
        for k, value in enumerate(table[column]):  # right of the bar, or of 0 for a bar of negative length
            if abs(value) >= tiny or column == "population":
                ax.annotate(number(value) if abs(value) >= tiny else "≈ 0", (max(value, 0.0), k + offset),
                            xytext=(3, 0), textcoords="offset points", va="center", fontsize=SMALL)
    ax.axvline(demo["floor"], color="C3", ls="--", lw=1.5, label="bound (token-symmetric)")
    ax.set_yticks(y, list(table[labels]))
    ax.invert_yaxis()
    ax.set(xlabel=r"excess at rank $r^*$  ($L - \sigma^2 T d$)", xlim=(0, 1.15 * float(table["population"].max())))
    _legend_below(ax)
    return fig


def figure_spectra(spectra: dict[str, np.ndarray], edge: float | None = None, height: float = 3.2,
                   width: float = WIDTH):
    """Singular values by index on a log axis, one marker series per matrix (``spectra``: label → values);
    ``edge``, when given, is a dashed line at twice a noise edge (the numerical-rank threshold). Values below
    10⁻⁶ of the largest (zero but for rounding) are left out: a log axis has no place for them."""
    fig, ax = _figure(height, width)
    top = max(float(np.max(v)) for v in spectra.values())
    for (label, values), marker, color in zip(spectra.items(), "os^", ("C0", "C1", "C2"), strict=False):
        values = np.asarray(values, dtype=float)
        k = np.arange(1, len(values) + 1)
        kept = values > 1e-6 * top
        ax.plot(k[kept], values[kept], marker, color=color, ms=7, mfc="none" if marker == "o" else color, mew=1.5,
                label=label)
    if edge is not None:
        ax.axhline(2 * edge, color="C3", ls="--", lw=1.2, label="twice the noise edge")
    ax.set(yscale="log", xlabel="index i", ylabel=r"singular value $\sigma_i$")
    ax.xaxis.set_major_locator(FixedLocator(list(range(1, len(next(iter(spectra.values()))) + 1, 2))))
    _legend_below(ax)
    fig.tight_layout()
    return fig


def figure_static_rank(inside: pd.DataFrame, outside: pd.DataFrame | None = None, height: float = 3.2,
                       width: float = WIDTH):
    """Energy effective rank (eq. 2) of a learned full-width kernel against the task's r*
    (``argument.teaching.static_rank_sweep``): on tasks inside the attention class (circles), beside the
    teacher's own energy rank (line), and, when given, outside it (crosses)."""
    fig, ax = _figure(height, width)
    ax.plot(inside["r_star"], inside["teacher"], "k-", lw=1.2, label=r"teacher's $\tilde R_{\mathrm{eff}}$")
    ax.plot(inside["r_star"], inside["learned"], "o", color="C0", ms=8, mfc="none", mew=2,
            label="learned, attention-native task")
    if outside is not None:
        ax.plot(outside["r_star"], outside["learned"], "x", color="C3", ms=8, mew=2,
                label="learned, fixed-operator task")
    drawn = [inside["teacher"], inside["learned"], *([outside["learned"]] if outside is not None else [])]
    top = max(float(np.max(values)) for values in drawn)
    ax.set(xlabel=r"the task's $r^*$", ylabel=r"$\tilde R_{\mathrm{eff}}(K)$", xticks=list(inside["r_star"]),
           ylim=(0, 1.15 * top))  # room above the highest marker, which the axis's edge would cut in half
    _legend_below(ax)
    fig.tight_layout()
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
