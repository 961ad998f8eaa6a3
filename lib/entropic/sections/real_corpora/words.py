"""The words App. B's tables show for what the code names: measures, predictors, readings and claims.

A table of the page never shows a code name as a header or a row label: ``in_words`` renames a frame's
columns, index names and index values, and ``reading_words`` a reading's label ("full_rank: numerical ≥
0.9 T" → "full rank: numerical ≥ 0.9 T"). ``specification_tables`` splits the specification table
(``tables.specification``: claims × readings) into what fits a page: one summary row per claim, and the
full matrix in two halves, each captioned by its own claims (``part_caption``); ``long_run_table`` writes
the long run's readings as the prose does (tokens as 61.44M, a change as −5.77 %). Used by
``notebooks/real_corpora.md``.
"""

from __future__ import annotations

import pandas as pd

from ...report.numbers import tokens
from . import long_run
from .readings import ENTROPIES, FAILS, HOLDS, OPEN

NAMES = {
    **ENTROPIES,
    "static_kernel_rank": r"$R_\mathrm{eff}(W_{QK})$", "mean_attention_rank": r"$R_\mathrm{eff}(\mathbb{E}[A])$",
    "per_input_attention_rank": r"$\mathbb{E}_X[R_\mathrm{eff}(A(X))]$",
    "attention_participation_ratio": r"$\mathrm{PR}(\mathbb{E}[A])$",
    "whitened_kernel_rank": r"$R_\mathrm{eff}(W_{QK}\Sigma_X^{1/2})$",
    "layer_kernel_rank": r"$R_\mathrm{eff}(\sum_h W_{QK}^h)$ per layer",
    "attention_inverse_simpson": "inverse Simpson of A's rows",
    "ffn_in_stable_rank": "FFN stable rank", "energy_kernel_rank": r"$\tilde R_\mathrm{eff}(W_{QK})$ per head",
    "layer_energy_kernel_rank": r"$\tilde R_\mathrm{eff}(\sum_h W_{QK}^h)$",
    "R̃_eff(Σ_h W_QK^h), eq. 2": r"$\tilde R_\mathrm{eff}(\sum_h W_{QK}^h)$, eq. 2",
    "effective_lags_shift": "lag MI: informative lags", "effective_lags": "lag MI, shuffled null: informative lags",
    "effective_lags_lag1": "lag MI, lag-1 null: informative lags",
    "lag_mi_operator_rank": "lag MI: R_eff of the lag-MI operator", "cca_rank": "canonical correlations (32 symbols)",
    "cca_uncapped_rank": "canonical correlations (all symbols)",
    "val_loss": "validation loss", "tail_val_loss": "validation loss, corpus tail", "train_loss": "training loss",
    "d_model": "width", "full_rank": "full rank", "budget": "budget", "budgets": "budgets",
    "bound d_h": "a head's rank bound",
}
CLAIMS = {
    "pearson": "Pearson sign (B.2)", "spearman": "Spearman sign (B.2)", "cv_seed": "CV_seed below 0.10 (B.3 i)",
    "loss_rank": "loss and rank, r = −0.79 (B.3 ii)", "progress": "tracks fitting progress (B.3 ii)",
    "layers": "layer 1 above layer 0 (B.3 iii)", "layer_values": "layer ranges (B.3 iii)",
    "ffn": "no H₁–FFN relationship (B.3 iii)", "measure_cv": "measures' CV 0.06–0.20 (B.4)",
    "predictor_cv": "predictor's CV 0.66 (B.4)", "ridge": "ridge: full rank (B.4)",
    "repeat": "repeat: separates one corpus (B.4)",
}


GROUPS = {  # what each group of readings changes (``readings.ALTERNATIVES``, and the budgets and widths)
    "predictor": "predictor", "kernel": "kernel", "participation": "participation ratio",
    "full_rank": "meaning of 'full rank'", "separates": "threshold of 'separates'", "split": "validation split",
    "progress": "sense of 'tracks fitting progress'", "entropy": "reading of H₁", "budget": "budget", "width": "width",
}


def word(name) -> str:
    """The words for one code name (the name itself when it has none)."""
    return NAMES.get(name, CLAIMS.get(name, name)) if isinstance(name, str) else name


def group_words(group: str) -> str:
    """What a group of readings changes, in words ("full_rank" → "full rank")."""
    return GROUPS.get(group.strip(), word(group.strip()))


def reading_words(label: str) -> str:
    """A reading's label in words: its group and its choice, each renamed."""
    group, sep, choice = label.partition(": ")
    return f"{group_words(group)}{sep}{word(choice.strip())}" if sep else word(label)


def changes_with(text: str) -> str:
    """A specification row's "flips on" (groups of readings, comma-separated) in words: "budget and width"."""
    if "every reading" in text:
        return text
    groups = [group_words(part) for part in text.split(",")]
    return ", ".join(groups[:-1]) + " and " + groups[-1] if len(groups) > 1 else groups[0]


def in_words(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its columns, index names and text index values in words."""
    out = frame.rename(columns=word).rename_axis(index=[word(n) for n in frame.index.names])
    return out.rename(index=lambda v: reading_words(v) if isinstance(v, str) else v)


MARKS = {HOLDS: "✓ holds", FAILS: "✗ fails", OPEN: "○ not decided"}  # a claim's mark under one reading


def specification_tables(spec: pd.DataFrame) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """The specification table as (summary, halves): per claim, under how many readings it is decided and how
    many give each mark, and the choices its mark changes with; and the readings × claims matrix in two halves.
    The summary holds no verdict (the main table's is the claim's), only counts of readings."""
    readings = [c for c in spec.columns if c != "flips on"]
    summary = pd.DataFrame({"readings": spec[readings].notna().sum(axis=1),
                            **{label: (spec[readings] == mark).sum(axis=1) for mark, label in MARKS.items()},
                            "the mark changes with": [changes_with(text) for text in spec["flips on"]]},
                           index=spec.index)
    matrix = in_words(spec[readings].T.rename_axis("reading"))
    half = (matrix.shape[1] + 1) // 2
    return in_words(summary.rename_axis("claim")), [matrix.iloc[:, :half], matrix.iloc[:, half:]]


def part_caption(part: pd.DataFrame) -> str:
    """The caption of one half of the readings × claims matrix, naming its own claims."""
    claims = list(part.columns)
    which = f"“{claims[0]}”" if len(claims) == 1 else f"“{claims[0]}” to “{claims[-1]}” ({len(claims)} claims)"
    return (f"The marks of the claims {which} under every reading (rows): ✓ the claim holds under that reading, ✗ it "
            f"fails, ○ not decided (a correlation's sign not decided at p < 0.05, or a reading the declared long-run "
            f"rule finds still moving).")


def long_run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The long run's readings against the paper's layer ranges (``long_run.verdicts``), written as the prose
    writes them: tokens as 61.44M, the change over the last doubling in per cent."""
    if frame.empty:
        return frame
    out = frame.copy()
    out["tokens"] = out["tokens"].map(tokens)
    out["change over the last doubling"] = out["change over the last doubling"].map(long_run.percent)
    return out.rename(columns={"ours": "ours (mean over heads)", "outcome": "by the declared rule"})


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
