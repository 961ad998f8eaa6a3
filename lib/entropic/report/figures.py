"""The shared look of every figure, and the plots several sections draw.

Each function returns its Figure. Headless: outside a Jupyter kernel the ``agg`` backend is used;
inside one (ipykernel sets ``MPLBACKEND``) the kernel's inline backend shows the figure, as SVG whose text
stays text (``svg.fonttype: none``): sharp at any size, and its font sizes readable by the browser test.

Rules every figure here follows: figures are sized for the book's text column (``WIDTH`` inches; on a
desktop the image shows at its own size, its text about the body text's size); no text is smaller than
``SMALL`` points, so that on a 400-px phone, where the column leaves a figure ``PHONE_PX`` pixels, every
letter is at least ``MIN_PX`` pixels high (a figure in a fold, which leaves it ``FOLD_PX`` there, is drawn
narrower in that ratio); every artist is labelled in its own call; lines that may
coincide differ in marker and line style; legends sit below the axes, outside the data; symmetric-log axes
get explicit decade ticks so that labels never overprint; panels side by side share one axis label.

Excess risk is signed (a student at r ≥ r* fits a little noise and lands slightly *below* the floor),
so it is drawn on a symmetric-log axis: linear within the achievability band (± 5 % of the noise
floor, shaded), logarithmic outside it, with the sign kept.
"""

from __future__ import annotations

import math
import os

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter, NullLocator

from .names import word
from .verdicts import FLOOR_BAND

WIDTH = 6.0  # inches: a figure's width (432 pt), shown at its own size on a desktop
PHONE_PX = 352  # the width a 400-px screen's column leaves a figure
FOLD_PX = 301  # the width a fold (a solution's dropdown) leaves a figure on that screen
MIN_PX = 9  # the smallest text a reader should meet on that screen
SMALL = 12  # pt: the smallest text of any figure: 12 pt of 432 pt shown at 352 px is 9.8 px
sns.set_theme(style="whitegrid", context="notebook",
              rc={"font.size": 13, "axes.labelsize": 13, "axes.titlesize": 13, "xtick.labelsize": SMALL,
                  "ytick.labelsize": SMALL, "legend.fontsize": SMALL, "legend.title_fontsize": SMALL,
                  "figure.dpi": 100, "svg.fonttype": "none", "svg.hashsalt": "entropic",
                  "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica", "Liberation Sans", "sans-serif"]})


def _svg_in_a_kernel() -> None:
    """Inside a Jupyter kernel, show figures as SVG (the book's pages); elsewhere nothing changes."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")


_svg_in_a_kernel()
MARKERS = ["o", "s", "D", "^", "v", "P", "X", "*"]
DASHES = ["-", "--", "-.", ":"]


def _decade(value: float) -> str:
    if value == 0:
        return "0"
    exponent = round(math.log10(abs(value)))
    return f"{'−' if value < 0 else ''}$10^{{{exponent}}}$"


def excess_axis(ax, noise_floor: float, values, label: str = "excess risk  L − σ²Td") -> None:
    """A signed symmetric-log y axis with the achievability band shaded and decade ticks that cannot
    collide: 0, then every decade above ten band widths on each side the data reach."""
    band = FLOOR_BAND * noise_floor
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    ax.set_yscale("symlog", linthresh=band, linscale=0.6)
    ax.axhspan(-band, band, color="C2", alpha=0.15, lw=0, label=f"±{FLOOR_BAND:.0%} of the noise floor")
    ax.axhline(0, color="grey", lw=0.8)
    first = math.floor(math.log10(band)) + 1
    top = max(float(np.abs(values).max()) if values.size else band, band * 10)
    ticks = [0.0]
    for sign, reach in ((1, values.max(initial=0)), (-1, -values.min(initial=0))):
        ticks += [sign * 10.0**k for k in range(first, math.ceil(math.log10(max(reach, band))) + 1)
                  if 10.0**k <= max(reach, band) * 10]
    ax.set_yticks(sorted(set(ticks)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _decade(v)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylim(min(values.min(initial=0) * 1.5, -band * 1.5), top * 2)
    ax.set_ylabel(label)


def legend_below(fig, ax, ncol: int = 2, title: str | None = None) -> None:
    """One legend for the figure, below the axes (outside the data), from the labelled artists of ``ax`` (an axes,
    or a list of axes whose labels are gathered once each)."""
    found = {}
    for axis in ax if isinstance(ax, list | tuple) else [ax]:
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
            found.setdefault(label, handle)
    handles, labels = list(found.values()), list(found)
    for axis in fig.axes:
        if axis.get_legend() is not None:
            axis.get_legend().remove()
    for legend in list(fig.legends):  # a figure gets one legend, however often it is asked for
        legend.remove()
    fit_columns(fig, lambda n: fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=n,
                                          frameon=False, title=title), ncol)


def fit_columns(fig, draw, ncol: int):
    """Draw a legend with ``draw(ncol)``, and again with fewer columns while it is wider than the figure (a
    wider legend would widen the saved image and shrink all its text on a phone). Returns the legend."""
    renderer = fig.canvas.get_renderer()
    legend = draw(ncol)
    while ncol > 1 and legend.get_window_extent(renderer).width > fig.bbox.width:
        legend.remove()
        ncol -= 1
        legend = draw(ncol)
    return legend


def excess_vs_rank(sweep: pd.DataFrame, noise_floor: float, x: str = "r", hue: str | None = None,
                   col: str | None = None, mark: float | None = None, xlabel: str = "student rank r",
                   mark_label: str = "r = r*", hue_name: str | None = None):
    """Excess risk against student rank: lines are seed means (one marker and dash style per ``hue``
    level, a small horizontal offset so that coinciding lines stay visible), bands the range over
    seeds; one panel per ``col`` level; ``mark`` draws a dotted vertical line (r* or r/r* = 1)."""
    panels = list(dict.fromkeys(sweep[col])) if col else [None]
    levels = list(dict.fromkeys(sweep[hue])) if hue else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 3.6), squeeze=False, sharey=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        data = sweep if panel is None else sweep[sweep[col] == panel]
        steps = np.diff(np.unique(data[x])).min(initial=1.0) if data[x].nunique() > 1 else 1.0
        for i, level in enumerate(levels):
            own = data if level is None else data[data[hue] == level]
            stats = own.groupby(x)["excess"].agg(["mean", "min", "max"])
            shift = (i - (len(levels) - 1) / 2) * 0.06 * steps  # offsets, so equal lines stay visible
            label = "seed mean (band: seed range)" if level is None else f"{hue_name or word(hue)} = {word(level)}"
            ax.plot(stats.index + shift, stats["mean"], marker=MARKERS[i % len(MARKERS)],
                    ls=DASHES[i % len(DASHES)], color=f"C{i}", ms=5, label=label)
            ax.fill_between(stats.index + shift, stats["min"], stats["max"], color=f"C{i}", alpha=0.15, lw=0)
        excess_axis(ax, noise_floor, data["excess"], label="excess risk  L − σ²Td" if ax is axes[0][0] else "")
        if mark is not None:
            ax.axvline(mark, color="C3", ls=":", lw=1.4, label=mark_label)
        ax.set_xlabel(xlabel)
        if panel is not None:
            ax.set_title(f"{word(col)}: {word(panel)}")
    fig.tight_layout()
    legend_below(fig, axes[0][0], ncol=min(3, len(levels) + 2))
    return fig


def ranks_against_r_star(long: pd.DataFrame, col: str | None = None):
    """Rank measures (``measure``, ``rank``) against r*, one marker and dash style per measure, with the
    identity line r = r*; seed means with the range over seeds as a band. A teacher's measure (its name says
    "teacher") is drawn as large hollow markers under the others, so that a learned measure equal to it shows
    as filled markers inside them instead of hiding its line."""
    panels = list(dict.fromkeys(long[col])) if col else [None]
    measures = list(dict.fromkeys(long["measure"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 3.8), squeeze=False, sharey=True)
    top = float(long["r_star"].max())
    for ax, panel in zip(axes[0], panels, strict=True):
        data = long if panel is None else long[long[col] == panel]
        ax.plot([0, top], [0, top], color="k", ls="--", lw=0.8, label="r = r*")
        for i, measure in enumerate(measures):
            stats = data[data["measure"] == measure].groupby("r_star")["rank"].agg(["mean", "min", "max"])
            shift = (i - (len(measures) - 1) / 2) * 0.08
            teacher = "teacher" in str(measure)
            ax.plot(stats.index + shift, stats["mean"], marker=MARKERS[i % len(MARKERS)], ls=DASHES[i % len(DASHES)],
                    color=f"C{i}", label=measure, zorder=1 if teacher else 3,
                    **(dict(ms=11, mfc="none", mew=1.6, lw=2.2) if teacher else dict(ms=5)))
            ax.fill_between(stats.index + shift, stats["min"], stats["max"], color=f"C{i}", alpha=0.15, lw=0)
        ax.set(xlabel="teacher rank r*", ylabel="rank" if ax is axes[0][0] else "")
        ax.set_xticks(sorted(data["r_star"].unique()))
        if panel is not None:
            ax.set_title(str(word(panel)))
    fig.tight_layout()
    legend_below(fig, axes[0][0], ncol=2)
    return fig


def bars(data: pd.DataFrame, x: str, y: str, noise_floor: float, xlabel: str):
    """Seed means as bars, seeds as dots, on the signed excess axis."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
    order = list(dict.fromkeys(data[x]))
    means = data.groupby(x, observed=True)[y].mean().reindex(order)
    ax.bar(range(len(order)), means.values, color="C0", alpha=0.6, label="seed mean")
    for i, level in enumerate(order):
        values = data.loc[data[x] == level, y].to_numpy()
        ax.plot(np.full(len(values), i) + np.linspace(-0.12, 0.12, len(values)), values, "ko", ms=4,
                label="one seed" if i == 0 else None)
    ax.set_xticks(range(len(order)), [str(o) for o in order])
    excess_axis(ax, noise_floor, data[y])
    ax.set_xlabel(xlabel)
    fig.tight_layout()
    legend_below(fig, ax, ncol=3)
    return fig
