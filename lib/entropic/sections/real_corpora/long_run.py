"""How far is "trained"? The long run of App. B: one model (``Config.long_corpus``, ``long_d_model``,
``long_seed``) trained to ``long_tokens`` and measured at every doubling of its tokens, read against the
paper's layer ranges (App. B.3 (iii)) by the rule declared before it ran (``declared.DECLARED``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...report.numbers import DASH, MINUS, number
from .grid import long_rows, per_results, spectral_readings

RANGES = {0: (13.0, 19.0), 1: (30.0, 44.0)}  # "Layer 0 has R_eff ≈ 13–19 while Layer 1 has R_eff ≈ 30–44"
ROUNDING = 0.5  # the paper writes whole numbers: 13–19 stands for [12.5, 19.5]
SETTLED = 0.02  # a reading that changed by less than 2 % over the last doubling of tokens has settled
SUPPORTS, CONTRADICTS, UNDECIDED = "supports", "contradicts", "undecided: still moving"


@per_results
def trajectory(results) -> pd.DataFrame:
    """Per checkpoint of the long run and layer: tokens, validation loss, the mean over heads of R_eff(W_QK)
    (eq. 1) and, from the stored spectra, R̃_eff(W_QK) (eq. 2); and the relative change of eq. 1 since the
    checkpoint with half the tokens (NaN where there is none). Empty when the long run is not stored."""
    heads, models = long_rows(results, "heads"), long_rows(results, "models")
    if heads.empty:
        return pd.DataFrame(columns=["tokens", "layer", "val_loss", "R_eff (eq. 1)", "R̃_eff (eq. 2)",
                                     "change over the last doubling"])
    out = heads.groupby(["step", "tokens", "layer"])["static_kernel_rank"].mean().rename("R_eff (eq. 1)")
    out = out.reset_index()
    spectra = spectral_readings(long_rows(results, "spectra"))
    if len(spectra):
        energy = spectra.groupby(["step", "layer"])["energy_kernel_rank"].mean().rename("R̃_eff (eq. 2)")
        out = out.merge(energy.reset_index(), on=["step", "layer"], how="left")
    else:
        out["R̃_eff (eq. 2)"] = np.nan
    loss = models.groupby("step")["val_loss"].mean()
    out["val_loss"] = out["step"].map(loss)
    by = out.set_index(["step", "layer"])["R_eff (eq. 1)"]
    out["change over the last doubling"] = [
        (value / by[(step // 2, layer)] - 1) if step % 2 == 0 and (step // 2, layer) in by.index else np.nan
        for step, layer, value in zip(out["step"], out["layer"], out["R_eff (eq. 1)"], strict=True)]
    return out.sort_values(["layer", "tokens"]).reset_index(drop=True)


def percent(change: float) -> str:
    """A relative change as the page writes it, in the table and in the prose alike: +17.7 %, −5.77 %."""
    if not np.isfinite(change):
        return DASH
    return ("+" if change > 0 else MINUS if change < 0 else "") + f"{number(abs(100 * change))} %"


def outcome(value: float, change: float, low: float, high: float) -> str:
    """The declared rule: inside the paper's range (at its rounding) supports; outside and settled (changed
    by less than ``SETTLED`` over the last doubling) contradicts; outside and still moving is undecided."""
    if low - ROUNDING <= value <= high + ROUNDING:
        return SUPPORTS
    return CONTRADICTS if np.isfinite(change) and abs(change) < SETTLED else UNDECIDED


def verdicts(results, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per layer with a paper range: the paper's range, the long run's last reading, its change over the last
    doubling of tokens and the declared rule's outcome (from ``table``, the run's :func:`trajectory`, when the
    caller has it). Empty when the long run is not stored."""
    table = trajectory(results) if table is None else table
    rows = []
    for layer, (low, high) in RANGES.items():
        own = table[table["layer"] == layer]
        if own.empty:
            continue
        last = own.iloc[-1]
        change = float(last["change over the last doubling"])
        rows.append({"layer": layer, "paper says": f"R_eff ≈ {low:g}–{high:g}",
                     "tokens": int(last["tokens"]), "ours": float(last["R_eff (eq. 1)"]),
                     "change over the last doubling": change,
                     "outcome": outcome(float(last["R_eff (eq. 1)"]), change, low, high)})
    return pd.DataFrame(rows)
