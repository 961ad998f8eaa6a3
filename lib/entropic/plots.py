"""Figures of the book. Each function returns its Figure.

Headless: outside a Jupyter kernel the ``agg`` backend is used; inside one (ipykernel sets
``MPLBACKEND``) the kernel's inline backend shows the figure as the cell's output.
"""

from __future__ import annotations

import os

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("agg")

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

sns.set_theme(style="whitegrid", context="notebook")


def _clip_for_log(values: pd.Series, floor: float) -> pd.Series:
    # Excess risk at r ≥ r* is ≈ 0 and may be slightly negative (fitted noise): plot |excess|,
    # clipped at a small fraction of the noise floor, so the log axis can show it.
    return values.abs().clip(lower=1e-6 * floor)


def excess_vs_rank(sweep: pd.DataFrame, r_star: int, noise_floor: float, title: str | None = None):
    """§4 figure: |excess risk| against student rank r (log scale), one point per seed, r* marked."""
    data = sweep.assign(abs_excess=_clip_for_log(sweep["excess"], noise_floor))
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.lineplot(data=data, x="r", y="abs_excess", marker="o", errorbar=("pi", 100), ax=ax, label="trained")
    if "eckart_young" in data:
        theory = data.groupby("r")["eckart_young"].mean()
        theory = theory[theory > 1e-6 * noise_floor]  # exactly 0 for r ≥ r*, up to round-off
        ax.plot(theory.index, theory.values, "k--", lw=1, label="Eckart–Young optimum")
    ax.axvline(r_star, color="C3", ls=":", label=f"r* = {r_star}")
    ax.axhline(noise_floor, color="grey", lw=0.8, label=f"noise floor σ²Td = {noise_floor:.3g}")
    ax.set(yscale="log", xlabel="student rank r", ylabel="|excess risk|  L − σ²Td", title=title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def ladder_excess(table: pd.DataFrame, noise_floor: float):
    """§5 figure: excess risk at r = r* per rung (bars: seed mean; dots: seeds), log scale."""
    data = table.assign(abs_excess=_clip_for_log(table["excess"], noise_floor))
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.barplot(data=data, x="rung", y="abs_excess", errorbar=None, color="C0", alpha=0.6, ax=ax)
    sns.stripplot(data=data, x="rung", y="abs_excess", color="k", size=4, ax=ax)
    ax.axhline(noise_floor, color="grey", lw=0.8, label=f"noise floor σ²Td = {noise_floor:.3g}")
    ax.set(yscale="log", xlabel="rung of the ladder", ylabel="|excess risk| at r = r*")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def grid_excess(sweep: pd.DataFrame, noise_floor: float):
    """§6 figure: |excess| against r / r* for each r* (hue) and teacher (panel), log scale."""
    data = sweep.assign(abs_excess=_clip_for_log(sweep["excess"], noise_floor),
                        ratio=sweep["r"] / sweep["r_star"])
    grid = sns.relplot(data=data, x="ratio", y="abs_excess", hue="r_star", col="teacher", kind="line",
                       marker="o", errorbar=("pi", 100), palette="viridis", height=3.6, aspect=1.2,
                       facet_kws={"sharey": False})
    for ax in grid.axes.flat:
        ax.set(yscale="log", xlabel="r / r*", ylabel="|excess risk|")
        ax.axvline(1.0, color="C3", ls=":")
        ax.axhline(noise_floor, color="grey", lw=0.8)
    grid.figure.tight_layout()
    return grid.figure


def recovered_rank(recovery: pd.DataFrame):
    """§6 figure: effective and energy effective rank of the learned kernel against r*."""
    labels = {"effective_rank": "R_eff(K), learned (eq. 1)",
              "energy_effective_rank": "R̃_eff(K), learned (eq. 2)",
              "teacher_energy_effective_rank": "R̃_eff(K*), teacher (eq. 2)"}
    long = recovery.rename(columns=labels).melt(id_vars=["teacher", "r_star", "seed"], value_vars=list(labels.values()),
                                                var_name="measure", value_name="rank")
    grid = sns.relplot(data=long, x="r_star", y="rank", hue="measure", style="measure", col="teacher",
                       kind="line", markers=True, dashes=False, errorbar=("pi", 100), height=3.6, aspect=1.2)
    sns.move_legend(grid, "lower center", bbox_to_anchor=(0.5, -0.08), ncol=3, title=None)
    for ax in grid.axes.flat:
        top = float(long["r_star"].max())
        ax.plot([0, top], [0, top], "k--", lw=0.8)
        ax.set(xlabel="r*", ylabel="rank of learned kernel")
    grid.figure.tight_layout()
    return grid.figure
