"""App. B's tables beside the paper, from the stored rows of ``real_corpora`` (see its package docstring).

Every claim is computed under a **reading**: one choice for each thing the paper leaves open (which
predictor, W_QK per head or per layer, which participation ratio, what "full rank" and "separates"
mean, which training budget and checkpoint, which validation split, which width the correlations use).
``MAIN`` is the reading the comparison table uses; ``specification`` recomputes every claim with one
choice changed at a time and says which claims hold under every reading and which flip, on which choice.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from ...pipeline import verdicts
from . import CLAIMS, long_run
from .grid import budgets, cv, grid, main_budget, point
from .grid import cells as _cells
from .grid import per_seed as _per_seed
from .readings import ALTERNATIVES, ENTROPIES, MAIN, MEASURES, MIN_CORPORA, PREDICTORS, Reading


def per_seed(results, reading: Reading = MAIN) -> pd.DataFrame:
    """One row per (corpus, d_model, seed) at the reading's budget and checkpoint (``grid.per_seed``)."""
    return _per_seed(results, reading, MEASURES)


def cells(results, reading: Reading = MAIN, seeds: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (corpus, d_model): seed means, and CV_seed of the reading's kernel rank."""
    return _cells(per_seed(results, reading) if seeds is None else seeds, reading.kernel)


# ----------------------------------------------------------------------------- the claims under a reading

MEASURED, DATA = "trained models, measured", "data statistic"
KINDS = {"pearson": f"{MEASURED} + {DATA}", "spearman": f"{MEASURED} + {DATA}", "cv_seed": MEASURED,
         "loss_rank": MEASURED, "progress": f"{MEASURED} + {DATA}", "layers": MEASURED, "layer_values": MEASURED,
         "ffn": f"{MEASURED} + {DATA}", "measure_cv": MEASURED, "predictor_cv": DATA, "ridge": DATA, "repeat": DATA}


def _width(results, reading: Reading) -> int:
    return reading.width or int(point(results, reading)[1]["d_model"].max())


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


def _h1(results, reading: Reading = MAIN):
    pred = results["predictor"].set_index("corpus")
    return lambda names: pred.loc[names, reading.entropy]


def _full_rank(pred: pd.DataFrame, reading: Reading) -> tuple[float, bool]:
    T = pred["ablation_context"]
    exact = {"numerical = T (float64)": "ridge_numerical_rank",
             "numerical = T (float32)": "ridge_numerical_rank_float32"}
    if reading.full_rank in exact:
        share = pred[exact[reading.full_rank]] / T
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
    out = cv(grouped).where(grouped.count() > 1).rename(columns=measures)
    out["predictor"] = stats.coefficient_of_variation(results["predictor"][reading.predictor])
    return out


def separated(results, z: float = 3.0) -> np.ndarray:
    """Names of the corpora whose repeat-operator rank stands apart (robust z-score > ``z``)."""
    pred = results["predictor"]
    return pred["corpus"].to_numpy()[stats.robust_outliers(pred["repeat_rank"], z)]


def trajectory(results, reading: Reading = MAIN) -> pd.DataFrame:
    """Per (budget, corpus, d_model): Spearman, over the checkpoints, of the seed-mean measured rank against
    the seed-mean validation loss (negative: the rank rises as the loss falls)."""
    heads, models = grid(results, "heads"), grid(results, "models")
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

    def needs(found) -> str:  # the |r| that this many corpora need, beside every correlation
        return f"; |r| ≥ {stats.critical_r(found[4]):.2f} needed with {found[4]} corpora" if found else ""

    found_pred = {}
    for key, statistic in (("pearson", stats.pearson), ("spearman", stats.spearman)):
        found = _correlation(results, reading, _predictor(results, reading), reading.kernel, statistic, spread, seeds)
        found_pred[key] = found
        what = f"{key.title()}(predicted, measured) across corpora, d_model = {width} [< 0{needs(found)}]"
        rows.append({"key": key, **(verdicts.undefined(what, CLAIMS[key], "sign", few, estimator=KINDS[key])
                                    if found is None else
                                    verdicts.row(what, found[0], CLAIMS[key], "sign", found[0] < 0, se=found[2],
                                                 p_value=found[1], estimator=KINDS[key]))})
    table = cells(results, reading, seeds)
    worst = float(table["CV_seed"].max())

    def worst_cv(frame):
        return cv(frame.groupby(["corpus", "d_model"])[reading.kernel]).max()

    rows.append({"key": "cv_seed", **verdicts.row(
        f"max CV_seed of the measured rank over the {len(table)} corpus × width cells", worst, CLAIMS["cv_seed"],
        "seed stability", verdicts.seed_stable(worst), upper_bound=True, se=se(seeds, worst_cv),
        estimator=KINDS["cv_seed"])})
    found = _correlation(results, reading, lambda names: table.xs(width, level="d_model").loc[names, reading.split],
                         reading.kernel, spread=spread, seeds=seeds)
    what = f"Pearson(final validation loss, measured) across corpora, d_model = {width} [< 0{needs(found)}]"
    rows.append({"key": "loss_rank", **(verdicts.undefined(what, CLAIMS["loss_rank"], "sign", few,
                                                           estimator=KINDS["loss_rank"]) if found is None
                                        else verdicts.row(what, found[0], CLAIMS["loss_rank"], "sign", found[0] < 0,
                                                          se=found[2], p_value=found[1],
                                                          estimator=KINDS["loss_rank"]))})
    rows.append({"key": "progress", **_progress(results, reading, found, found_pred["pearson"], few)})
    top = table.xs(width, level="d_model")
    last = max(c for c in top.columns if c.startswith("layer ")).removeprefix("layer ")
    gap = (top[f"layer {last}"] - top["layer 0"]).min()
    rows.append({"key": "layers", **verdicts.row(f"min over corpora: layer {last} − layer 0 of the measured rank, "
                                                 f"d_model = {width} [> 0]", gap, CLAIMS["layers"], "range",
                                                 bool(gap > 0), estimator=KINDS["layers"])})
    inside = bool(top["layer 0"].between(13, 19).all() and top[f"layer {last}"].between(30, 44).all())
    rows.append({"key": "layer_values", **verdicts.row(
        f"layer 0 within 13–19 and layer {last} within 30–44 in every corpus, d_model = {width} (layer 0 "
        f"{top['layer 0'].min():.3g}–{top['layer 0'].max():.3g}, layer {last} {top[f'layer {last}'].min():.3g}–"
        f"{top[f'layer {last}'].max():.3g})", float(inside), CLAIMS["layer_values"], "range", inside,
        estimator=KINDS["layer_values"])})
    found = _correlation(results, reading, _h1(results, reading), "ffn_in_stable_rank", spread=spread, seeds=seeds)
    what = (f"Pearson({ENTROPIES[reading.entropy]}, FFN stable rank of W_1) across corpora, d_model = {width} "
            f"[p ≥ {verdicts.SIGNIFICANCE}{needs(found)} for a relationship]")
    rows.append({"key": "ffn", **(verdicts.undefined(what, CLAIMS["ffn"], "no relationship", few,
                                                     estimator=KINDS["ffn"]) if found is None else
                                  verdicts.row(what, found[0], CLAIMS["ffn"], "no relationship",
                                               found[1] >= verdicts.SIGNIFICANCE, se=found[2], p_value=found[1],
                                               estimator=KINDS["ffn"]))})
    corpora_found = f"{len(pred)} corpora (needs {MIN_CORPORA})"
    if len(pred) >= MIN_CORPORA:
        variation = measure_variation(results, reading, seeds)
        widest = float(variation.drop(columns="predictor").max().max())
        predictor_cv = float(variation["predictor"].iloc[0])
        rows.append({"key": "measure_cv", **verdicts.row(
            f"largest across-corpus CV of the five measures, any width [< the predictor's {predictor_cv:.3g}]",
            widest, CLAIMS["measure_cv"], "range", widest < predictor_cv, upper_bound=True,
            se=se(seeds, lambda f: _largest_cv(f, reading)), estimator=KINDS["measure_cv"])})
        by_corpus = pred.assign(seed=pred["corpus"])  # the predictor has no seeds: its spread is over corpora
        rows.append({"key": "predictor_cv", **verdicts.row(
            f"across-corpus CV of the predictor, {PREDICTORS[reading.predictor]} [> every measure's, max "
            f"{widest:.3g}]", predictor_cv, CLAIMS["predictor_cv"], "range", predictor_cv > widest,
            se=se(by_corpus, lambda f: stats.coefficient_of_variation(f[reading.predictor])),
            estimator=KINDS["predictor_cv"])})
    else:
        rows += [{"key": key, **verdicts.undefined(f"across-corpus CV ({key})", CLAIMS[key], "range", corpora_found,
                                                   estimator=KINDS[key])} for key in ("measure_cv", "predictor_cv")]
    share, holds = _full_rank(pred, reading)
    rows.append({"key": "ridge", **verdicts.row(f"ridge operator: min over corpora of its rank / T "
                                                f"({reading.full_rank})", share, CLAIMS["ridge"], "range", holds,
                                                estimator=KINDS["ridge"])})
    what = f"corpora the repeat operator separates (robust z > {reading.separates:g}) of {len(pred)} [= 1]"
    if len(pred) >= MIN_CORPORA:
        count = len(separated(results, reading.separates))
        rows.append({"key": "repeat", **verdicts.row(what, count, CLAIMS["repeat"], "range", count == 1, exact=True,
                                                     estimator=KINDS["repeat"])})
    else:
        rows.append({"key": "repeat", **verdicts.undefined(what, CLAIMS["repeat"], "range", corpora_found,
                                                           estimator=KINDS["repeat"])})
    return rows


def _progress(results, reading: Reading, loss, predicted, few: str) -> dict:
    """'It tracks fitting progress, not task complexity' under the reading's sense: across corpora (the
    paper's sentence: the final loss correlates negatively and significantly with the measured rank, and the
    predicted rank does not correlate positively and significantly), or within each run (ours: in every
    cell the rank rises as the loss falls along training)."""
    if reading.progress == "within each run":
        steps = trajectory(results, reading)
        if not len(steps):
            return verdicts.undefined("cells whose rank rises as their loss falls along training (within each run, "
                                      "our reading)", CLAIMS["progress"], "trajectory", "fewer than 3 checkpoints",
                                      estimator=KINDS["progress"])
        falling = int((steps["Spearman(rank, loss)"] < 0).sum())
        return verdicts.row(f"cells whose rank rises as their loss falls along training, within each run (our "
                            f"reading) ({falling}/{len(steps)})", falling / len(steps), CLAIMS["progress"],
                            "trajectory", falling == len(steps), estimator=KINDS["progress"])
    what = "across corpora: Pearson(final loss, measured) [< 0] while Pearson(predicted, measured) is not [> 0]"
    if loss is None or predicted is None:
        return verdicts.undefined(what, CLAIMS["progress"], "progress", few, estimator=KINDS["progress"])
    complexity = predicted[0] > 0 and predicted[1] < verdicts.SIGNIFICANCE
    return verdicts.row(f"{what} (predicted: r = {predicted[0]:.2f}, p = {predicted[1]:.2f})", loss[0],
                        CLAIMS["progress"], "progress", bool(loss[0] < 0 and not complexity), p_value=loss[1],
                        estimator=KINDS["progress"])


def _largest_cv(seeds: pd.DataFrame, reading: Reading) -> float:
    measures = [reading.participation if m == "attention_participation_ratio" else m for m in MEASURES]
    means = seeds.groupby(["d_model", "corpus"])[measures].mean()
    return float(cv(means.groupby(level="d_model")).max().max())


def compare(results) -> pd.DataFrame:
    """App. B beside the paper under the main reading, with a column saying which claims flip under other
    readings and on which choice."""
    if "heads" not in results.tables or "predictor" not in results.tables:
        return verdicts.table([verdicts.undefined(k, c, "range", "no model or no corpus is stored", estimator=KINDS[k])
                               for k, c in CLAIMS.items()])
    rows = claims(results, dataclasses.replace(MAIN, budget=main_budget(results)))
    spec = specification(results)
    table = verdicts.table([{k: v for k, v in row.items() if k != "key"} for row in rows])
    budget_notes = by_budget(results, spec)
    table["by budget"] = [budget_notes.get(row["key"], "") for row in rows]
    table["note"] = [f"The verdict depends on the budget: {text.removeprefix('differs: ')} (final checkpoints)."
                     if text.startswith("differs") else "" for text in table["by budget"]]
    table["undecided"] = ["budget" if text.startswith("differs") else "" for text in table["by budget"]]
    long = long_run.verdicts(results)
    if len(long):  # the layer ranges, read again on the long run by its declared rule
        where = [row["key"] for row in rows].index("layer_values")
        said = "; ".join(f"layer {int(r['layer'])} reads {r['ours']:.3g} at {r['tokens'] / 1e6:g}M tokens "
                         f"({r['change over the last doubling']:+.1%} over the last doubling): {r['outcome']}"
                         for _, r in long.iterrows())
        table.iloc[where, table.columns.get_loc("note")] = (table["note"].iloc[where] + " " if table["note"].iloc[where]
                                                            else "") + f"The long run: {said}."
        if (long["outcome"] == long_run.UNDECIDED).any():
            table.iloc[where, table.columns.get_loc("undecided")] = "budget"
    table["under other readings"] = [spec["flips on"].get(row["key"], "") for row in rows]
    return table


def _budget_column(results, budget: int) -> str:
    return "main" if budget == main_budget(results) else f"budget: {budget / 1e6:g}M at 100%"


def by_budget(results, spec: pd.DataFrame) -> dict[str, str]:
    """Per claim: whether it holds at the final checkpoint of every budget stored ("same at every budget",
    or the budgets at which it holds and fails, each incomplete grid named with its cells)."""
    table = budgets(results)
    stored = [int(b) for b, row in table.iterrows() if row["cells stored"]]
    out = {}
    for key, row in spec.iterrows():
        marks = {b: row.get(_budget_column(results, b)) for b in stored}
        marks = {b: m for b, m in marks.items() if m is not None and not pd.isna(m)}
        if len(marks) < 2 or len(set(marks.values())) == 1:
            out[key] = "same at every budget" if len(marks) > 1 else ""
            continue

        def named(b):
            cells = table.loc[b]
            return f"{b / 1e6:g}M" + ("" if cells["complete"] else
                                      f" ({int(cells['cells stored'])} of {int(cells['cells asked'])} cells)")

        holds = [named(b) for b, m in marks.items() if m]
        fails = [named(b) for b, m in marks.items() if not m]
        out[key] = f"differs: holds at {', '.join(holds)}; fails at {', '.join(fails)}"
    return out


def readings(results) -> dict[str, Reading]:
    """Every reading the specification table uses: the main one and one change at a time, including the
    other budgets and checkpoints stored and the other widths."""
    main = main_budget(results)
    base = dataclasses.replace(MAIN, budget=main)
    out = {"main": base}
    for field, values in ALTERNATIVES.items():
        for value in values:
            out[f"{field}: {value}"] = dataclasses.replace(base, **{field: value})
    models = grid(results, "models")
    points = models.drop_duplicates(["budget", "fraction"])[["budget", "fraction"]]
    for budget, fraction in points.itertuples(index=False):
        if (budget, fraction) != (main, 1.0):
            out[f"budget: {budget / 1e6:g}M at {fraction:.0%}"] = dataclasses.replace(base, budget=int(budget),
                                                                                    fraction=float(fraction))
    for width in sorted(set(models["d_model"]))[:-1]:
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
    """Every correlation of App. B at every budget stored, in two units: the corpora at each width (the
    paper's unit in B.2 and B.3 (ii)) and the corpus × width cells pooled (B.3 (i)'s unit): r, permutation
    p-value, 95 % seed-bootstrap interval (corpora only) and the |r| that many points need for p < 0.05."""
    rows = []
    main = main_budget(results)
    models = grid(results, "models")
    for budget in sorted(set(models["budget"])):
        tag = f"{budget / 1e6:g}M" + (" (main)" if budget == main else "")
        for width in [*sorted(set(models["d_model"])), None]:
            reading = dataclasses.replace(MAIN, budget=int(budget), width=width or int(models["d_model"].max()))
            table = cells(results, reading)
            if width is not None and width not in set(table.index.get_level_values("d_model")):
                continue
            for name, (x, y) in _pairs(results, reading, table).items():
                if width is None:  # every cell of this budget, pooled
                    found = pooled(x, table[y])
                    unit = f"{len(table)} corpus × width cells, pooled"
                else:
                    found = _correlation(results, reading, lambda n, x=x, width=width: x.xs(width, level="d_model")
                                         .loc[n], y)
                    unit = f"corpora at d_model = {width}"
                if found is None:
                    continue
                r, p, _, (low, high), n = found
                rows.append({"budget": tag, "unit": unit, "pair": name, "points": n, "Pearson r": r,
                             "p (permutation)": p, "|r| needed for p < 0.05": stats.critical_r(n),
                             "95 % seed interval": f"{low:.2f} to {high:.2f}" if width is not None else "—"})
    return pd.DataFrame(rows)


def _pairs(results, reading: Reading, table: pd.DataFrame) -> dict[str, tuple[pd.Series, str]]:
    """Each correlation of App. B: (x per (corpus, d_model) cell, the column of ``table`` it is set against)."""
    pred = results["predictor"].set_index("corpus")
    corpus = table.index.get_level_values("corpus")

    def per_cell(column):
        return pd.Series(pred.loc[corpus, column].to_numpy(), index=table.index)

    return {"predicted vs measured": (per_cell(reading.predictor), reading.kernel),
            "validation loss vs measured": (table[reading.split], reading.kernel),
            "H₁ (unigram) vs FFN stable rank": (per_cell("unigram_entropy"), "ffn_in_stable_rank"),
            "H(x_t | x_{t−1}) vs FFN stable rank": (per_cell("conditional_entropy"), "ffn_in_stable_rank")}


def pooled(x, y):
    """(r, permutation p, 0, (r, r), points) of Pearson between two per-cell series over every cell (the
    cells of one corpus are not independent: widths share the corpus, so the p-value is optimistic)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < MIN_CORPORA:
        return None
    r = stats.pearson(x[keep], y[keep])
    return r, stats.permutation_p(x[keep], y[keep]), 0.0, (r, r), int(keep.sum())

