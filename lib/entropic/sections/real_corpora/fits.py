"""App. B's fits, one function per kind of job (``FITS``): the data side of one corpus, and the training of every
seed of one (corpus, width, budget) with its measurements (see the package docstring)."""

from __future__ import annotations

import numpy as np
import torch

from ...engine.corpus import corpora, predictors
from ...engine.lm import measures as lm
from ...engine.lm.charlm import CharLM, evaluate
from ...engine.lm.train import train_charlm
from ...engine.spectral import effective_rank, numerical_rank
from ...jobs.store import Job


def _corpus(p: dict):
    """The corpus of a job, its three parts and the provenance columns every row carries."""
    corpus = corpora.load_planned(p["corpus"], p["sha256"], user_dir=p["corpus_dir"], max_chars=p["max_chars"],
                                  sources=p["sources"])
    parts = corpora.split_blocks(corpus.tokens, p["block"], p["val_every"], p["tail_fraction"])
    source = {"corpus": corpus.name, "source": corpus.provenance.source, "sha256": corpus.provenance.sha256,
              "matches_pin": corpus.provenance.matches_pin, "note": corpus.provenance.note,
              "bytes": corpus.provenance.bytes, "vocab_size": corpus.vocab_size, "chars": len(corpus.text)}
    return corpus, parts, source


def fit_data(job: Job) -> dict[str, list[dict]]:
    """The data side of one corpus, from its training part only: the lag-MI predictor under its three rules
    (circular-shift null, shuffled null, lag-1 null; three readings each), the canonical-correlation lag
    operator, H₁ and H(x_t | x_{t−1}), and the two B.4 ablation operators (the ridge operator's numerical rank
    at float64 and at float32 precision)."""
    p = job.params
    _, parts, source = _corpus(p)
    train = parts.train
    shift = predictors.lag_mi(train, p["max_lag"], p["min_count"], p["max_null_permutations"], seed=0, rule="shift")
    mi = predictors.lag_mi(train, p["max_lag"], p["min_count"], p["max_null_permutations"], seed=0, rule="max")
    lag1 = predictors.lag_mi(train, p["max_lag"], p["min_count"], p["null_permutations"], seed=0, rule="lag1")
    capped = predictors.lag_operator(train, p["lags"], p["min_count"], p["symbols"])
    uncapped = predictors.lag_operator(train, p["lags"], p["min_count"], None)
    T = p["ablation_context"]
    ridge = predictors.ridge_operator(train, context=T, width=p["ridge_width"], ridge=p["ridge"], seed=0,
                                      max_windows=p["ablation_windows"])
    repeat = predictors.repeat_operator(train, T, p["ablation_windows"])
    row = {**source, "effective_lags_shift": shift.effective_lags, "informative_lags_shift": shift.informative_lags,
           "lag_mi_operator_rank_shift": predictors.lag_mi_operator_rank(shift, p["context"]),
           "effective_lags": mi.effective_lags, "informative_lags": mi.informative_lags,
           "lag_mi_operator_rank": predictors.lag_mi_operator_rank(mi, p["context"]), "mi_total": mi.total,
           "effective_lags_lag1": lag1.effective_lags, "informative_lags_lag1": lag1.informative_lags,
           "lag_mi_operator_rank_lag1": predictors.lag_mi_operator_rank(lag1, p["context"]),
           "cca_rank": capped.effective_rank, "cca_energy_rank": capped.energy_effective_rank,
           "cca_max_rank": capped.max_rank, "cca_uncapped_rank": uncapped.effective_rank,
           "unigram_entropy": predictors.unigram_entropy(train),
           "conditional_entropy": predictors.conditional_entropy(train), "ablation_context": T,
           "ridge_rank": float(effective_rank(ridge)),
           "ridge_numerical_rank": int(numerical_rank(ridge, rtol=T * float(np.finfo(np.float64).eps))),
           "ridge_numerical_rank_float32": int(numerical_rank(ridge)),
           "repeat_rank": float(effective_rank(repeat)), "repeat_numerical_rank": int(numerical_rank(repeat))}
    profile = [{"corpus": source["corpus"], "lag": k + 1, "mi": float(mi.mi[k]), "excess_shift": float(shift.excess[k]),
                "excess": float(mi.excess[k]), "excess_lag1": float(lag1.excess[k])} for k in range(len(mi.mi))]
    nulls = [{"corpus": source["corpus"], "rule": m.rule, "null_mean": m.null_mean, "threshold": m.threshold}
             for m in (shift, mi, lag1)]
    return {"predictor": [row], "lag_mi": profile, "lag_mi_null": nulls}


def fit_train(job: Job, scratch=None) -> dict[str, list[dict]]:
    """Train every seed of one (corpus, width, budget) at once, measuring every model at each checkpoint:
    both validation losses, the recent training loss, every App. B.1 measure per layer and head, and the
    singular values of every matrix measured (the ``spectra`` table: later readings need no training).
    ``scratch`` (a file the runner provides) holds the training state between checkpoints, so an
    interrupted job resumes from its last checkpoint."""
    p = job.params
    corpus, parts, source = _corpus(p)
    model = CharLM(p["seeds"], corpus.vocab_size, p["context"], p["d_model"], p["layers"], p["heads"])
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokens_per_step = p["batch_size"] * p["context"]
    cell = {"corpus": corpus.name, "d_model": p["d_model"], "budget": p["tokens"]}

    def measure(step, model):
        val = evaluate(model, parts.interleaved, p["context"], p["eval_windows"])
        tail = evaluate(model, parts.tail, p["context"], p["eval_windows"])
        point = {**cell, "step": step, "tokens": step * tokens_per_step, "fraction": step / p["steps"]}
        models = [{**point, "seed": seed, "val_loss": float(val[m]), "tail_val_loss": float(tail[m])}
                  for m, seed in enumerate(p["seeds"])]
        rows, spectra = lm.measure_charlm_spectra(model, parts.interleaved, max_windows=p["measure_windows"])
        return {"models": models, "heads": [{**point, **row} for row in rows],
                "spectra": [{**point, **row} for row in spectra]}

    result = train_charlm(model, parts.train, p["steps"], p["batch_size"], lr=p["lr"],
                          weight_decay=p["weight_decay"], progress=False, device=device,
                          checkpoints=p["checkpoints"], on_checkpoint=measure, state_path=scratch)
    models, heads, spectra = [], [], []
    for step, measured in result.checkpoints:
        recent = result.history[max(0, step - max(1, step // 10)):step]  # the last tenth before the checkpoint
        for row in measured["models"]:
            m = p["seeds"].index(row["seed"])
            models.append({**source, **row, "train_loss": float(recent[:, m].mean()),
                           "train_seconds": result.seconds, "seconds_per_model": result.seconds / model.M})
        heads += measured["heads"]
        spectra += measured["spectra"]
    return {"models": models, "heads": heads, "spectra": spectra}


# Each kind of job has its own function, so its version key covers only the code that kind runs:
# the predictors can change without sending hours of training back to the queue.
FITS = {"data": fit_data, "train": fit_train}


def fit(job: Job, scratch=None) -> dict[str, list[dict]]:
    kind = job.params["kind"]
    return fit_train(job, scratch) if kind == "train" else FITS[kind](job)
