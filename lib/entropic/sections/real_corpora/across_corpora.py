"""App. B's correlations in both units the paper uses: across the corpora at each width (B.2, B.3 (ii)) and
over every corpus × width cell pooled (B.3 (i)), each beside the |r| its number of points needs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from ...report.numbers import number
from .analysis import cells, correlation
from .grid import grid, main_budget
from .readings import MAIN, MIN_CORPORA, Reading


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
                    found = correlation(results, reading, lambda n, x=x, width=width: x.xs(width, level="d_model")
                                         .loc[n], y)
                    unit = f"corpora at d_model = {width}"
                if found is None:
                    continue
                r, p, _, (low, high), n = found
                rows.append({"budget": tag, "unit": unit, "pair": name, "points": n, "Pearson r": r,
                             "p (permutation)": p, "|r| needed for p < 0.05": stats.critical_r(n),
                             "95 % seed interval": f"{number(low, 2)} to {number(high, 2)}"
                             if width is not None else "—"})
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
            "H(xₜ | xₜ₋₁) vs FFN stable rank": (per_cell("conditional_entropy"), "ffn_in_stable_rank")}


def pooled(x, y):
    """(r, permutation p, 0, (r, r), points) of Pearson between two per-cell series over every cell (the
    cells of one corpus are not independent: widths share the corpus, so the p-value is optimistic)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < MIN_CORPORA:
        return None
    r = stats.pearson(x[keep], y[keep])
    return r, stats.permutation_p(x[keep], y[keep]), 0.0, (r, r), int(keep.sum())
