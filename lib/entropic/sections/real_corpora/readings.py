"""The readings of App. B: one choice for each thing the paper leaves open (see ``analysis``), the names
of the measures and predictors, and the readings computed from stored spectra.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .grid import FROM_SPECTRA, grid, spectral_readings

MEASURES = {"static_kernel_rank": "R_eff(W_QK)", "mean_attention_rank": "R_eff(E[A])",
            "per_input_attention_rank": "E_X[R_eff(A(X))]", "attention_participation_ratio": "PR(E[A])",
            "whitened_kernel_rank": "R_eff(W_QK Σ^½)"}
PREDICTORS = {"effective_lags_shift": "lag MI: effective number of informative lags",
              "effective_lags": "lag MI, the shuffled null: effective number of informative lags",
              "effective_lags_lag1": "lag MI, the earlier lag-1 null: effective number of informative lags",
              "lag_mi_operator_rank": "lag MI: R_eff of the lag-MI operator",
              "cca_rank": "canonical-correlation lag operator (32 symbols)",
              "cca_uncapped_rank": "canonical-correlation lag operator (all symbols)"}
MIN_CORPORA = 3  # a correlation (or an outlier) across fewer corpora is undefined
HOLDS, FAILS, OPEN = "✓", "✗", "○"  # a claim under one reading: holds, fails, not significant (sign undecided)


@dataclass(frozen=True)
class Reading:
    """One choice for each thing App. B leaves open (see the module docstring)."""

    predictor: str = "effective_lags_shift"  # the circular-shift null (declared); "effective_lags": shuffled
    kernel: str = "static_kernel_rank"  # per head, eq. 1; "layer_kernel_rank": per layer; eq. 2 from spectra
    participation: str = "attention_participation_ratio"  # spectral; "attention_inverse_simpson": per row
    full_rank: str = "numerical = T (float64)"  # or "numerical = T (float32)", "numerical ≥ 0.9 T", "R_eff ≥ 0.9 T"
    separates: float = 3.0  # robust z-score above which the repeat operator sets a corpus apart
    budget: int | None = None  # tokens per model; None: the largest budget whose grid is complete
    fraction: float = 1.0  # the checkpoint (share of the budget)
    split: str = "val_loss"  # interleaved blocks; "tail_val_loss": the corpus's tail
    width: int | None = None  # the d_model of the correlations; None: the largest
    progress: str = "across corpora"  # "within each run": our reading of "tracks fitting progress"
    entropy: str = "unigram_entropy"  # H₁; "conditional_entropy": H(x_t | x_{t−1})


MAIN = Reading()
ALTERNATIVES = {
    "predictor": [p for p in PREDICTORS if p != MAIN.predictor],
    "kernel": ["layer_kernel_rank", "energy_kernel_rank", "layer_energy_kernel_rank"],
    "participation": ["attention_inverse_simpson"],
    "full_rank": ["numerical = T (float32)", "numerical ≥ 0.9 T", "R_eff ≥ 0.9 T"],
    "separates": [2.5, 2.0],
    "split": ["tail_val_loss"],
    "progress": ["within each run"],
    "entropy": ["conditional_entropy"],
}
KERNELS = {"static_kernel_rank": "R_eff(W_QK) per head, eq. 1", "layer_kernel_rank": "R_eff(Σ_h W_QK^h), eq. 1",
           "energy_kernel_rank": "R̃_eff(W_QK) per head, eq. 2 (stored spectra)",
           "layer_energy_kernel_rank": "R̃_eff(Σ_h W_QK^h), eq. 2 (stored spectra)"}
ENTROPIES = {"unigram_entropy": "H₁ as the unigram entropy",
             "conditional_entropy": "H₁ as the conditional entropy H(xₜ | xₜ₋₁)"}


def spectra_table(results) -> pd.DataFrame:
    """Per cell that stored its spectra (budget, corpus, d_model) and layer, at the final checkpoint: the seed
    and head means of R_eff(W_QK) as measured (eq. 1) and recomputed from the stored singular values, the
    energy effective rank R̃_eff (eq. 2) per head and of the layer's kernel Σ_h W_QK^h, and the bound d_h."""
    spectra = grid(results, "spectra")
    if spectra.empty:
        return pd.DataFrame()
    final = spectra[spectra["fraction"] == 1.0] if "fraction" in spectra else spectra
    readings = spectral_readings(final)
    heads = grid(results, "heads")
    keys = ["budget", "corpus", "d_model", "layer"]
    measured = heads[heads["fraction"] == 1.0].groupby(keys)["static_kernel_rank"].mean()
    out = readings.groupby(keys)[list(FROM_SPECTRA)].mean().join(measured, how="left")
    out = out.rename(columns={"static_kernel_rank": "R_eff(W_QK), eq. 1, as measured",
                              "spectrum_kernel_rank": "R_eff(W_QK), eq. 1, from the spectra",
                              "energy_kernel_rank": "R̃_eff(W_QK), eq. 2",
                              "layer_energy_kernel_rank": "R̃_eff(Σ_h W_QK^h), eq. 2"})
    out["bound d_h"] = [d // results.cfg.heads for d in out.index.get_level_values("d_model")]
    return out
