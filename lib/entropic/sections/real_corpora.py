"""App. B: real-corpus diagnostics on six char-level corpora (B.1–B.4, and §5's last paragraph).

Jobs: per (corpus, d_model), one batched ``CharLM`` training every seed of that size at once (M = seeds:
on a GPU one tensor program is far faster; on a 2-core CPU batched and sequential cost the same), then
every model-side measure of App. B.1 per layer and head; per corpus, one data-side job (no training):
the lag-operator predictor over a common symbol budget, the unigram entropy H₁ and the two B.4
ablations (ridge and repeat operators). Every job row carries the corpus's provenance. Corpora are
located (and an empty or binary file rejected, naming it) when the jobs are planned, before any work.
Used by ``notebooks/real_corpora.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import seaborn as sns
import torch

from ..engine import corpora
from ..engine import lm_measures as lm
from ..engine.charlm import CharLM, train_charlm
from ..engine.corpora import CORPUS_NAMES, SOURCES
from ..engine.spectral import effective_rank, numerical_rank
from ..pipeline import figures, verdicts  # noqa: F401  (figures: the shared look)
from ..pipeline.config import SectionConfig, distinct_ints, non_negative, param, positive, positive_int, some_of
from ..pipeline.store import Job
from ..pipeline.verdicts import Claim

TITLE = "App. B Real-corpus diagnostics"

CLAIMS = {
    "pearson": Claim("Pearson r = −0.272: the sign is wrong", -0.272, "App. B.2"),
    "spearman": Claim("Spearman ρ = −0.275", -0.275, "App. B.2"),
    "cv_seed": Claim("all 18 corpus × size cells CV_seed ∈ [0.006, 0.087], below 0.10", 0.087, "App. B.3 (i)"),
    "loss_rank": Claim("final loss and measured R_eff correlate at r = −0.79", -0.79, "App. B.3 (ii), §5"),
    "layers": Claim("Layer 0 R_eff ≈ 13–19, Layer 1 R_eff ≈ 30–44 (largest model)", None, "App. B.3 (iii)"),
    "ffn": Claim("no relationship: Pearson(H₁, FFN stable rank) = −0.05", -0.05, "App. B.3 (iii)"),
    "measure_cv": Claim("every measure: coefficient of variation 0.06–0.20", 0.20, "App. B.4"),
    "predictor_cv": Claim("0.66 for the data-side predictor", 0.66, "App. B.4"),
    "ridge": Claim("collapses to full rank for every corpus", None, "App. B.4"),
    "repeat": Claim("separates only one of six corpora", 1.0, "App. B.4"),
}
MEASURES = {"static_kernel_rank": "R_eff(W_QK)", "mean_attention_rank": "R_eff(E[A])",
            "per_input_attention_rank": "E_X[R_eff(A(X))]", "attention_participation_ratio": "PR(E[A])",
            "whitened_kernel_rank": "R_eff(W_QK Σ^½)"}
MIN_CORPORA = 3  # a correlation (or an outlier) across fewer corpora is undefined
FULL_RANK = 0.9  # "full rank": R_eff of the ridge operator ≥ 90 % of its size T
OUTLIER_Z = 3.0  # "separates" a corpus: its repeat-operator rank has a robust z-score above 3


def optional_positive_int(name, value):
    return None if value is None else positive_int(name, value)


def optional_text(name, value):
    if value is not None and (not isinstance(value, str) or not value):
        raise ValueError(f"{name} must be a directory name or None, got {value!r}")
    return value


def fraction(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Config(SectionConfig):
    corpora: tuple = param(CORPUS_NAMES, "char-level corpora (App. B.1)", some_of(*CORPUS_NAMES))
    d_models: tuple = param((64, 128, 256), "model widths d_model", distinct_ints(1))
    seeds: tuple = param((0, 1, 2, 3, 4), "one model per seed, corpus and width", distinct_ints(0))
    layers: int = param(2, "Transformer layers", positive_int)
    heads: int = param(4, "attention heads per layer", positive_int)
    context: int = param(128, "our choice: characters per training window", positive_int)
    batch_size: int = param(64, "our choice: windows per AdamW step and model", positive_int)
    steps: int = param(5000, "our choice: AdamW steps (constant learning rate)", positive_int)
    lr: float = param(1e-3, "our choice: AdamW learning rate", positive)
    weight_decay: float = param(0.01, "our choice: AdamW weight decay on weight matrices", non_negative)
    max_chars: int | None = param(None, "our choice: leading characters used per corpus (None: all)",
                                  optional_positive_int)
    val_fraction: float = param(0.1, "our choice: the corpus's tail held out for loss and measures", fraction)
    eval_windows: int = param(256, "our choice: validation windows for the final loss", positive_int)
    measure_windows: int = param(64, "our choice: validation windows the attention measures average", positive_int)
    lags: int = param(8, "our choice: lags of the predictor's lag operator", positive_int)
    symbols: int = param(32, "our choice: common symbol budget K of the predictor (rest pooled)", positive_int)
    min_count: int = param(20, "our choice: rarer characters are pooled before whitening", positive_int)
    ablation_context: int = param(64, "our choice: size T of the B.4 ridge and repeat operators", positive_int)
    ablation_windows: int = param(4096, "our choice: windows the B.4 operators are fitted on", positive_int)
    ridge: float = param(1.0, "our choice: ridge penalty of the B.4 ridge operator", positive)
    ridge_width: int = param(64, "our choice: width of its fixed random embedding", positive_int)
    corpus_dir: str | None = param(None, "directory of <corpus>.txt files read first (None: $ENTROPIC_CORPORA)",
                                   optional_text)
    sources: tuple = param(("user_dir", "shared", "download"), "where corpora are looked for, in order "
                           "(add substitute to allow labelled local stand-ins)", some_of(*SOURCES))

    def validate(self):
        bad = [d for d in self.d_models if d % self.heads]
        if bad:
            raise ValueError(f"d_models {bad} are not divisible by heads={self.heads}")


# ----------------------------------------------------------------------------- corpora and jobs


def locate(cfg: Config) -> dict[str, corpora.Provenance | str]:
    """Each corpus's provenance, or the message saying where to put a missing one. An empty or binary
    file raises ValueError naming it (before any work)."""
    out = {}
    for name in cfg.corpora:
        try:
            out[name] = corpora.locate_corpus(name, user_dir=cfg.corpus_dir, sources=cfg.sources,
                                              substitute="substitute" in cfg.sources)
        except corpora.CorpusUnavailable as missing:
            out[name] = str(missing)
    return out


def availability(cfg: Config) -> pd.DataFrame:
    """One row per corpus asked for: found (where, bytes, sha256, pin) or missing (where to put it)."""
    rows = []
    for name, found in locate(cfg).items():
        if isinstance(found, str):
            rows.append({"corpus": name, "status": "missing", "source": "—", "location": found,
                         "bytes": None, "sha256": "—", "matches pin": False})
        else:
            rows.append({"corpus": name, "status": "found", "source": found.source, "location": found.location,
                         "bytes": found.bytes, "sha256": found.sha256[:16] + "…", "matches pin": found.matches_pin})
    return pd.DataFrame(rows).set_index("corpus")


def jobs(cfg: Config) -> list[Job]:
    """Per found corpus: one data job and one training job per d_model. Missing corpora are skipped (the
    page lists them); when none is found the run stops here, saying where to put them."""
    out, located = [], locate(cfg)
    if all(isinstance(found, str) for found in located.values()):
        raise ValueError("no corpus found: " + " | ".join(located.values()))
    for name, found in located.items():
        if isinstance(found, str):
            continue
        data = {"corpus": name, "sha256": found.sha256, "corpus_dir": cfg.corpus_dir, "sources": list(cfg.sources),
                "max_chars": cfg.max_chars, "val_fraction": cfg.val_fraction}
        out.append(Job(f"{name}-data", {"kind": "data", **data, "lags": cfg.lags, "symbols": cfg.symbols,
                                        "min_count": cfg.min_count, "ablation_context": cfg.ablation_context,
                                        "ablation_windows": cfg.ablation_windows, "ridge": cfg.ridge,
                                        "ridge_width": cfg.ridge_width}))
        for d_model in cfg.d_models:
            out.append(Job(f"{name}-d{d_model}", {
                "kind": "train", **data, "d_model": d_model, "seeds": list(cfg.seeds), "layers": cfg.layers,
                "heads": cfg.heads, "context": cfg.context, "batch_size": cfg.batch_size, "steps": cfg.steps,
                "lr": cfg.lr, "weight_decay": cfg.weight_decay, "eval_windows": cfg.eval_windows,
                "measure_windows": cfg.measure_windows}))
    return out


def fit(job: Job) -> dict[str, list[dict]]:
    """A data job computes the predictor and the ablations; a train job trains every seed of one size."""
    p = job.params
    corpus = corpora.load_corpus(p["corpus"], user_dir=p["corpus_dir"], max_chars=p["max_chars"],
                                 sources=p["sources"], substitute="substitute" in p["sources"])
    if corpus.provenance.sha256 != p["sha256"]:
        raise ValueError(f"corpus file {corpus.provenance.location} changed since the jobs were planned")
    train, val = corpus.split(p["val_fraction"])
    source = {"corpus": corpus.name, **{k: getattr(corpus.provenance, k) for k in
                                        ("source", "location", "bytes", "sha256", "matches_pin", "note")},
              "vocab_size": corpus.vocab_size, "chars": len(corpus.text)}
    if p["kind"] == "data":
        return {"predictor": [data_row(p, train, source)]}
    model = CharLM(p["seeds"], corpus.vocab_size, p["context"], p["d_model"], p["layers"], p["heads"])
    device = "cuda" if torch.cuda.is_available() else "cpu"
    result = train_charlm(model, train, p["steps"], p["batch_size"], lr=p["lr"], weight_decay=p["weight_decay"],
                          val_tokens=val, max_val_windows=p["eval_windows"], progress=False, device=device)
    tail = max(1, p["steps"] // 10)
    models = [{**source, "d_model": p["d_model"], "seed": seed, "val_loss": float(result.val_loss[m]),
               "train_loss": float(result.history[-tail:, m].mean()), "steps": p["steps"],
               "train_seconds": result.seconds, "seconds_per_model": result.seconds / model.M}
              for m, seed in enumerate(p["seeds"])]
    heads = [{"corpus": corpus.name, "d_model": p["d_model"], **row}
             for row in lm.measure_charlm(model, val, max_windows=p["measure_windows"])]
    return {"models": models, "heads": heads}


def data_row(p: dict, train, source: dict) -> dict:
    """The predictor (common budget and uncapped), H₁, and the two B.4 ablation operators of one corpus."""
    op = lm.lag_operator(train, p["lags"], p["min_count"], p["symbols"])
    uncapped = lm.lag_operator(train, p["lags"], p["min_count"], None)
    T = p["ablation_context"]
    ridge = lm.ridge_operator(train, context=T, width=p["ridge_width"], ridge=p["ridge"], seed=0,
                              max_windows=p["ablation_windows"])
    return {**source, "predicted_rank": op.effective_rank, "predicted_energy_rank": op.energy_effective_rank,
            "predicted_max_rank": op.max_rank, "uncapped_rank": uncapped.effective_rank,
            "uncapped_max_rank": uncapped.max_rank, "unigram_entropy": lm.unigram_entropy(train),
            "ridge_rank": float(effective_rank(ridge)), "ridge_numerical_rank": int(numerical_rank(ridge)),
            "repeat_rank": lm.repeat_operator_rank(train, T, p["ablation_windows"]), "ablation_context": T}


# ----------------------------------------------------------------------------- tables


def cells(results) -> pd.DataFrame:
    """One row per (corpus, d_model): seed means of every measure (mean over layers and heads), the
    CV_seed of R_eff(W_QK), per-layer R_eff(W_QK), FFN stable rank and losses."""
    heads, models = results["heads"], results["models"]
    per_seed = heads.groupby(["corpus", "d_model", "seed"])[[*MEASURES, "ffn_in_stable_rank"]].mean()
    keys = ["corpus", "d_model"]
    out = per_seed.groupby(keys).mean()
    out["CV_seed"] = per_seed["static_kernel_rank"].groupby(keys).apply(verdicts.coefficient_of_variation)
    layers = heads.groupby([*keys, "layer"])["static_kernel_rank"].mean().unstack("layer")
    out[[f"R_eff(W_QK) layer {k}" for k in layers.columns]] = layers
    out[["val_loss", "train_loss"]] = models.groupby(keys)[["val_loss", "train_loss"]].mean()
    return out


def _common(results) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Cells of the largest trained model and the predictor rows, on the corpora both have."""
    table, pred = cells(results), results["predictor"].set_index("corpus")
    largest = int(table.index.get_level_values("d_model").max())
    top = table.xs(largest, level="d_model")
    names = [c for c in top.index if c in pred.index]
    return top.loc[names], pred.loc[names], largest


def correlations(results) -> pd.DataFrame:
    """Per d_model: Pearson and Spearman of predicted vs measured R_eff(W_QK), and of loss vs measured."""
    table, pred, rows = cells(results), results["predictor"].set_index("corpus"), []
    for d_model, group in table.groupby(level="d_model"):
        group = group.droplevel("d_model")
        names = [c for c in group.index if c in pred.index]
        row = {"d_model": d_model, "corpora": len(names)}
        if len(names) >= MIN_CORPORA:
            x, y = pred.loc[names, "predicted_rank"], group.loc[names, "static_kernel_rank"]
            row |= {"Pearson(predicted, measured)": lm.pearson(x, y), "Spearman(predicted, measured)":
                    lm.spearman(x, y), "Pearson(val loss, measured)": lm.pearson(group.loc[names, "val_loss"], y)}
        rows.append(row)
    return pd.DataFrame(rows).set_index("d_model")


def _row(quantity, ours, claim, kind, holds, low=np.nan, high=np.nan, closed=False, **kwargs) -> dict:
    return {**verdicts.row(quantity, ours, claim, kind, holds, **kwargs), "low": low, "high": high, "closed": closed}


def _ranged(quantity, ours, claim, low, high, closed=False, **kwargs) -> dict:
    """A ``range`` row: the claim holds when low < ours < high (≤ when ``closed``)."""
    holds = bool(low <= ours <= high) if closed else bool(low < ours < high)
    return _row(quantity, ours, claim, "range", holds, low, high, closed, **kwargs)


def _undefined(quantity, claim, kind, why) -> dict:
    row = _row(f"{quantity} — undefined: {why}", np.nan, claim, kind, False)
    return {**row, "value agrees": None, "verdict": verdicts.UNDEFINED}


def compare(results) -> pd.DataFrame:
    """App. B beside the paper: B.2 correlations, B.3 (i)–(iii), B.4 variation and ablations."""
    rows, n_found = [], len(results.tables.get("predictor", []))
    if "heads" not in results.tables:
        why = "no corpus was found"
        return verdicts.table([_undefined(k, c, "range", why) for k, c in CLAIMS.items()])
    top, pred, D = _common(results)
    n, few = len(top), f"{len(top)} corpora (needs ≥ {MIN_CORPORA})"
    measured = top["static_kernel_rank"]
    for key, stat in (("pearson", lm.pearson), ("spearman", lm.spearman)):
        what = f"{key.title()}(predicted, measured R_eff(W_QK)) across corpora, d_model = {D}"
        rows.append(_ranged(f"{what} [< 0]", stat(pred["predicted_rank"], measured), CLAIMS[key], -np.inf, 0)
                    if n >= MIN_CORPORA else _undefined(what, CLAIMS[key], "range", few))
    table = cells(results)
    what = f"max CV_seed of R_eff(W_QK) over the {len(table)} corpus × size cells"
    rows.append(verdicts.row(what, table["CV_seed"].max(), CLAIMS["cv_seed"], "seed stability",
                             bool(table["CV_seed"].max() <= verdicts.CV_THRESHOLD), upper_bound=True)
                if len(results.cfg.seeds) > 1 else _undefined(what, CLAIMS["cv_seed"], "seed stability", "one seed"))
    what = f"Pearson(final validation loss, measured R_eff(W_QK)) across corpora, d_model = {D}"
    rows.append(_ranged(f"{what} [< 0]", lm.pearson(top["val_loss"], measured), CLAIMS["loss_rank"], -np.inf, 0)
                if n >= MIN_CORPORA else _undefined(what, CLAIMS["loss_rank"], "range", few))
    last = results.cfg.layers - 1
    what = f"min over corpora of R_eff(W_QK): layer {last} − layer 0, d_model = {D}"
    rows.append(_ranged(f"{what} [> 0]", (top[f"R_eff(W_QK) layer {last}"] - top["R_eff(W_QK) layer 0"]).min(),
                        CLAIMS["layers"], 0, np.inf) if last > 0 else _undefined(what, CLAIMS["layers"], "range",
                                                                                 "one layer"))
    what = f"Pearson(H₁, FFN stable rank of W_1) across corpora, d_model = {D}"
    if n >= MIN_CORPORA:
        h1, ffn = pred["unigram_entropy"], top["ffn_in_stable_rank"]
        limit = lm.permutation_threshold(h1, ffn)
        rows.append(_ranged(f"{what} [|r| < {limit:.2f}, the 5 % permutation threshold]", lm.pearson(h1, ffn),
                            CLAIMS["ffn"], -limit, limit, rtol=0.0, atol=0.2))
    else:
        rows.append(_undefined(what, CLAIMS["ffn"], "range", few))
    variation = measure_variation(results)
    worst, predictor_cv = variation.drop(columns="predictor").max().max(), variation["predictor"].iloc[0]
    what = "largest across-corpus CV of the five measures, any d_model"
    rows.append(_ranged(f"{what} [< the predictor's {predictor_cv:.3g}]", worst, CLAIMS["measure_cv"], 0,
                        predictor_cv, upper_bound=True) if n >= MIN_CORPORA else
                _undefined(what, CLAIMS["measure_cv"], "range", few))
    what = "across-corpus CV of the predictor"
    rows.append(_ranged(f"{what} [> every measure's, max {worst:.3g}]", predictor_cv, CLAIMS["predictor_cv"],
                        worst, np.inf) if n >= MIN_CORPORA else _undefined(what, CLAIMS["predictor_cv"], "range", few))
    all_pred = results["predictor"]
    share = (all_pred["ridge_rank"] / all_pred["ablation_context"]).min()
    rows.append(_ranged(f"min over corpora of R_eff(ridge operator) / T [≥ {FULL_RANK}]", share, CLAIMS["ridge"],
                        FULL_RANK, 1.0, closed=True))
    what = f"corpora the repeat operator separates (robust z > {OUTLIER_Z:g}) of {n_found}"
    rows.append(_ranged(f"{what} [= 1]", separated(results).size, CLAIMS["repeat"], 1, 1, closed=True, rtol=0.0)
                if n_found >= MIN_CORPORA else _undefined(what, CLAIMS["repeat"], "range", f"{n_found} corpora"))
    return verdicts.table(rows)


def measure_variation(results) -> pd.DataFrame:
    """Across-corpus coefficient of variation of each measure's cell means, per d_model, and of the predictor."""
    table = cells(results)
    out = table[list(MEASURES)].groupby(level="d_model").agg(
        lambda v: lm.coefficient_of_variation(v) if len(v) > 1 else np.nan).rename(columns=MEASURES)
    pred = results["predictor"]["predicted_rank"]
    out["predictor"] = lm.coefficient_of_variation(pred) if len(pred) > 1 else np.nan
    return out


def separated(results) -> np.ndarray:
    """Names of the corpora whose repeat-operator rank stands apart (robust z-score > OUTLIER_Z)."""
    pred = results["predictor"]
    return pred["corpus"].to_numpy()[lm.robust_outliers(pred["repeat_rank"], OUTLIER_Z)]


# ----------------------------------------------------------------------------- prose and figures


def _span(values) -> str:
    values = np.asarray(values, dtype=float)
    return f"{values.min():.3g}–{values.max():.3g}" if values.size else "—"


def _guard(fn, default=float("nan")):
    try:
        return fn()
    except (ValueError, KeyError, IndexError, ZeroDivisionError):
        return default


def facts(results) -> dict:
    """Every number and phrase the page's prose quotes."""
    cfg = results.cfg
    found = availability(cfg)
    missing = list(found.index[found["status"] == "missing"])
    out = {"n_asked": len(cfg.corpora), "n_found": int((found["status"] == "found").sum()),
           "missing": ", ".join(f"`{m}`" for m in missing) or "none",
           "put_missing": (f"put `<corpus>.txt` in `{cfg.corpus_dir}`" if cfg.corpus_dir else
                           f"put `<corpus>.txt` in `{corpora.shared_corpora_dir()}` or in a directory named by "
                           "`corpus_dir=` or `ENTROPIC_CORPORA`") if missing else "nothing is missing",
           "seeds": len(cfg.seeds), "sizes": ", ".join(map(str, cfg.d_models)), "symbols": cfg.symbols,
           "lags": cfg.lags, "models": 0, "train_seconds": float("nan"), "seconds_per_model": float("nan")}
    nan, dash = float("nan"), "—"  # what the prose shows where no corpus (or no model) supplies a number
    out |= dict.fromkeys(["predictor_vocab_r", "uncapped_vocab_r", "uncapped_cv", "predictor_cv", "largest",
                          "cells", "last_layer", "pinned"], nan)
    out |= dict.fromkeys(["predicted_span", "vocab_span", "ridge_share", "ridge_numerical_span", "cv_seed_span",
                          "layer0_span", "last_layer_span", "measure_cv_span", "loss_span"], dash)
    out["repeat_separated"] = "no corpus"
    if "predictor" in results.tables:
        pred = results["predictor"]
        out |= {"predictor_vocab_r": _guard(lambda: lm.pearson(pred["predicted_rank"], pred["vocab_size"])),
                "uncapped_vocab_r": _guard(lambda: lm.pearson(pred["uncapped_rank"], pred["vocab_size"])),
                "uncapped_cv": _guard(lambda: lm.coefficient_of_variation(pred["uncapped_rank"])),
                "predicted_span": _span(pred["predicted_rank"]), "vocab_span": _span(pred["vocab_size"]),
                "pinned": int(pred["matches_pin"].sum()),
                "ridge_share": _span(pred["ridge_rank"] / pred["ablation_context"]),
                "ridge_numerical_span": _span(pred["ridge_numerical_rank"]),
                "repeat_separated": ", ".join(f"`{c}`" for c in _guard(lambda: separated(results), []))
                or "no corpus"}
    if "models" in results.tables:
        models, table = results["models"], cells(results)
        top = table.xs(table.index.get_level_values("d_model").max(), level="d_model")
        last = cfg.layers - 1
        variation = measure_variation(results)
        out |= {"models": len(models), "train_seconds": float(models.groupby(["corpus", "d_model"])
                                                              ["train_seconds"].first().sum()),
                "seconds_per_model": float(models["seconds_per_model"].mean()),
                "largest": int(table.index.get_level_values("d_model").max()),
                "cv_seed_span": _span(table["CV_seed"]), "cells": len(table),
                "layer0_span": _span(top["R_eff(W_QK) layer 0"]), "last_layer": last,
                "last_layer_span": _span(top[f"R_eff(W_QK) layer {last}"]),
                "measure_cv_span": _span(variation.drop(columns="predictor").to_numpy().ravel()),
                "predictor_cv": float(variation["predictor"].iloc[0]),
                "loss_span": _span(top["val_loss"])}
    return out


def figure_prediction(results):
    """Predicted vs measured static-kernel rank per corpus, one colour per d_model, bars the seed range."""
    import matplotlib.pyplot as plt

    heads, pred = results["heads"], results["predictor"].set_index("corpus")
    per_seed = heads.groupby(["corpus", "d_model", "seed"])["static_kernel_rank"].mean().reset_index()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for i, (d_model, group) in enumerate(per_seed.groupby("d_model")):
        stats = group.groupby("corpus")["static_kernel_rank"].agg(["mean", "min", "max"])
        x = pred.loc[stats.index, "predicted_rank"]
        ax.errorbar(x, stats["mean"], yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
                    fmt="o", color=f"C{i}", capsize=3, label=f"d_model = {d_model}")
        for name in stats.index:
            ax.annotate(name, (x[name], stats.loc[name, "mean"]), textcoords="offset points", xytext=(4, 4),
                        fontsize=8, color=f"C{i}")
    ax.set(xlabel=f"predicted rank: R_eff of the lag operator (K = {results.cfg.symbols} symbols)",
           ylabel="measured R_eff(W_QK)\n(seed mean; layers and heads averaged)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figure_measures(results):
    """Every measure and the predictor across corpora, each divided by its mean over corpora, per d_model."""
    table = cells(results)[list(MEASURES)].rename(columns=MEASURES)
    pred = results["predictor"].set_index("corpus")["predicted_rank"]
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
