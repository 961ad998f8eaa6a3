"""Which stored rows of App. B a reading uses: the grid (corpus × width × seed at each budget), its
budgets and their completeness, and the per-seed and per-cell tables every claim is computed from.

The long run (one model far past the budgets, ``Config.long_*``) is stored beside the grid but is never
part of it: ``grid`` leaves its rows out (``long_run`` reads them). Readings of a spectral measure the
models did not store as a number (eq. 2, eq. 2 of the per-layer kernel) are computed here from the
stored singular values (the ``spectra`` table) where a cell has them, and are absent (NaN) elsewhere.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ...engine.spectral import effective_rank_from_spectrum, energy_effective_rank_from_spectrum

# Readings of a spectrum: (matrix in the spectra table, per head?, function).
FROM_SPECTRA = {
    "energy_kernel_rank": ("W_QK", True, energy_effective_rank_from_spectrum),
    "layer_energy_kernel_rank": ("layer_W_QK", False, energy_effective_rank_from_spectrum),
    "spectrum_kernel_rank": ("W_QK", True, effective_rank_from_spectrum),  # eq. 1 again: a check of the store
}
_POINT = ["budget", "corpus", "d_model", "step", "seed", "layer"]


def availability(cfg) -> pd.DataFrame:
    """One row per corpus asked for: found (source, bytes, sha256, pin) or missing (where to put it)."""
    from .spec import locate

    rows = []
    for name, found in locate(cfg).items():
        if isinstance(found, str):
            rows.append({"corpus": name, "status": "missing", "source": "—", "bytes": None, "sha256": "—",
                         "matches pin": False, "where to put it": found.split("; ")[-1]})
        else:
            rows.append({"corpus": name, "status": "found", "source": found.source, "bytes": found.bytes,
                         "sha256": found.sha256[:16] + "…", "matches pin": found.matches_pin, "where to put it": ""})
    return pd.DataFrame(rows).set_index("corpus")


def corpora_table(results) -> pd.DataFrame:
    """One row per corpus asked for: what its stored results were computed from (where the text was found then, its
    size, its sha256, whether that matches the pin), then whether its text is on this machine. The stored columns
    are the results', so that a clone without the texts shows the same table but for the last column."""
    here = availability(results.cfg)
    stored = (results["predictor"].drop_duplicates("corpus").set_index("corpus") if "predictor" in results.tables
              else pd.DataFrame(columns=["source", "bytes", "sha256", "matches_pin"]))
    rows = []
    for name in here.index:
        own = stored.loc[name] if name in stored.index else None
        rows.append({"corpus": name, "stored from": "not stored" if own is None else own["source"],
                     "bytes": None if own is None else int(own["bytes"]),
                     "sha256": "—" if own is None else own["sha256"][:16] + "…",
                     "matches pin": None if own is None else bool(own["matches_pin"]),
                     "on this machine": "found" if here.loc[name, "status"] == "found"
                                        else "missing (make corpora fetches it)"})
    return pd.DataFrame(rows).set_index("corpus")


def grid(results, name: str) -> pd.DataFrame:
    """The rows of table ``name`` ("models", "heads", "spectra") that belong to the grid: budgets of the
    configuration, the long run left out."""
    if name not in results.tables:
        return pd.DataFrame()
    frame = results[name]
    return frame[frame["budget"].isin(results.cfg.budgets)]


def long_rows(results, name: str) -> pd.DataFrame:
    """The long run's rows of table ``name`` (empty when it is not stored)."""
    cfg = results.cfg
    if name not in results.tables or cfg.long_corpus is None:
        return pd.DataFrame()
    frame = results[name]
    return frame[(frame["budget"] == cfg.long_tokens) & (frame["corpus"] == cfg.long_corpus)
                 & (frame["d_model"] == cfg.long_d_model)]


def budgets(results) -> pd.DataFrame:
    """Per budget: how many (corpus, width) cells are stored, of how many, whether the grid is complete,
    and how many of the stored cells carry their spectra."""
    from .spec import planned

    cfg = results.cfg
    models = grid(results, "models")
    expected = len(planned(cfg)) * len(cfg.d_models)  # a pinned corpus not on this machine still has its cells
    cells = models.drop_duplicates(["budget", "corpus", "d_model"]).groupby("budget").size() if len(models) \
        else pd.Series(dtype=int)
    spectra = grid(results, "spectra")
    with_spectra = spectra.drop_duplicates(["budget", "corpus", "d_model"]).groupby("budget").size() \
        if len(spectra) else pd.Series(dtype=int)
    out = pd.DataFrame({"cells stored": cells, "cells asked": expected, "cells with spectra": with_spectra})
    out = out.reindex(sorted(cfg.budgets)).fillna(0)
    out["cells asked"] = expected
    out["complete"] = out["cells stored"] == out["cells asked"]
    return out.astype({"cells stored": int, "cells asked": int, "cells with spectra": int})


def main_budget(results) -> int:
    """The largest budget whose grid is complete; else the budget with the most cells stored."""
    table = budgets(results)
    complete = table.index[table["complete"]]
    return int(complete.max()) if len(complete) else int(table["cells stored"].idxmax())


def spectral_readings(spectra: pd.DataFrame) -> pd.DataFrame:
    """Per (budget, corpus, width, step, seed, layer, head): every reading of ``FROM_SPECTRA`` computed from
    the stored singular values (head NaN for the per-layer ones, which are then broadcast to every head)."""
    if spectra.empty:
        return pd.DataFrame(columns=[*_POINT, "head", *FROM_SPECTRA])
    out = None
    for column, (matrix, per_head, reading) in FROM_SPECTRA.items():
        own = spectra[spectra["matrix"] == matrix]
        values = [reading(v) for v in own["values"]]
        keys = _POINT + (["head"] if per_head else [])
        frame = own[keys].assign(**{column: values})
        out = frame if out is None else out.merge(frame, on=keys if per_head else _POINT, how="outer")
    out["head"] = out["head"].astype(float)
    return out


def per_results(function):
    """``function(results, ...)`` computed once per results object and arguments: the page, its prose and the
    ledger ask for the same table under the same reading many times (the specification table alone computes every
    claim under some fifty readings). The values of the newest results object are kept; a table comes back as a
    copy, so that a caller's edit never reaches the next caller."""
    kept: dict = {}

    @functools.wraps(function)
    def cached(results, *args, **kwargs):
        if kept.get("results") is not results:
            kept.clear()
            kept["results"] = results
        key = (args, tuple(sorted(kwargs.items())))
        if key not in kept:
            kept[key] = function(results, *args, **kwargs)
        value = kept[key]
        return value.copy() if isinstance(value, pd.DataFrame) else value

    return cached


@per_results
def heads(results) -> pd.DataFrame:
    """The grid's per-head rows with the readings computed from stored spectra added (NaN where a cell
    has none)."""
    rows = grid(results, "heads")
    readings = spectral_readings(grid(results, "spectra"))
    merged = rows.assign(head=rows["head"].astype(float)).merge(readings, on=[*_POINT, "head"], how="left") \
        if len(rows) else rows
    for column in FROM_SPECTRA:
        if column not in merged:
            merged[column] = np.nan
    return merged


def point(results, reading):
    """The grid's heads and models rows at the reading's budget and checkpoint, and that budget."""
    budget = reading.budget or main_budget(results)
    rows, models = heads(results), grid(results, "models")
    rows = rows[(rows["budget"] == budget) & np.isclose(rows["fraction"], reading.fraction)]
    models = models[(models["budget"] == budget) & np.isclose(models["fraction"], reading.fraction)]
    return rows, models, budget


def per_seed(results, reading, measures) -> pd.DataFrame:
    """One row per (corpus, d_model, seed): every measure averaged over layers and heads, per layer the
    reading's kernel rank, the FFN stable rank and both validation losses, at the reading's budget and
    checkpoint. Models without the reading's kernel (a spectral reading of a cell stored before spectra
    were kept) are left out."""
    rows, models, _ = point(results, reading)
    rows = rows[rows[reading.kernel].notna()]
    keys = ["corpus", "d_model", "seed"]
    columns = list(dict.fromkeys([*measures, reading.kernel, "layer_kernel_rank", "attention_inverse_simpson",
                                  "ffn_in_stable_rank"]))
    out = rows.groupby(keys)[columns].mean()
    layers = rows.groupby([*keys, "layer"])[reading.kernel].mean().unstack("layer")
    out[[f"layer {k}" for k in layers.columns]] = layers
    losses = models.set_index(keys)[["val_loss", "tail_val_loss", "train_loss"]]
    out = out.join(losses, how="left")
    return out.reset_index()


def cv(grouped):
    """Population coefficient of variation of every group (App. C.5's CV_seed), computed at once."""
    return grouped.std(ddof=0) / grouped.mean().abs()


def cells(seeds: pd.DataFrame, kernel: str) -> pd.DataFrame:
    """One row per (corpus, d_model): seed means, and CV_seed of the reading's kernel rank."""
    keys = ["corpus", "d_model"]
    out = seeds.drop(columns="seed").groupby(keys).mean()
    out["CV_seed"] = cv(seeds.groupby(keys)[kernel])
    return out
