"""App. B's tables beside the paper, from the stored rows of ``real_corpora`` (see its package docstring).

The main reading uses the last checkpoint of the largest budget stored; the trajectory and the smaller
budgets enter the specification table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...engine import corpora
from ...engine import statistics as stats
from ...pipeline import verdicts
from . import CLAIMS

MEASURES = {"static_kernel_rank": "R_eff(W_QK)", "mean_attention_rank": "R_eff(E[A])",
            "per_input_attention_rank": "E_X[R_eff(A(X))]", "attention_participation_ratio": "PR(E[A])",
            "whitened_kernel_rank": "R_eff(W_QK Σ^½)"}
PREDICTOR = "effective_lags"  # the main reading of the lag-MI predictor
MIN_CORPORA = 3  # a correlation (or an outlier) across fewer corpora is undefined
FULL_RANK = 0.9  # "full rank": R_eff of the ridge operator ≥ 90 % of its size T
OUTLIER_Z = 3.0  # "separates" a corpus: its repeat-operator rank has a robust z-score above 3


def availability(cfg) -> pd.DataFrame:
    """One row per corpus asked for: found (source, bytes, sha256, pin) or missing (where to put it)."""
    from . import locate

    rows = []
    for name, found in locate(cfg).items():
        if isinstance(found, str):
            rows.append({"corpus": name, "status": "missing", "source": "—", "bytes": None, "sha256": "—",
                         "matches pin": False, "note": found})
        else:
            rows.append({"corpus": name, "status": "found", "source": found.source, "bytes": found.bytes,
                         "sha256": found.sha256[:16] + "…", "matches pin": found.matches_pin, "note": found.note})
    return pd.DataFrame(rows).set_index("corpus")


def final(results) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(heads, models) rows of the last checkpoint of the largest budget stored."""
    heads, models = results["heads"], results["models"]
    budget = heads["budget"].max()
    heads = heads[(heads["budget"] == budget) & (heads["fraction"] == 1.0)]
    models = models[(models["budget"] == budget) & (models["fraction"] == 1.0)]
    return heads, models


# ----------------------------------------------------------------------------- tables


def cells(results) -> pd.DataFrame:
    """One row per (corpus, d_model): seed means of every measure (mean over layers and heads), the
    CV_seed of R_eff(W_QK), per-layer R_eff(W_QK), FFN stable rank and losses."""
    heads, models = final(results)
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
            x, y = pred.loc[names, PREDICTOR], group.loc[names, "static_kernel_rank"]
            row |= {"Pearson(predicted, measured)": stats.pearson(x, y), "Spearman(predicted, measured)":
                    stats.spearman(x, y), "Pearson(val loss, measured)": stats.pearson(group.loc[names, "val_loss"], y)}
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
    for key, stat in (("pearson", stats.pearson), ("spearman", stats.spearman)):
        what = f"{key.title()}(predicted, measured R_eff(W_QK)) across corpora, d_model = {D}"
        rows.append(_ranged(f"{what} [< 0]", stat(pred[PREDICTOR], measured), CLAIMS[key], -np.inf, 0)
                    if n >= MIN_CORPORA else _undefined(what, CLAIMS[key], "range", few))
    table = cells(results)
    what = f"max CV_seed of R_eff(W_QK) over the {len(table)} corpus × size cells"
    rows.append(verdicts.row(what, table["CV_seed"].max(), CLAIMS["cv_seed"], "seed stability",
                             bool(table["CV_seed"].max() <= verdicts.CV_THRESHOLD), upper_bound=True)
                if len(results.cfg.seeds) > 1 else _undefined(what, CLAIMS["cv_seed"], "seed stability", "one seed"))
    what = f"Pearson(final validation loss, measured R_eff(W_QK)) across corpora, d_model = {D}"
    rows.append(_ranged(f"{what} [< 0]", stats.pearson(top["val_loss"], measured), CLAIMS["loss_rank"], -np.inf, 0)
                if n >= MIN_CORPORA else _undefined(what, CLAIMS["loss_rank"], "range", few))
    last = results.cfg.layers - 1
    what = f"min over corpora of R_eff(W_QK): layer {last} − layer 0, d_model = {D}"
    rows.append(_ranged(f"{what} [> 0]", (top[f"R_eff(W_QK) layer {last}"] - top["R_eff(W_QK) layer 0"]).min(),
                        CLAIMS["layers"], 0, np.inf) if last > 0 else _undefined(what, CLAIMS["layers"], "range",
                                                                                 "one layer"))
    what = f"Pearson(H₁, FFN stable rank of W_1) across corpora, d_model = {D}"
    if n >= MIN_CORPORA:
        h1, ffn = pred["unigram_entropy"], top["ffn_in_stable_rank"]
        limit = stats.permutation_threshold(h1, ffn)
        rows.append(_ranged(f"{what} [|r| < {limit:.2f}, the 5 % permutation threshold]", stats.pearson(h1, ffn),
                            CLAIMS["ffn"], -limit, limit))
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
    rows.append(_ranged(f"{what} [= 1]", separated(results).size, CLAIMS["repeat"], 1, 1, closed=True, exact=True)
                if n_found >= MIN_CORPORA else _undefined(what, CLAIMS["repeat"], "range", f"{n_found} corpora"))
    return verdicts.table(rows)


def measure_variation(results) -> pd.DataFrame:
    """Across-corpus coefficient of variation of each measure's cell means, per d_model, and of the predictor."""
    table = cells(results)
    out = table[list(MEASURES)].groupby(level="d_model").agg(
        lambda v: stats.coefficient_of_variation(v) if len(v) > 1 else np.nan).rename(columns=MEASURES)
    pred = results["predictor"][PREDICTOR]
    out["predictor"] = stats.coefficient_of_variation(pred) if len(pred) > 1 else np.nan
    return out


def separated(results) -> np.ndarray:
    """Names of the corpora whose repeat-operator rank stands apart (robust z-score > OUTLIER_Z)."""
    pred = results["predictor"]
    return pred["corpus"].to_numpy()[stats.robust_outliers(pred["repeat_rank"], OUTLIER_Z)]


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
        out |= {"predictor_vocab_r": _guard(lambda: stats.pearson(pred[PREDICTOR], pred["vocab_size"])),
                "uncapped_vocab_r": _guard(lambda: stats.pearson(pred["cca_uncapped_rank"], pred["vocab_size"])),
                "uncapped_cv": _guard(lambda: stats.coefficient_of_variation(pred["cca_uncapped_rank"])),
                "predicted_span": _span(pred[PREDICTOR]), "vocab_span": _span(pred["vocab_size"]),
                "pinned": int(pred["matches_pin"].sum()),
                "ridge_share": _span(pred["ridge_rank"] / pred["ablation_context"]),
                "ridge_numerical_span": _span(pred["ridge_numerical_rank"]),
                "repeat_separated": ", ".join(f"`{c}`" for c in _guard(lambda: separated(results), []))
                or "no corpus"}
    if "models" in results.tables:
        models, table = final(results)[1], cells(results)
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


