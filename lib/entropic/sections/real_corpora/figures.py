"""App. B's figures (see the package docstring)."""

from __future__ import annotations

import pandas as pd
import seaborn as sns

from ...pipeline import figures  # noqa: F401  (the shared look)
from .analysis import MEASURES, PREDICTOR, cells, final


def figure_prediction(results):
    """Predicted vs measured static-kernel rank per corpus, one colour per d_model, bars the seed range."""
    import matplotlib.pyplot as plt

    heads, pred = final(results)[0], results["predictor"].set_index("corpus")
    per_seed = heads.groupby(["corpus", "d_model", "seed"])["static_kernel_rank"].mean().reset_index()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for i, (d_model, group) in enumerate(per_seed.groupby("d_model")):
        stats = group.groupby("corpus")["static_kernel_rank"].agg(["mean", "min", "max"])
        x = pred.loc[stats.index, PREDICTOR]
        ax.errorbar(x, stats["mean"], yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
                    fmt="o", color=f"C{i}", capsize=3, label=f"d_model = {d_model}")
        for name in stats.index:
            ax.annotate(name, (x[name], stats.loc[name, "mean"]), textcoords="offset points", xytext=(4, 4),
                        fontsize=8, color=f"C{i}")
    ax.set(xlabel="predicted: effective number of informative lags (lag MI)",
           ylabel="measured R_eff(W_QK)\n(seed mean; layers and heads averaged)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figure_measures(results):
    """Every measure and the predictor across corpora, each divided by its mean over corpora, per d_model."""
    table = cells(results)[list(MEASURES)].rename(columns=MEASURES)
    pred = results["predictor"].set_index("corpus")[PREDICTOR]
    long = []
    for d_model, group in table.groupby(level="d_model"):
        group = group.droplevel("d_model").assign(predictor=pred.reindex(group.droplevel("d_model").index))
        normalized = (group / group.mean()).reset_index().melt(id_vars="corpus", var_name="measure",
                                                               value_name="value / mean over corpora")
        long.append(normalized.assign(d_model=d_model))
    data = pd.concat(long)
    grid = sns.relplot(data=data, x="corpus", y="value / mean over corpora", hue="measure", style="measure",
                               col="d_model", kind="line", markers=True, dashes=True, height=3.6, aspect=1.2,
                               sort=False)
    sns.move_legend(grid, "lower center", bbox_to_anchor=(0.5, -0.02), ncol=3, title=None)
    for ax in grid.axes.flat:
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.tick_params(axis="x", rotation=45)
    grid.figure.tight_layout(rect=(0, 0.2, 1, 1))
    return grid.figure
