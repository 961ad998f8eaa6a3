"""App. B's figures and the numbers its prose quotes (see the package docstring)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...engine import corpora
from ...engine import statistics as stats
from ...pipeline import figures, verdicts
from ...pipeline.numbers import number
from . import CLAIMS, analysis, grid, long_run, tables
from .analysis import cells, per_seed
from .grid import main_budget
from .readings import ENTROPIES, MAIN, MEASURES, MIN_CORPORA, PREDICTORS, Reading


def _span(values) -> str:
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    return f"{values.min():.3g}–{values.max():.3g}" if values.size else "—"


def facts(results, spec: pd.DataFrame | None = None) -> dict:
    """Every number and phrase the page's prose quotes (``spec``: the specification table, if computed).
    Every key is always present: a dash or NaN where the stored results cannot supply it."""
    cfg = results.cfg
    found = grid.availability(cfg)
    missing = list(found.index[found["status"] == "missing"])
    nan, dash = float("nan"), "—"
    out = {"n_asked": len(cfg.corpora), "n_found": int((found["status"] == "found").sum()),
           "missing": ", ".join(f"`{m}`" for m in missing) or "none", "pinned": 0, "models": 0,
           **{f"cv_{column}": nan for column in PREDICTORS},
           **dict.fromkeys(["lags_span", "ridge_share", "ridge_numerical_span", "main_budget", "budgets", "loss_span",
                            "tail_span", "layer0_span", "last_layer_span", "cv_seed_span", "cost"], dash),
           "largest": 0, "last_layer": 0, "spec_claims": 0, "spec_robust": 0, "spec_flipping": "none",
           "trajectory_text": "No checkpoints are stored.", "critical_corpora": nan, "critical_cells": nan,
           "paper_r_text": dash, "ridge_text": "No corpus is stored.", "entropy_text": dash,
           "predictor_change": dash, "spectra_cells": "none", "long_text": "The long run is not stored yet.",
           "long_cost": dash, "long_what": f"{cfg.long_corpus} at d_model = {cfg.long_d_model}"
                                            if cfg.long_corpus else "no corpus (the long run is switched off)"}
    if "predictor" in results.tables:
        pred = results["predictor"]
        for column in PREDICTORS:
            out[f"cv_{column}"] = stats.coefficient_of_variation(pred[column]) if len(pred) > 1 else nan
        out |= _data_facts(pred, len(cfg.d_models))
        out |= {"lags_span": _span(pred["effective_lags"]), "ridge_share": _span(pred["ridge_rank"]
                                                                                / pred["ablation_context"]),
                "ridge_numerical_span": _span(pred["ridge_numerical_rank"]), "pinned": int(pred["matches_pin"].sum())}
    if "models" not in results.tables:
        return out
    main, table = main_budget(results), grid.budgets(results)
    models, seeds = grid.grid(results, "models"), per_seed(results)
    final = models[np.isclose(models["fraction"], 1.0)]
    trained = final.drop_duplicates(["budget", "corpus", "d_model", "seed"])
    out |= {"main_budget": f"{main / 1e6:g}M tokens per model", "models": int((trained["budget"] == main).sum()),
            "budgets": ", ".join(
        f"{b / 1e6:g}M tokens per model ({int(r['cells stored'])} of {int(r['cells asked'])} cells)"
        for b, r in table.iterrows())}
    width = int(seeds["d_model"].max())
    top = cells(results).xs(width, level="d_model")
    last = max(c for c in top.columns if c.startswith("layer ")).removeprefix("layer ")
    out |= {"largest": width, "last_layer": int(last), "layer0_span": _span(top["layer 0"]),
            "last_layer_span": _span(top[f"layer {last}"]), "loss_span": _span(top["val_loss"]),
            "tail_span": _span(top["tail_val_loss"]), "cv_seed_span": _span(cells(results)["CV_seed"])}
    costs = []
    for budget in sorted(set(final["budget"])):
        own = final[final["budget"] == budget].drop_duplicates(["corpus", "d_model"])  # the grid only
        tag = f"-{budget / 1e6:g}M-"
        devices = sorted({e.provenance.get("device", "?") for e in results.entries if tag in e.job})
        costs.append(f"the {budget / 1e6:g}M grid took {own['train_seconds'].sum():,.0f} s of training "
                     f"({', '.join(devices)})")
    cost = "; ".join(costs)
    out["cost"] = cost[:1].upper() + cost[1:] + "."
    out |= _spectra_facts(results) | _long_facts(results) | _entropy_facts(results, main)
    steps = analysis.trajectory(results)
    if len(steps):
        out["trajectory_text"] = _trajectory_text(steps)
    spec = tables.specification(results) if spec is None else spec
    robust = spec["flips on"].astype(str).str.endswith("every reading")
    out |= {"spec_claims": len(spec), "spec_robust": int(robust.sum()),
            "spec_flipping": ", ".join(f"`{claim}` (on {row['flips on']})" for claim, row in spec[~robust].iterrows())
            or "none"}
    return out


def _data_facts(pred: pd.DataFrame, widths: int) -> dict:
    """The data side's sentences: the |r| the corpora need, the paper's own r against it, the ridge verdict
    in words, H₁ under two readings, and how the predictor changed with its null."""
    n = len(pred)
    out = {}
    if n >= MIN_CORPORA:
        need, cells_need = stats.critical_r(n), stats.critical_r(n * widths)
        paper = abs(CLAIMS["pearson"].value)
        out |= {"critical_corpora": need, "critical_cells": cells_need,
                "paper_r_text": f"with {n} corpora a correlation needs |r| ≥ {need:.2f} for p < 0.05 (and "
                                f"{cells_need:.2f} over {n * widths} pooled cells); the paper's own r = "
                                f"−{paper:.3f} would " + ("reach it." if paper >= need else
                                                          "itself not reach it: it would be *not significant* here.")}
    T = pred["ablation_context"]
    full = int((pred["ridge_numerical_rank"] == T).sum())
    out["ridge_text"] = (
        f"At the precision it is computed in (float64, NumPy's rule), the ridge operator has numerical rank "
        f"{_span(pred['ridge_numerical_rank'])} of $T$ = {int(T.iloc[0])}: full rank in {full} of {n} corpora, so "
        f"'collapses to full rank for every corpus' {'holds' if full == n else 'fails'} under the main reading "
        f"(at the float32 rule the ranks are {_span(pred['ridge_numerical_rank_float32'])}). Its effective rank is "
        f"{_span(pred['ridge_rank'] / T)} of $T$: far from spread over every direction.")
    if n >= MIN_CORPORA:
        out["predictor_change"] = (
            f"Under the max-over-lags null the six predicted ranks are {_span(pred['effective_lags'])} "
            f"({_span(pred['informative_lags'])} informative lags); under the earlier lag-1 rule "
            f"{_span(pred['effective_lags_lag1'])}; the largest change is "
            f"{number((pred['effective_lags'] - pred['effective_lags_lag1']).abs().max(), 2)} and the across-corpus CV "
            f"goes from {stats.coefficient_of_variation(pred['effective_lags_lag1']):.2f} to "
            f"{stats.coefficient_of_variation(pred['effective_lags']):.2f}.")
    return out


def _entropy_facts(results, budget: int) -> dict:
    """The FFN claim under both readings of H₁, in one sentence."""
    parts = []
    for entropy, label in ENTROPIES.items():
        reading = Reading(budget=budget, entropy=entropy)
        try:
            row = next(r for r in analysis.claims(results, reading, spread=False) if r["key"] == "ffn")
        except (KeyError, ValueError):
            return {}
        if row["verdict"] == verdicts.UNDEFINED:
            return {}
        parts.append(f"with {label}, r = {row['ours']:.2f} (p = {row['p']:.3f}): {row['verdict']}")
    return {"entropy_text": "The paper does not define $H_1$. Pearson($H_1$, FFN stable rank) at the largest width "
                            "and the main budget, " + "; ".join(parts) + ". The main table's verdict uses the "
                            "first reading; " + ("both readings give the same verdict." if len(set(
                                p.rsplit(": ", 1)[1] for p in parts)) == 1 else
                                "**the verdict changes with the reading of $H_1$**, so the FFN result is not a "
                                "contradiction of the paper that the data can settle.")}


def _spectra_facts(results) -> dict:
    spectra = grid.grid(results, "spectra")
    if spectra.empty:
        return {}
    cells_ = spectra.drop_duplicates(["budget", "corpus", "d_model"]).sort_values(["budget", "d_model", "corpus"])
    return {"spectra_cells": ", ".join(f"{c} at d_model = {d} ({b / 1e6:g}M)" for b, c, d in
                                       cells_[["budget", "corpus", "d_model"]].itertuples(index=False))}


def _long_facts(results) -> dict:
    table = long_run.verdicts(results)
    if table.empty:
        return {}
    cfg = results.cfg
    parts = [f"layer {int(r['layer'])} reads {r['ours']:.3g} at {r['tokens'] / 1e6:g}M tokens "
             f"({r['change over the last doubling']:+.1%} over the last doubling; the paper: {r['paper says']}): "
             f"**{r['outcome']}**" for _, r in table.iterrows()]
    entry = [e for e in results.entries if "-long-" in e.job]
    seconds = sum(e.provenance.get("seconds", 0.0) for e in entry)
    return {"long_text": f"The long run ({cfg.long_corpus}, d_model = {cfg.long_d_model}, seed {cfg.long_seed}): "
                         + "; ".join(parts) + ".",
            "long_cost": f"{seconds / 3600:.1f} h" if seconds else "—"}


def _trajectory_text(steps: pd.DataFrame) -> str:
    """Per budget: in how many (corpus, width) cells the rank rises as the loss falls, and per width where
    the cells disagree."""
    rises = steps["Spearman(rank, loss)"] < 0
    text = (f"In {int(rises.sum())} of the {len(steps)} (budget, corpus, width) cells the measured rank rises "
            f"while the validation loss falls from checkpoint to checkpoint (Spearman over the checkpoints < 0)")
    if rises.all():
        return text + ": within every model, the rank tracks fitting progress."
    parts = []
    for budget, group in steps.groupby("budget"):
        up = rises[group.index]
        widths = ", ".join(f"{int(up[w_group.index].sum())} of {len(w_group)} at d_model = {w}"
                           for w, w_group in group.groupby("d_model"))
        parts.append(f"{budget / 1e6:g}M tokens per model: {widths}")
    return text + "; per budget, the cells where it rises: " + "; ".join(parts) + "."


def figure_prediction(results):
    """Predicted vs measured static-kernel rank per corpus, one marker per width, bars the seed range."""
    seeds, pred = per_seed(results), results["predictor"].set_index("corpus")
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.2))
    widths = sorted(set(seeds["d_model"]))
    for i, width in enumerate(widths):
        stats_ = seeds[seeds["d_model"] == width].groupby("corpus")[MAIN.kernel].agg(["mean", "min", "max"])
        x = pred.loc[stats_.index, MAIN.predictor] * (1 + 0.015 * (i - (len(widths) - 1) / 2))
        ax.errorbar(x, stats_["mean"], yerr=[stats_["mean"] - stats_["min"], stats_["max"] - stats_["mean"]],
                    fmt=figures.MARKERS[i], color=f"C{i}", capsize=3, ms=6, label=f"d_model = {width}")
        if i == len(widths) - 1:  # the corpora named beside the widest points, no two names overlapping
            ax.figure.canvas.draw()
            figures.direct_labels(ax, {name: (x[name], stats_.loc[name, "mean"]) for name in stats_.index},
                                  f"C{i}")
    ax.set(xlabel=f"predicted: {PREDICTORS[MAIN.predictor]}", ylabel="measured R_eff(W_QK)\n(per head, seed mean)")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=len(widths))
    return fig


def figure_measures(results):
    """Every measure and the predictor across corpora, each divided by its mean over corpora, at the largest
    width: a flat line is a measure that does not tell the corpora apart."""
    table = cells(results)
    width = int(table.index.get_level_values("d_model").max())
    top = table.xs(width, level="d_model")[list(MEASURES)].rename(columns=MEASURES)
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
    ax.set(ylabel=f"value / mean over corpora\n(d_model = {width})")
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
        ax.set(title=f"d_model = {width}", ylabel="measured R_eff(W_QK)" if ax is axes[0][0] else "")
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
        ax.set(title=f"d_model = {width}", ylabel="validation loss" if ax is axes[0][0] else "")
    fig.supxlabel("tokens seen (log axis)", fontsize=13)
    handles, labels = axes[0][0].get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    fig.tight_layout()
    for legend in list(fig.legends):
        legend.remove()
    figures.fit_columns(fig, lambda n: fig.legend(unique.values(), unique.keys(), loc="upper center",
                                                  bbox_to_anchor=(0.5, 0.0), ncol=n, frameon=False), 3)
    return fig


def figure_lag_mi(results):
    """The predictor's data: mutual information between characters k apart, per corpus, against the level a
    lag must exceed (the max-over-lags permutation null, dotted, per corpus)."""
    profile, null = results["lag_mi"], results["lag_mi_null"]
    null = null[null["rule"] == "max"].set_index("corpus")
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 4.0))
    for i, (name, group) in enumerate(profile.groupby("corpus", sort=False)):
        ax.plot(group["lag"], group["mi"], marker=figures.MARKERS[i], ms=3, color=f"C{i}", label=name)
        ax.axhline(null.loc[name, "threshold"], color=f"C{i}", ls=":", lw=0.9)
    ax.set_yscale("log")
    ax.set(xlabel="lag k (characters back)", ylabel="I(x_t; x_{t−k})  (nats)")
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
                label=f"layer {layer}, R_eff (eq. 1)")
        if own["R̃_eff (eq. 2)"].notna().any():
            ax.plot(own["tokens"], own["R̃_eff (eq. 2)"], ls="--", color=color, lw=1.2,
                    label=f"layer {layer}, R̃_eff (eq. 2)")
        heads = grid.grid(results, "heads")
        same = heads[(heads["corpus"] == cfg.long_corpus) & (heads["d_model"] == cfg.long_d_model)
                     & (heads["layer"] == layer) & np.isclose(heads["fraction"], 1.0)]
        if len(same):
            means = same.groupby("tokens")["static_kernel_rank"].mean()
            ax.plot(means.index, means.to_numpy(), ls="none", marker="x", ms=9, mew=2, color=color,
                    label=f"layer {layer}, grid (5 seeds)")
    if table.empty:  # nothing stored yet: say so on the figure instead of drawing empty axes
        ax.set_axis_off()
        ax.text(0.5, 0.5, "The long run is not stored yet.", ha="center", va="center", transform=ax.transAxes)
        return fig
    ax.set_xscale("log")
    ax.set(xlabel=f"tokens seen ({cfg.long_corpus}, d_model = {cfg.long_d_model}, seed {cfg.long_seed})",
           ylabel="R_eff(W_QK), mean over heads")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=2)
    return fig
