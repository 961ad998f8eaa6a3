"""App. B's figures (see the package docstring)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...engine.corpus import corpora
from ...report import figures, labels
from . import grid, long_run
from .analysis import cells, per_seed
from .grid import main_budget
from .readings import MAIN, MEASURES
from .words import NAMES

RANK = r"$R_\mathrm{eff}(W_{QK})$"  # the measured static-kernel rank, as its axes say it


def figure_prediction(results):
    """Predicted vs measured static-kernel rank per corpus, one marker per width, bars the seed range."""
    seeds, pred = per_seed(results), results["predictor"].set_index("corpus")
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.2))
    widths = sorted(set(seeds["d_model"]))
    for i, width in enumerate(widths):
        stats_ = seeds[seeds["d_model"] == width].groupby("corpus")[MAIN.kernel].agg(["mean", "min", "max"])
        x = pred.loc[stats_.index, MAIN.predictor] * (1 + 0.015 * (i - (len(widths) - 1) / 2))
        ax.errorbar(x, stats_["mean"], yerr=[stats_["mean"] - stats_["min"], stats_["max"] - stats_["mean"]],
                    fmt=figures.MARKERS[i], color=f"C{i}", capsize=3, ms=6, label=f"width {width}")
        if i == len(widths) - 1:  # the corpora named beside the widest points
            named = {name: (x[name], stats_.loc[name, "mean"]) for name in stats_.index}
    ax.set(xlabel=f"predicted rank: {NAMES[MAIN.predictor]}", ylabel=f"measured {RANK}\n(per head, seed mean)")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=len(widths))
    labels.direct_labels(ax, named, f"C{len(widths) - 1}")  # last: clear of every marker and bar, inside the frame
    return fig


def figure_measures(results):
    """Every measure and the predictor across corpora, each divided by its mean over corpora, at the largest
    width: a flat line is a measure that does not tell the corpora apart."""
    table = cells(results)
    width = int(table.index.get_level_values("d_model").max())
    # 𝔼 as an upright E: the page's SVG keeps text as text, and a browser's fonts may lack the double-struck letter
    top = table.xs(width, level="d_model")[list(MEASURES)].rename(
        columns={m: NAMES[m].replace(r"\mathbb{E}", r"\mathrm{E}") for m in MEASURES})
    pred = results["predictor"].set_index("corpus")[MAIN.predictor]
    top["predictor"] = pred.reindex(top.index)
    normalized = top / top.mean()
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.0))
    positions = np.arange(len(normalized))
    for i, column in enumerate(normalized.columns):
        style = dict(lw=2.5, color="k") if column == "predictor" else dict(color=f"C{i}")
        ax.plot(positions, normalized[column], marker=figures.MARKERS[i % len(figures.MARKERS)],
                ls=figures.DASHES[i % len(figures.DASHES)], label=column, **style)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xticks(positions, normalized.index, rotation=30, ha="right")
    ax.set(ylabel=f"value / mean over corpora\n(width {width})")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=2)
    return fig


def figure_trajectory(results):
    """Measured rank against validation loss along training, one line per corpus (checkpoints joined,
    arrows in the direction of training), one panel per width; the main budget."""
    heads, models = grid.grid(results, "heads"), grid.grid(results, "models")
    budget = main_budget(results)
    keys = ["corpus", "d_model", "fraction"]
    rank = heads[heads["budget"] == budget].groupby(keys)[MAIN.kernel].mean()
    loss = models[models["budget"] == budget].groupby(keys)[MAIN.split].mean()
    data = pd.DataFrame({"rank": rank, "loss": loss}).reset_index()
    widths = sorted(set(data["d_model"]))
    fig, axes = plt.subplots(1, len(widths), figsize=(figures.WIDTH, 3.8), squeeze=False, sharey=True)
    for ax, width in zip(axes[0], widths, strict=True):
        for i, (name, group) in enumerate(data[data["d_model"] == width].groupby("corpus")):
            group = group.sort_values("fraction")
            ax.plot(group["loss"], group["rank"], marker=figures.MARKERS[i], color=f"C{i}", label=name, ms=5)
            if len(group) > 1:  # an arrow on the last step: the direction of training
                ax.annotate("", xy=(group["loss"].iloc[-1], group["rank"].iloc[-1]),
                            xytext=(group["loss"].iloc[-2], group["rank"].iloc[-2]),
                            arrowprops=dict(arrowstyle="->", color=f"C{i}"))
        ax.set(title=f"width {width}", ylabel=f"measured {RANK}" if ax is axes[0][0] else "")
        ax.invert_xaxis()  # training runs left to right
    fig.supxlabel("validation loss (nats/char), falling as training runs left to right", fontsize=13)
    fig.tight_layout()
    figures.legend_below(fig, axes[0][0], ncol=3)
    return fig


def figure_learning(results):
    """Every model's loss at its checkpoints against the tokens it had seen, both budgets on one log axis:
    the training curves, sampled where the models were measured."""
    models = grid.grid(results, "models")
    widths = sorted(set(models["d_model"]))
    fig, axes = plt.subplots(1, len(widths), figsize=(figures.WIDTH, 3.8), squeeze=False, sharey=True)
    names = list(dict.fromkeys(c for c in corpora.CORPUS_NAMES if c in set(models["corpus"])))
    for ax, width in zip(axes[0], widths, strict=True):
        own = models[models["d_model"] == width]
        for i, name in enumerate(names):
            for budget, ls in zip(sorted(set(own["budget"])), ["-", "--"], strict=False):
                curve = own[(own["corpus"] == name) & (own["budget"] == budget)]
                for _, seed in curve.groupby("seed"):
                    ax.plot(seed["tokens"], seed["val_loss"], ls=ls, color=f"C{i}", lw=0.9, alpha=0.7,
                            marker=figures.MARKERS[i], ms=3, label=name)
        ax.set_xscale("log")
        ax.set(title=f"width {width}", ylabel="validation loss" if ax is axes[0][0] else "")
    fig.supxlabel("tokens seen (log axis)", fontsize=13)
    handles, labels = axes[0][0].get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    fig.tight_layout()
    for legend in list(fig.legends):
        legend.remove()
    figures.fit_columns(fig, lambda n: fig.legend(unique.values(), unique.keys(), loc="upper center",
                                                  bbox_to_anchor=(0.5, 0.0), ncol=n, frameon=False), 3)
    return fig


def lag_levels(results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The lag-MI profiles and, per corpus, the level a lag must exceed under the main reading's null (the circular
    shifts; the shuffled copies for entries stored before that null)."""
    profile, null = results["lag_mi"], results["lag_mi_null"]
    rule = "shift" if (null["rule"] == "shift").any() else "max"
    return profile, null[null["rule"] == rule].set_index("corpus")


def figure_lag_mi(results):
    """The predictor's data: mutual information between characters k apart, per corpus, against the level a
    lag must exceed (the max-over-lags null of the main reading's rule, dotted, per corpus)."""
    profile, null = lag_levels(results)
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.0))
    for i, (name, group) in enumerate(profile.groupby("corpus", sort=False)):
        ax.plot(group["lag"], group["mi"], marker=figures.MARKERS[i], ms=3, color=f"C{i}", label=name)
        ax.axhline(null.loc[name, "threshold"], color=f"C{i}", ls=":", lw=0.9)
    ax.set_yscale("log")
    ax.set(xlabel="lag $k$ (characters back)", ylabel=r"$I(x_t;\,x_{t-k})$ (nats)")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=3)
    return fig


def figure_long_run(results):
    """The long run: per layer, the mean over heads of R_eff(W_QK) (eq. 1, solid) and R̃_eff (eq. 2, from the
    stored spectra, dashed) against the tokens seen (log axis), beside the paper's range for that layer
    (shaded) and the grid's models of the same corpus and width at their final checkpoints (crosses)."""
    table = long_run.trajectory(results)
    cfg = results.cfg
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.2))
    for layer, (low, high) in long_run.RANGES.items():
        own = table[table["layer"] == layer]
        if own.empty:
            continue
        color = f"C{layer}"
        ax.axhspan(low, high, color=color, alpha=0.12, label=f"paper, layer {layer}: {low:g}–{high:g}")
        ax.plot(own["tokens"], own["R_eff (eq. 1)"], marker=figures.MARKERS[layer], color=color,
                label=f"layer {layer}, " + r"$R_\mathrm{eff}$ (eq. 1)")
        if own["R̃_eff (eq. 2)"].notna().any():
            ax.plot(own["tokens"], own["R̃_eff (eq. 2)"], ls="--", color=color, lw=1.2,
                    label=f"layer {layer}, " + r"$\tilde R_\mathrm{eff}$ (eq. 2)")
        heads = grid.grid(results, "heads")
        same = heads[(heads["corpus"] == cfg.long_corpus) & (heads["d_model"] == cfg.long_d_model)
                     & (heads["layer"] == layer) & np.isclose(heads["fraction"], 1.0)]
        if len(same):
            means = same.groupby("tokens")["static_kernel_rank"].mean()
            ax.plot(means.index, means.to_numpy(), ls="none", marker="x", ms=9, mew=2, color=color,
                    label=f"layer {layer}, grid ({same['seed'].nunique()} seeds)")
    if table.empty:  # nothing stored yet: say so on the figure instead of drawing empty axes
        ax.set_axis_off()
        ax.text(0.5, 0.5, "The long run is not stored yet.", ha="center", va="center", transform=ax.transAxes)
        return fig
    ax.set_xscale("log")
    ax.set(xlabel=f"tokens seen ({cfg.long_corpus}, width {cfg.long_d_model}, seed {cfg.long_seed})",
           ylabel=f"{RANK}, mean over heads")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=2)
    return fig
