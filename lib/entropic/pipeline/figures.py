"""The shared look of every figure, and the plot every section draws: excess risk against rank.

Each function returns its Figure. Headless: outside a Jupyter kernel the ``agg`` backend is used;
inside one (ipykernel sets ``MPLBACKEND``) the kernel's inline backend shows the figure.

Excess risk is signed (a student at r ≥ r* fits a little noise and lands slightly *below* the floor),
so it is drawn on a symmetric-log axis: linear within the achievability band (± 5 % of the noise
floor, shaded), logarithmic outside it, with the sign kept.
"""

from __future__ import annotations

import os

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("agg")

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .verdicts import FLOOR_BAND

sns.set_theme(style="whitegrid", context="notebook")


def excess_axis(ax, noise_floor: float, label: str = "excess risk  L − σ²Td") -> None:
    """A signed symmetric-log y axis with the achievability band shaded."""
    band = FLOOR_BAND * noise_floor
    ax.set_yscale("symlog", linthresh=band)
    ax.axhspan(-band, band, color="C2", alpha=0.15, lw=0)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel(label)


def excess_vs_rank(sweep: pd.DataFrame, noise_floor: float, x: str = "r", hue: str | None = None,
                   col: str | None = None, mark: float | None = None, xlabel: str = "student rank r"):
    """Excess risk against student rank: lines are seed means, bands the range over seeds.

    ``hue`` and ``col`` split the lines and panels; ``mark`` draws a vertical line (r* or r/r* = 1).
    """
    grid = sns.relplot(data=sweep, x=x, y="excess", hue=hue, col=col, kind="line", marker="o",
                       errorbar=("pi", 100), palette="viridis" if hue else None, height=3.6, aspect=1.25,
                       facet_kws={"sharey": False})
    for ax in grid.axes.flat:
        excess_axis(ax, noise_floor)
        if mark is not None:
            ax.axvline(mark, color="C3", ls=":", lw=1.2)
        ax.set_xlabel(xlabel)
    grid.figure.tight_layout()
    return grid.figure


def ranks_against_r_star(long: pd.DataFrame, col: str | None = None):
    """Rank measures (``measure``, ``rank``) against r*, with the identity line r = r*."""
    grid = sns.relplot(data=long, x="r_star", y="rank", hue="measure", style="measure", col=col, kind="line",
                       markers=True, dashes=False, errorbar=("pi", 100), height=3.6, aspect=1.25)
    sns.move_legend(grid, "lower center", bbox_to_anchor=(0.5, -0.02), ncol=2, title=None)
    top = float(long["r_star"].max())
    for ax in grid.axes.flat:
        ax.plot([0, top], [0, top], "k--", lw=0.8, label="r = r*")
        ax.set(xlabel="teacher rank r*", ylabel="rank")
    grid.figure.tight_layout(rect=(0, 0.12, 1, 1))
    return grid.figure


def bars(data: pd.DataFrame, x: str, y: str, noise_floor: float, xlabel: str):
    """Seed means as bars, seeds as dots, on the signed excess axis."""
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.barplot(data=data, x=x, y=y, errorbar=None, color="C0", alpha=0.6, ax=ax)
    sns.stripplot(data=data, x=x, y=y, color="k", size=4, ax=ax)
    excess_axis(ax, noise_floor)
    ax.set_xlabel(xlabel)
    fig.tight_layout()
    return fig
