"""App. B's tables beside the paper, from the stored rows of ``real_corpora`` (see its package docstring).

Every claim is computed under a **reading**: one choice for each thing the paper leaves open (which
predictor, W_QK per head or per layer, which participation ratio, what "full rank" and "separates"
mean, which training budget and checkpoint, which validation split, which width the correlations use).
``MAIN`` is the reading the comparison table uses; ``specification`` recomputes every claim with one
choice changed at a time and says which claims hold under every reading and which flip, on which choice.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from ...pipeline import verdicts
from . import CLAIMS

MEASURES = {"static_kernel_rank": "R_eff(W_QK)", "mean_attention_rank": "R_eff(E[A])",
            "per_input_attention_rank": "E_X[R_eff(A(X))]", "attention_participation_ratio": "PR(E[A])",
            "whitened_kernel_rank": "R_eff(W_QK Σ^½)"}
PREDICTORS = {"effective_lags": "lag MI: effective number of informative lags",
              "lag_mi_operator_rank": "lag MI: R_eff of the lag-MI operator",
              "cca_rank": "canonical-correlation lag operator (32 symbols)",
              "cca_uncapped_rank": "canonical-correlation lag operator (all symbols)"}
MIN_CORPORA = 3  # a correlation (or an outlier) across fewer corpora is undefined


@dataclass(frozen=True)
class Reading:
    """One choice for each thing App. B leaves open (see the module docstring)."""

    predictor: str = "effective_lags"
    kernel: str = "static_kernel_rank"  # per head; "layer_kernel_rank": per layer
    participation: str = "attention_participation_ratio"  # spectral; "attention_inverse_simpson": per row
    full_rank: str = "numerical = T"  # or "numerical ≥ 0.9 T", "R_eff ≥ 0.9 T"
    separates: float = 3.0  # robust z-score above which the repeat operator sets a corpus apart
    budget: int | None = None  # tokens per model; None: the largest budget whose grid is complete
    fraction: float = 1.0  # the checkpoint (share of the budget)
    split: str = "val_loss"  # interleaved blocks; "tail_val_loss": the corpus's tail
    width: int | None = None  # the d_model of the correlations; None: the largest


MAIN = Reading()
ALTERNATIVES = {
    "predictor": [p for p in PREDICTORS if p != MAIN.predictor],
    "kernel": ["layer_kernel_rank"],
    "participation": ["attention_inverse_simpson"],
    "full_rank": ["numerical ≥ 0.9 T", "R_eff ≥ 0.9 T"],
    "separates": [2.5, 2.0],
    "split": ["tail_val_loss"],
}


def availability(cfg) -> pd.DataFrame:
    """One row per corpus asked for: found (source, bytes, sha256, pin) or missing (where to put it)."""
    from . import locate

    rows = []
    for name, found in locate(cfg).items():
        if isinstance(found, str):
            rows.append({"corpus": name, "status": "missing", "source": "—", "bytes": None, "sha256": "—",
                         "matches pin": False, "where to put it": found.split("; ")[-1]})
        else:
            rows.append({"corpus": name, "status": "found", "source": found.source, "bytes": found.bytes,
                         "sha256": found.sha256[:16] + "…", "matches pin": found.matches_pin, "where to put it": ""})
    return pd.DataFrame(rows).set_index("corpus")


# ----------------------------------------------------------------------------- which rows a reading uses


def budgets(results) -> pd.DataFrame:
    """Per budget: how many (corpus, width) cells are stored, of how many, and whether the grid is complete."""
    from . import locate

    models, cfg = results["models"], results.cfg
    found = {name for name, prov in locate(cfg).items() if not isinstance(prov, str)}
    expected = len(found) * len(cfg.d_models)
    cells = models.drop_duplicates(["budget", "corpus", "d_model"]).groupby("budget").size()
    out = pd.DataFrame({"cells stored": cells, "cells asked": expected}).reindex(sorted(cfg.budgets)).fillna(0)
    out["complete"] = out["cells stored"] == out["cells asked"]
    return out.astype({"cells stored": int, "cells asked": int})


def main_budget(results) -> int:
    """The largest budget whose grid is complete; else the budget with the most cells stored."""
    table = budgets(results)
    complete = table.index[table["complete"]]
    return int(complete.max()) if len(complete) else int(table["cells stored"].idxmax())


def _point(results, reading: Reading):
    budget = reading.budget or main_budget(results)
    heads, models = results["heads"], results["models"]
    heads = heads[(heads["budget"] == budget) & np.isclose(heads["fraction"], reading.fraction)]
    models = models[(models["budget"] == budget) & np.isclose(models["fraction"], reading.fraction)]
    return heads, models, budget


def per_seed(results, reading: Reading = MAIN) -> pd.DataFrame:
    """One row per (corpus, d_model, seed): every measure averaged over layers and heads, per layer the
    kernel rank, the FFN stable rank and both validation losses, at the reading's budget and checkpoint."""
    heads, models, _ = _point(results, reading)
    keys = ["corpus", "d_model", "seed"]
    columns = [*MEASURES, "layer_kernel_rank", "attention_inverse_simpson", "ffn_in_stable_rank"]
    out = heads.groupby(keys)[columns].mean()
    layers = heads.groupby([*keys, "layer"])[reading.kernel].mean().unstack("layer")
    out[[f"layer {k}" for k in layers.columns]] = layers
    out[["val_loss", "tail_val_loss", "train_loss"]] = models.set_index(keys)[["val_loss", "tail_val_loss",
                                                                               "train_loss"]]
    return out.reset_index()


def cells(results, reading: Reading = MAIN, seeds: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (corpus, d_model): seed means, and CV_seed of the reading's kernel rank."""
    seeds = per_seed(results, reading) if seeds is None else seeds
    keys = ["corpus", "d_model"]
    out = seeds.drop(columns="seed").groupby(keys).mean()
    out["CV_seed"] = _cv(seeds.groupby(keys)[reading.kernel])
    return out


def _cv(grouped):
    """Population coefficient of variation of every group (App. C.5's CV_seed), computed at once."""
    return grouped.std(ddof=0) / grouped.mean().abs()


# ----------------------------------------------------------------------------- the claims under a reading


def _width(results, reading: Reading) -> int:
    return reading.width or int(_point(results, reading)[1]["d_model"].max())


def _correlation(results, reading: Reading, x_of, y_column: str, statistic=stats.pearson, spread: bool = True,
                 seeds: pd.DataFrame | None = None):
    """(r, permutation p, seed standard error, 95 % seed-bootstrap interval, corpora) of ``statistic``
    between a corpus-level ``x_of(corpora)`` and the seed mean of ``y_column`` at the reading's width; the
    spread is skipped (0, (r, r)) unless ``spread``."""
    seeds = per_seed(results, reading) if seeds is None else seeds
    seeds = seeds[seeds["d_model"] == _width(results, reading)]
    names = sorted(set(seeds["corpus"]))
    if len(names) < MIN_CORPORA:
        return None
    x = np.asarray(x_of(names), dtype=float)
    matrix = seeds.pivot_table(index="corpus", columns="seed", values=y_column).reindex(names).to_numpy()
    r = statistic(x, np.nanmean(matrix, axis=1))
    p = stats.permutation_p(x, np.nanmean(matrix, axis=1), statistic)
    if not spread or matrix.shape[1] < 2:
        return r, p, 0.0, (r, r), len(names)
    rng = np.random.default_rng(0)
    draws = np.array([statistic(x, np.nanmean(matrix[:, rng.integers(0, matrix.shape[1], matrix.shape[1])], axis=1))
                      for _ in range(verdicts.BOOTSTRAP)])
    return r, p, float(np.std(draws, ddof=1)), tuple(np.quantile(draws, [0.025, 0.975])), len(names)


def _predictor(results, reading: Reading):
    pred = results["predictor"].set_index("corpus")
    return lambda names: pred.loc[names, reading.predictor]


def _h1(results):
    pred = results["predictor"].set_index("corpus")
    return lambda names: pred.loc[names, "unigram_entropy"]


def _full_rank(pred: pd.DataFrame, reading: Reading) -> tuple[float, bool]:
    T = pred["ablation_context"]
    if reading.full_rank == "numerical = T":
        share = pred["ridge_numerical_rank"] / T
        return float(share.min()), bool((share == 1).all())
    if reading.full_rank == "numerical ≥ 0.9 T":
        share = pred["ridge_numerical_rank"] / T
    else:
        share = pred["ridge_rank"] / T
    return float(share.min()), bool((share >= 0.9).all())


def measure_variation(results, reading: Reading = MAIN, seeds: pd.DataFrame | None = None) -> pd.DataFrame:
    """Across-corpus coefficient of variation of each measure's cell means, per d_model, and of the predictor."""
    measures = {**MEASURES, reading.participation: MEASURES.get(reading.participation, "PR (per row)")}
    if reading.participation != "attention_participation_ratio":
        measures.pop("attention_participation_ratio")
    table = cells(results, reading, seeds)[list(measures)]
    grouped = table.groupby(level="d_model")
    out = _cv(grouped).where(grouped.count() > 1).rename(columns=measures)
    out["predictor"] = stats.coefficient_of_variation(results["predictor"][reading.predictor])
    return out


def separated(results, z: float = 3.0) -> np.ndarray:
    """Names of the corpora whose repeat-operator rank stands apart (robust z-score > ``z``)."""
    pred = results["predictor"]
    return pred["corpus"].to_numpy()[stats.robust_outliers(pred["repeat_rank"], z)]


def trajectory(results, reading: Reading = MAIN) -> pd.DataFrame:
    """Per (budget, corpus, d_model): Spearman, over the checkpoints, of the seed-mean measured rank against
    the seed-mean validation loss (negative: the rank rises as the loss falls)."""
    heads, models = results["heads"], results["models"]
    keys = ["budget", "corpus", "d_model", "fraction"]
    rank = heads.groupby(keys)[reading.kernel].mean()
    loss = models.groupby(keys)[reading.split].mean()
    rows = []
    for (budget, corpus, width), group in pd.DataFrame({"rank": rank, "loss": loss}).groupby(level=[0, 1, 2]):
        if len(group) >= 3:
            rows.append({"budget": budget, "corpus": corpus, "d_model": width, "checkpoints": len(group),
                         "Spearman(rank, loss)": stats.spearman(group["rank"], group["loss"]),
                         "rank, first → last": f"{group['rank'].iloc[0]:.3g} → {group['rank'].iloc[-1]:.3g}",
                         "loss, first → last": f"{group['loss'].iloc[0]:.3g} → {group['loss'].iloc[-1]:.3g}"})
    return pd.DataFrame(rows)


def claims(results, reading: Reading = MAIN, spread: bool = True) -> list[dict]:
    """Every App. B claim under ``reading``: the comparison rows (see ``verdicts.row``); the seed standard
    errors that set value tolerances are computed only with ``spread`` (the specification table needs
    whether each claim holds, not its value's spread)."""
    rows, width = [], _width(results, reading)
    seeds = per_seed(results, reading)

    def se(frame, statistic):
        return verdicts.seed_se(frame, statistic) if spread else 0.0

    pred = results["predictor"]
    few = f"fewer than {MIN_CORPORA} corpora at d_model = {width}"
    for key, statistic in (("pearson", stats.pearson), ("spearman", stats.spearman)):
        what = f"{key.title()}(predicted, measured) across corpora, d_model = {width} [< 0]"
        found = _correlation(results, reading, _predictor(results, reading), reading.kernel, statistic, spread, seeds)
        rows.append({"key": key, **(verdicts.undefined(what, CLAIMS[key], "sign", few) if found is None else
                     verdicts.row(what, found[0], CLAIMS[key], "sign", found[0] < 0, se=found[2], p_value=found[1]))})
    table = cells(results, reading, seeds)
    worst = float(table["CV_seed"].max())
    def worst_cv(frame):
        return _cv(frame.groupby(["corpus", "d_model"])[reading.kernel]).max()

    rows.append({"key": "cv_seed", **verdicts.row(
        f"max CV_seed of the measured rank over the {len(table)} corpus × width cells", worst, CLAIMS["cv_seed"],
        "seed stability", verdicts.seed_stable(worst), upper_bound=True, se=se(seeds, worst_cv))})
    found = _correlation(results, reading, lambda names: table.xs(width, level="d_model").loc[names, reading.split],
                         reading.kernel, spread=spread, seeds=seeds)
    what = f"Pearson(final validation loss, measured) across corpora, d_model = {width} [< 0]"
    rows.append({"key": "loss_rank", **(verdicts.undefined(what, CLAIMS["loss_rank"], "sign", few) if found is None
                                        else verdicts.row(what, found[0], CLAIMS["loss_rank"], "sign", found[0] < 0,
                                                          se=found[2], p_value=found[1]))})
    steps = trajectory(results, reading)
    if len(steps):
        falling = int((steps["Spearman(rank, loss)"] < 0).sum())
        rows.append({"key": "progress", **verdicts.row(
            f"cells whose rank rises as their loss falls along training ({falling}/{len(steps)})",
            falling / len(steps), CLAIMS["progress"], "trajectory", falling == len(steps))})
    top = table.xs(width, level="d_model")
    last = max(c for c in top.columns if c.startswith("layer ")).removeprefix("layer ")
    gap = (top[f"layer {last}"] - top["layer 0"]).min()
    rows.append({"key": "layers", **verdicts.row(f"min over corpora: layer {last} − layer 0 of the measured rank, "
                                                 f"d_model = {width} [> 0]", gap, CLAIMS["layers"], "range",
                                                 bool(gap > 0))})
    inside = bool(top["layer 0"].between(13, 19).all() and top[f"layer {last}"].between(30, 44).all())
    rows.append({"key": "layer_values", **verdicts.row(
        f"layer 0 within 13–19 and layer {last} within 30–44 in every corpus, d_model = {width} (layer 0 "
        f"{top['layer 0'].min():.3g}–{top['layer 0'].max():.3g}, layer {last} {top[f'layer {last}'].min():.3g}–"
        f"{top[f'layer {last}'].max():.3g})", float(inside), CLAIMS["layer_values"], "range", inside)})
    found = _correlation(results, reading, _h1(results), "ffn_in_stable_rank", spread=spread, seeds=seeds)
    what = f"Pearson(H₁, FFN stable rank of W_1) across corpora, d_model = {width}"
    rows.append({"key": "ffn", **(verdicts.undefined(what, CLAIMS["ffn"], "no relationship", few) if found is None
                                  else verdicts.row(what, found[0], CLAIMS["ffn"], "no relationship",
                                                    found[1] >= verdicts.SIGNIFICANCE, se=found[2], p_value=found[1]))})
    corpora_found = f"{len(pred)} corpora (needs {MIN_CORPORA})"
    if len(pred) >= MIN_CORPORA:
        variation = measure_variation(results, reading, seeds)
        widest = float(variation.drop(columns="predictor").max().max())
        predictor_cv = float(variation["predictor"].iloc[0])
        rows.append({"key": "measure_cv", **verdicts.row(
            f"largest across-corpus CV of the five measures, any width [< the predictor's {predictor_cv:.3g}]",
            widest, CLAIMS["measure_cv"], "range", widest < predictor_cv, upper_bound=True,
            se=se(seeds, lambda f: _largest_cv(f, reading)))})
        by_corpus = pred.assign(seed=pred["corpus"])  # the predictor has no seeds: its spread is over corpora
        rows.append({"key": "predictor_cv", **verdicts.row(
            f"across-corpus CV of the predictor, {PREDICTORS[reading.predictor]} [> every measure's, max "
            f"{widest:.3g}]", predictor_cv, CLAIMS["predictor_cv"], "range", predictor_cv > widest,
            se=se(by_corpus, lambda f: stats.coefficient_of_variation(f[reading.predictor])))})
    else:
        rows += [{"key": key, **verdicts.undefined(f"across-corpus CV ({key})", CLAIMS[key], "range", corpora_found)}
                 for key in ("measure_cv", "predictor_cv")]
    share, holds = _full_rank(pred, reading)
    rows.append({"key": "ridge", **verdicts.row(f"ridge operator: min over corpora of its rank / T "
                                                f"({reading.full_rank})", share, CLAIMS["ridge"], "range", holds)})
    what = f"corpora the repeat operator separates (robust z > {reading.separates:g}) of {len(pred)} [= 1]"
    if len(pred) >= MIN_CORPORA:
        count = len(separated(results, reading.separates))
        rows.append({"key": "repeat", **verdicts.row(what, count, CLAIMS["repeat"], "range", count == 1, exact=True)})
    else:
        rows.append({"key": "repeat", **verdicts.undefined(what, CLAIMS["repeat"], "range", corpora_found)})
    return rows


def _largest_cv(seeds: pd.DataFrame, reading: Reading) -> float:
    measures = [reading.participation if m == "attention_participation_ratio" else m for m in MEASURES]
    means = seeds.groupby(["d_model", "corpus"])[measures].mean()
    return float(_cv(means.groupby(level="d_model")).max().max())


def compare(results) -> pd.DataFrame:
    """App. B beside the paper under the main reading, with a column saying which claims flip under other
    readings and on which choice."""
    if "heads" not in results.tables or "predictor" not in results.tables:
        return verdicts.table([verdicts.undefined(k, c, "range", "no model or no corpus is stored")
                               for k, c in CLAIMS.items()])
    rows = claims(results, dataclasses.replace(MAIN, budget=main_budget(results)))
    flips = specification(results)["flips on"]
    table = verdicts.table([{k: v for k, v in row.items() if k != "key"} for row in rows])
    table["under other readings"] = [flips.get(row["key"], "") for row in rows]
    return table


def readings(results) -> dict[str, Reading]:
    """Every reading the specification table uses: the main one and one change at a time, including the
    other budgets and checkpoints stored and the other widths."""
    main = main_budget(results)
    base = dataclasses.replace(MAIN, budget=main)
    out = {"main": base}
    for field, values in ALTERNATIVES.items():
        for value in values:
            out[f"{field}: {value}"] = dataclasses.replace(base, **{field: value})
    points = results["models"].drop_duplicates(["budget", "fraction"])[["budget", "fraction"]]
    for budget, fraction in points.itertuples(index=False):
        if (budget, fraction) != (main, 1.0):
            out[f"budget: {budget / 1e6:g}M at {fraction:.0%}"] = dataclasses.replace(base, budget=int(budget),
                                                                                    fraction=float(fraction))
    for width in sorted(set(results["models"]["d_model"]))[:-1]:
        out[f"width: {width}"] = dataclasses.replace(base, width=int(width))
    return out


def specification(results) -> pd.DataFrame:
    """One row per claim, one column per reading (✓ holds, ✗ fails, — undefined there), and the choices on
    which the claim flips."""
    columns = {}
    for label, reading in readings(results).items():
        try:
            rows = claims(results, reading, spread=False)
        except (KeyError, ValueError, IndexError):  # a reading the stored rows cannot support (a missing width)
            continue
        columns[label] = {r["key"]: None if r["verdict"] == verdicts.UNDEFINED else
                          bool(r["claim holds"] and r["verdict"] != verdicts.NOT_SIGNIFICANT) for r in rows}
    frame = pd.DataFrame(columns)
    if frame.empty:  # no reading the stored rows support (e.g. a single corpus)
        return pd.DataFrame({"flips on": pd.Series(dtype=object)}).rename_axis("claim")
    flips = []
    for _, row in frame.iterrows():
        main = row["main"]
        changed = ", ".join(dict.fromkeys(label.split(":")[0] for label, value in row.items()
                                          if value is not None and not pd.isna(value) and value != main))
        flips.append(changed or ("holds under every reading" if main else "fails under every reading"))
    frame.insert(0, "flips on", flips)
    frame.index.name = "claim"
    return frame


def correlations(results) -> pd.DataFrame:
    """Every correlation of App. B at every width and budget stored: r, exact permutation p-value, 95 %
    seed-bootstrap interval."""
    rows = []
    main = main_budget(results)
    for budget in sorted(set(results["models"]["budget"])):
        for width in sorted(set(results["models"]["d_model"])):
            reading = dataclasses.replace(MAIN, budget=int(budget), width=int(width))
            table = cells(results, reading)
            if width not in set(table.index.get_level_values("d_model")):
                continue
            losses = table.xs(width, level="d_model")[reading.split]
            pairs = {"predicted vs measured": (_predictor(results, reading), reading.kernel),
                     "validation loss vs measured": (lambda n, losses=losses: losses.loc[n], reading.kernel),
                     "H₁ vs FFN stable rank": (_h1(results), "ffn_in_stable_rank")}
            for name, (x_of, column) in pairs.items():
                found = _correlation(results, reading, x_of, column)
                if found is None:
                    continue
                r, p, _, (low, high), n = found
                rows.append({"budget": f"{budget / 1e6:g}M" + (" (main)" if budget == main else ""),
                             "d_model": width, "pair": name, "corpora": n, "Pearson r": r, "p (permutation)": p,
                             "95 % seed interval": f"{low:.2f} to {high:.2f}"})
    return pd.DataFrame(rows)
