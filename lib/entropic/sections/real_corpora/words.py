"""The words App. B's tables show for what the code names: measures, predictors, readings and claims.

A table of the page never shows a code name as a header or a row label: ``in_words`` renames a frame's
columns, index names and index values, and ``reading_words`` a reading's label ("full_rank: numerical ≥
0.9 T" → "full rank: numerical ≥ 0.9 T"). ``specification_tables`` splits the specification table
(``tables.specification``: claims × readings) into what fits a page: one summary row per claim, and the
full matrix in two halves. Used by ``notebooks/real_corpora.md``.
"""

from __future__ import annotations

import pandas as pd

from ...report.numbers import tokens
from .readings import ENTROPIES, HOLDS, MEASURES

NAMES = {
    **MEASURES, **ENTROPIES,
    "layer_kernel_rank": "R_eff(Σ_h W_QK^h) per layer", "attention_inverse_simpson": "inverse Simpson of A's rows",
    "ffn_in_stable_rank": "FFN stable rank", "energy_kernel_rank": "R̃_eff(W_QK) per head",
    "layer_energy_kernel_rank": "R̃_eff(Σ_h W_QK^h)",
    "effective_lags": "lag MI: informative lags", "effective_lags_lag1": "lag MI, lag-1 null: informative lags",
    "lag_mi_operator_rank": "lag MI: R_eff of the lag-MI operator", "cca_rank": "canonical correlations (32 symbols)",
    "cca_uncapped_rank": "canonical correlations (all symbols)",
    "val_loss": "validation loss", "tail_val_loss": "validation loss, corpus tail", "train_loss": "training loss",
    "d_model": "width", "full_rank": "full rank", "budget": "budget", "budgets": "budgets",
    "conditional_entropy": "H₁ as the conditional entropy H(xₜ | xₜ₋₁)", "bound d_h": "a head's rank bound",
}
CLAIMS = {
    "pearson": "Pearson sign (B.2)", "spearman": "Spearman sign (B.2)", "cv_seed": "CV_seed below 0.10 (B.3 i)",
    "loss_rank": "loss and rank, r = −0.79 (B.3 ii)", "progress": "tracks fitting progress (B.3 ii)",
    "layers": "layer 1 above layer 0 (B.3 iii)", "layer_values": "layer ranges (B.3 iii)",
    "ffn": "no H₁–FFN relationship (B.3 iii)", "measure_cv": "measures' CV 0.06–0.20 (B.4)",
    "predictor_cv": "predictor's CV 0.66 (B.4)", "ridge": "ridge: full rank (B.4)",
    "repeat": "repeat: separates one corpus (B.4)",
}


def word(name) -> str:
    """The words for one code name (the name itself when it has none)."""
    return NAMES.get(name, CLAIMS.get(name, name)) if isinstance(name, str) else name


def reading_words(label: str) -> str:
    """A reading's label in words: its group and its choice, each renamed."""
    group, sep, choice = label.partition(": ")
    return f"{word(group)}{sep}{word(choice.strip())}" if sep else word(label)


def in_words(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its columns, index names and text index values in words."""
    out = frame.rename(columns=word).rename_axis(index=[word(n) for n in frame.index.names])
    return out.rename(index=lambda v: reading_words(v) if isinstance(v, str) else v)


def specification_tables(spec: pd.DataFrame) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """The specification table as (summary, halves): per claim its mark under the main reading, under how many
    readings the claim holds and the choices its mark changes on; and the readings × claims matrix in two halves."""
    readings = [c for c in spec.columns if c != "flips on"]
    decided = spec[readings].notna().sum(axis=1)
    holds = (spec[readings] == HOLDS).sum(axis=1)
    summary = pd.DataFrame({
        "main reading": spec["main"] if "main" in spec else None,
        "holds under": [f"{h} of {d} readings" for h, d in zip(holds, decided, strict=True)],
        "flips on": [", ".join(word(part.strip()) for part in text.split(",")) if "every reading" not in text
                     else text for text in spec["flips on"]]}, index=spec.index)
    matrix = in_words(spec[readings].T.rename_axis("reading"))
    half = (matrix.shape[1] + 1) // 2
    return in_words(summary.rename_axis("claim")), [matrix.iloc[:, :half], matrix.iloc[:, half:]]


def cell_tables(cells: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-cell table (``analysis.cells``) in two: every measure, then the per-layer kernel ranks, the
    losses and CV_seed."""
    layers = [c for c in cells.columns if str(c).startswith("layer ")]
    cut = cells.columns.get_loc(layers[0]) if layers else len(cells.columns)
    return in_words(cells.iloc[:, :cut]), in_words(cells.iloc[:, cut:])


def with_budgets(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its token budgets (a ``budget`` column or index level) named as the page names them."""
    frame = frame.copy()
    if "budget" in frame.columns:
        frame["budget"] = frame["budget"].map(tokens)
    if "budget" in frame.index.names:
        level = frame.index.names.index("budget")
        frame.index = (frame.index.set_levels(frame.index.levels[level].map(tokens), level=level)
                       if isinstance(frame.index, pd.MultiIndex) else frame.index.map(tokens))
    return frame
