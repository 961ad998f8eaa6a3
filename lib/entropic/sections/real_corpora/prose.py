"""The numbers and phrases App. B's prose quotes, every one computed from the stored results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from ...report import verdicts
from ...report.numbers import counted, listed, number, span, tokens
from . import analysis, grid, long_run, words
from .analysis import cells, per_seed, whole_span
from .figures import lag_levels
from .grid import main_budget
from .readings import ENTROPIES, FAILS, HOLDS, MAIN, MIN_CORPORA, PREDICTORS, Reading
from .spec import CLAIMS


def facts(results, spec: pd.DataFrame) -> dict:
    """Every number and phrase the page's prose quotes; ``spec`` is the specification table the page shows
    (``tables.specification``), read here, never recomputed.
    Every key is always present: a dash or NaN where the stored results cannot supply it."""
    cfg = results.cfg
    found = grid.availability(cfg)
    missing = list(found.index[found["status"] == "missing"])
    nan, dash = float("nan"), "—"
    # n_found counts the corpora the stored results were computed from (the page reads those, wherever the texts
    # are); the texts this machine lacks are named apart, so that a clone without them shows the same numbers.
    out = {"n_asked": len(cfg.corpora), "n_found": 0, "missing": ", ".join(f"`{m}`" for m in missing) or "none",
           "here_text": (f"Not on this machine: {', '.join(f'`{m}`' for m in missing)}; the page reads the results "
                         f"stored from {'it' if len(missing) == 1 else 'them'} (recomputing needs the text: "
                         f"`make corpora` fetches it)." if missing else "Each of them is on this machine."),
           "pinned": 0, "models": 0,
           **{f"cv_{column}": nan for column in PREDICTORS},
           **dict.fromkeys(["lags_span", "ridge_share", "ridge_numerical_span", "main_budget", "budgets", "loss_span",
                            "tail_span", "layer0_span", "last_layer_span", "cv_seed_span", "cost", "passes"], dash),
           "largest": 0, "last_layer": 0, "spec_claims": 0, "spec_robust": 0, "spec_flipping": "none",
           **dict.fromkeys(["pearson_r", "pearson_p", "loss_r", "loss_p", "cv_seed_max", "ffn_r", "ffn_r_conditional",
                            "measure_cv_max", "long_layer0", "long_factor", "ridge_full", "repeat_count",
                            "ablation_context"], nan),
           **dict.fromkeys(["layer0_whole", "last_layer_whole", "ffn_marks", "long_change0"], dash),
           "trajectory_text": "No checkpoints are stored.", "lag_reading": "", "critical_corpora": nan,
           "critical_cells": nan, "null_copies": cfg.max_null_permutations, "others_vary": "vary",
           "paper_r_text": dash, "ridge_text": "No corpus is stored.", "entropy_text": dash,
           "predictor_change": dash, "spectra_cells": "none", "long_text": "The long run is not stored yet.",
           "long_what": f"{cfg.long_corpus} at d_model = {cfg.long_d_model}"
                                            if cfg.long_corpus else "no corpus (the long run is switched off)"}
    if "predictor" in results.tables:
        pred = results["predictor"]
        for column in PREDICTORS:
            out[f"cv_{column}"] = stats.coefficient_of_variation(pred[column]) if len(pred) > 1 else nan
        out["others_vary"] = _others_vary(out)
        out |= _data_facts(pred, len(cfg.d_models))
        out |= {"lags_span": span(pred[MAIN.predictor]), "ridge_share": span(pred["ridge_rank"]
                                                                                / pred["ablation_context"]),
                "ridge_numerical_span": span(pred["ridge_numerical_rank"]), "pinned": int(pred["matches_pin"].sum()),
                "n_found": int(pred["corpus"].nunique())}
    if {"lag_mi", "lag_mi_null"} <= set(results.tables):
        out["lag_reading"] = lag_reading(results)
    if "models" not in results.tables:
        return out
    main, table = main_budget(results), grid.budgets(results)
    models, seeds = grid.grid(results, "models"), per_seed(results)
    final = models[np.isclose(models["fraction"], 1.0)]
    trained = final.drop_duplicates(["budget", "corpus", "d_model", "seed"])
    chars = final.drop_duplicates("corpus").set_index("corpus")["chars"]
    out["passes"] = f"{span(main / chars)} times its corpus's length"
    out |= {"main_budget": f"{main / 1e6:g}M tokens per model", "models": int((trained["budget"] == main).sum()),
            "budgets": ", ".join(
        f"{b / 1e6:g}M tokens per model ({int(r['cells stored'])} of {int(r['cells asked'])} cells)"
        for b, r in table.iterrows())}
    width = int(seeds["d_model"].max())
    top = cells(results).xs(width, level="d_model")
    last = max(c for c in top.columns if c.startswith("layer ")).removeprefix("layer ")
    out |= {"largest": width, "last_layer": int(last), "layer0_span": span(top["layer 0"]),
            "last_layer_span": span(top[f"layer {last}"]), "loss_span": span(top["val_loss"]),
            "tail_span": span(top["tail_val_loss"]), "cv_seed_span": span(cells(results)["CV_seed"])}
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
    out |= {"layer0_whole": whole_span(top["layer 0"]), "last_layer_whole": whole_span(top[f"layer {last}"])}
    out |= _claim_facts(results, main)
    steps = analysis.trajectory(results)
    if len(steps):
        out["trajectory_text"] = _trajectory_text(steps)
    robust = spec["flips on"].astype(str).str.endswith("every reading")
    out |= {"spec_claims": len(spec), "spec_robust": int(robust.sum()),
            "spec_flipping": "; ".join(f"{words.word(claim)}, with the {words.changes_with(row['flips on'])}"
                                       for claim, row in spec[~robust].iterrows()) or "none"}
    return out


def _claim_facts(results, budget: int) -> dict:
    """The numbers of the main table's rows that the page's summary quotes, read from the same rows (so at the
    same precision): the correlations and their p-values, the largest CV_seed and measure CV, the repeat count."""
    try:
        rows = {r["key"]: r for r in analysis.claims(results, Reading(budget=budget), spread=False)}
    except (KeyError, ValueError, IndexError):
        return {}
    out = {}
    for key in ("pearson", "loss_rank"):
        if rows[key]["verdict"] != verdicts.UNDEFINED:
            name = "loss" if key == "loss_rank" else key
            out |= {f"{name}_r": rows[key]["ours"], f"{name}_p": rows[key]["p"]}
    out["cv_seed_max"] = rows["cv_seed"]["ours"]
    for key, fact in (("measure_cv", "measure_cv_max"), ("repeat", "repeat_count")):
        if rows[key]["verdict"] != verdicts.UNDEFINED:
            out[fact] = rows[key]["ours"]
    return out


def _data_facts(pred: pd.DataFrame, widths: int) -> dict:
    """The data side's sentences: the |r| the corpora need, the paper's own r against it, the ridge verdict
    in words, H₁ under two readings, and how the predictor changed with its null."""
    n = len(pred)
    out = {}
    if n >= MIN_CORPORA:
        need, cells_need = stats.critical_r(n), stats.critical_r(n * widths)
        paper = abs(CLAIMS["pearson"].value)
        out |= {"critical_corpora": round(need, 2), "critical_cells": round(cells_need, 2),  # as the tables say them
                "paper_r_text": f"with {n} corpora a correlation needs |r| ≥ {need:.2f} for p < 0.05 (and "
                                f"{cells_need:.2f} over {n * widths} pooled cells); the paper's own r = "
                                f"−{paper:.3f} would " + ("reach it." if paper >= need else
                                                          "itself not reach it: it would be *not significant* here.")}
    T = pred["ablation_context"]
    full = int((pred["ridge_numerical_rank"] == T).sum())
    out |= {"ridge_full": full, "ablation_context": int(T.iloc[0])}
    out["ridge_text"] = (
        f"At the precision it is computed in (float64, NumPy's rule), the ridge operator has numerical rank "
        f"{span(pred['ridge_numerical_rank'])} of $T$ = {int(T.iloc[0])}, full rank in {full} of {n} corpora "
        f"(at the float32 rule the ranks are {span(pred['ridge_numerical_rank_float32'])}). Its effective rank is "
        f"{span(pred['ridge_rank'] / T)} of $T$: far from spread over every direction.")
    if n >= MIN_CORPORA:
        before, after = pred["effective_lags"], pred["effective_lags_shift"]
        per_corpus = ", ".join(f"{c} {number(b)} → {number(a)}" for c, b, a in zip(pred["corpus"], before, after,
                                                                                 strict=True))
        out["predictor_change"] = (
            f"Under the circular-shift null the six predicted ranks are {span(after)} "
            f"({span(pred['informative_lags_shift'])} informative lags); under the shuffled null they were "
            f"{span(before)}, per corpus {per_corpus}; the across-corpus CV goes from "
            f"{stats.coefficient_of_variation(before):.2f} to {stats.coefficient_of_variation(after):.2f}. Under the "
            f"earlier lag-1 rule they were {span(pred['effective_lags_lag1'])}.")
    return out


def _others_vary(found: dict) -> str:
    """How the other operator readings' across-corpus CVs (``cv_lag_mi_operator_rank``, ``cv_cca_rank``,
    ``cv_cca_uncapped_rank``) stand against the main predictor's: "vary less", "vary more" or "vary less and more"."""
    main = found["cv_effective_lags_shift"]
    others = [found[f"cv_{c}"] for c in ("lag_mi_operator_rank", "cca_rank", "cca_uncapped_rank")]
    if any(np.isnan(v) for v in [main, *others]):
        return "vary"
    return ("vary less" if max(others) < main else "vary more" if min(others) > main else "vary less and more")


def lag_reading(results) -> str:
    """What the lag-MI figure shows, from the stored profiles: per corpus, how many of its lags lie above its dotted
    level, corpora with the same count named together."""
    profile, null = lag_levels(results)
    said: dict[str, list[str]] = {}
    for corpus, own in profile.groupby("corpus", sort=False):
        above = int((own["mi"] > null.loc[corpus, "threshold"]).sum())
        said.setdefault(counted(above, len(own), "lags"), []).append(corpus)
    return ("Above its corpus's dotted level lie " + "; ".join(f"{count} of {listed(names)}"
                                                              for count, names in said.items()) + ".")


def _entropy_facts(results, budget: int) -> dict:
    """The FFN claim under both readings of H₁, in one sentence: each reading's r, p and mark (a reading is a
    mark, never a second verdict)."""
    parts, marks, values = [], [], []
    for entropy, label in ENTROPIES.items():
        reading = Reading(budget=budget, entropy=entropy)
        try:
            row = next(r for r in analysis.claims(results, reading, spread=False) if r["key"] == "ffn")
        except (KeyError, ValueError):
            return {}
        if row["verdict"] == verdicts.UNDEFINED:
            return {}
        mark = HOLDS if row["claim holds"] else FAILS
        marks.append(mark)
        values.append(row["ours"])
        parts.append(f"with {label}, r = {number(row['ours'])} (p = {number(row['p'])}) {mark}")
    same = len(set(marks)) == 1
    return {"ffn_r": values[0], "ffn_r_conditional": values[1], "ffn_marks": " and ".join(marks),
            "entropy_text": "Pearson($H_1$, FFN stable rank) at the largest width and the main budget, "
                            + "; ".join(parts) + ". The main table reads $H_1$ the first way; "
                            + ("the mark is the same under both readings." if same else
                               "**the mark changes with the reading of $H_1$**, so the data cannot settle the FFN "
                               "claim until the paper says which $H_1$ it means.")}


def _spectra_facts(results) -> dict:
    spectra = grid.grid(results, "spectra")
    if spectra.empty:
        return {}
    cells_ = spectra.drop_duplicates(["budget", "corpus", "d_model"]).sort_values(["budget", "d_model", "corpus"])
    return {"spectra_cells": ", ".join(f"{c} at d_model = {d} ({b / 1e6:g}M)" for b, c, d in
                                       cells_[["budget", "corpus", "d_model"]].itertuples(index=False))}


def _long_facts(results) -> dict:
    trajectory = long_run.trajectory(results)
    table = long_run.verdicts(results, trajectory)
    if table.empty:
        return {}
    cfg = results.cfg
    parts = [f"layer {int(r['layer'])} reads {number(r['ours'])} at {tokens(r['tokens'])} tokens "
             f"({long_run.percent(r['change over the last doubling'])} over the last doubling; the paper: "
             f"{r['paper says']})" for _, r in table.iterrows()]
    models = grid.long_rows(results, "models")
    seconds = models["train_seconds"].max()  # every row holds the whole run's
    loss = trajectory.drop_duplicates("tokens").set_index("tokens")["val_loss"]
    rank = trajectory.set_index(["tokens", "layer"])["R_eff (eq. 1)"]
    best, last, chars = loss.idxmin(), loss.index.max(), int(models["chars"].iloc[0])
    fit = (f" Its validation loss is lowest at {tokens(best)} tokens ({number(loss[best])} nats per character; "
           f"there layer 0 reads {number(rank[(best, 0)])} and layer 1 {number(rank[(best, 1)])}) "
           f"and rises to {number(loss[last])} at {tokens(last)}: {tokens(last)} tokens are {last / chars:.0f} times "
           f"the corpus's {chars:,} characters, so past {tokens(best)} the model fits its training text, not the "
           f"language, and the last checkpoints measure an over-fitted model." + _at_best(trajectory, best)) \
        if best < last else ""
    first = table.iloc[0]
    return {"long_layer0": float(first["ours"]),
            "long_change0": long_run.percent(first["change over the last doubling"]),
            "long_factor": round(cfg.long_tokens / max(cfg.budgets)),
            "long_text": f"The long run ({cfg.long_corpus}, d_model = {cfg.long_d_model}, seed {cfg.long_seed}): "
                         + "; ".join(parts) + f". It took {seconds:,.0f} s of training." + fit}


def _at_best(trajectory: pd.DataFrame, best: int) -> str:
    """The declared long-run rule read at the validation minimum ``best`` instead of the last checkpoint: a reading
    shown beside the verdict, which the declaration fixed at the last checkpoint before the run."""
    at = trajectory[trajectory["tokens"] == best].set_index("layer")
    change = at["change over the last doubling"]
    words = [f"layer {layer} {long_run.outcome(at.loc[layer, 'R_eff (eq. 1)'], change[layer], low, high)} "
             f"({long_run.percent(change[layer])} over its last doubling)"
             for layer, (low, high) in long_run.RANGES.items() if layer in at.index]
    return (f" The rule was declared, before the run, for the last checkpoint, so its outcome stands; read by the same "
            f"rule at the validation minimum, a reading and not a verdict: {' and '.join(words)}.")


def _trajectory_text(steps: pd.DataFrame) -> str:
    """Per budget: in how many (corpus, width) cells the rank rises as the loss falls, and per width where
    the cells disagree."""
    rises = steps["Spearman(rank, loss)"] < 0
    text = (f"In {int(rises.sum())} of the {len(steps)} (budget, corpus, width) cells the measured rank rises "
            f"while the validation loss falls from checkpoint to checkpoint (Spearman over the checkpoints < 0)")
    if rises.all():
        return text + f": the reading 'within each run' marks the claim {HOLDS}."
    parts = []
    for budget, group in steps.groupby("budget"):
        up = rises[group.index]
        widths = ", ".join(f"{int(up[w_group.index].sum())} of {len(w_group)} at d_model = {w}"
                           for w, w_group in group.groupby("d_model"))
        parts.append(f"{budget / 1e6:g}M tokens per model: {widths}")
    return text + "; per budget, the cells where it rises: " + "; ".join(parts) + "."
