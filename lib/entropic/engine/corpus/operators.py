"""Token-mixing operators estimated from a character stream, for the real-corpus diagnostics (Appendix B).

* the lag canonical-dependence operator (``lag_operator``, ``lag_operator_rank``): a second reading of
  the data-side predictor of B.1, over a common symbol budget;
* the two ablations of App. B.4: a causal operator fitted with fixed random embeddings
  (``ridge_operator``) and the token-space repeat operator (``repeat_operator``, ``repeat_operator_rank``).

The lag-MI predictor of B.1 and the entropies are in ``corpus_predictors``, which re-exports these.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..lm.charlm import eval_windows
from ..spectral import effective_rank, energy_effective_rank

__all__ = ["LagOperator", "lag_operator", "lag_operator_rank", "repeat_operator", "repeat_operator_rank",
           "ridge_operator"]


def token_stream(tokens) -> np.ndarray:
    t = np.asarray(tokens)
    if t.ndim != 1 or not np.issubdtype(t.dtype, np.integer) or t.size == 0 or t.min() < 0:
        raise ValueError(f"tokens must be a non-empty 1-D array of non-negative ids, got {t.dtype} {t.shape}")
    return t.astype(np.int64)


@dataclass
class LagOperator:
    """The lag operator of :func:`lag_operator`.

    Attributes
    ----------
    matrix : (K, lags·K) operator O = [Q_1 | … | Q_lags] over the K symbols kept (pooled one included).
    symbols : (K,) token ids kept, most frequent first when a budget applies, else sorted; −1 marks the
        pooled symbol.
    chi2 : (lags,) χ² mutual information Σ_ab Q_k(a, b)² per lag (≈ 2·MI in nats for weak dependence).
    effective_rank, energy_effective_rank : eq. (1) and eq. (2) of ``matrix``.
    vocab_size : distinct ids in the stream (before any budget or pooling).
    max_rank : K − 1, the largest rank O can have (every Q_k has the left null vector √p).
    """

    matrix: np.ndarray
    symbols: np.ndarray
    chi2: np.ndarray
    effective_rank: float
    energy_effective_rank: float
    vocab_size: int = 0
    max_rank: int = 0

    @property
    def normalized_rank(self) -> float:
        """effective_rank / max_rank, in [0, 1] (0 for a constant stream)."""
        return self.effective_rank / self.max_rank if self.max_rank else 0.0


def lag_operator(tokens, lags: int = 8, min_count: int = 20, symbols: int | None = 32) -> LagOperator:
    """A second reading of the data-side predictor: the lag canonical-dependence operator of a token stream.

    For each lag k = 1..``lags``, with P_k(a, b) = P(x_t = a, x_{t−k} = b) the empirical joint of
    the current token and the token k back, and p the unigram frequencies,

        Q_k(a, b) = P_k(a, b) / √(p(a) p(b)) − √(p(a) p(b)),

    whose singular values are the canonical (maximal) correlations between the one-hot codes of x_t
    and x_{t−k} (the trivial correlation 1 removed), and ‖Q_k‖_F² is the χ² mutual information. The
    operator O = [Q_1 | … | Q_lags] : (K, lags·K) maps the pairwise past to the current token; its
    effective rank (eq. 1) is the number of independent next-token directions the past at those lags
    predicts: 0 for a constant text, K − 1 for a cyclic one, large for an unstructured one (whose Q_k
    are estimation noise spread over all directions).

    **A common symbol budget.** Over each corpus's full alphabet the effective rank mostly counts the
    alphabet: estimation noise fills every one of the K − 1 directions, so across the six corpora of
    App. B the uncapped predictor follows the vocabulary size (Pearson ≈ 0.88 with V). With
    ``symbols=K`` only the K most frequent ids are kept (ties: the smaller id) and every other id is
    pooled into one symbol, so every corpus is measured on K + 1 symbols and the rank is bounded by
    the same K for all: what is compared is the dependence structure, not the alphabet.
    ``symbols=None`` keeps every id (the uncapped definition). Symbols seen fewer than ``min_count``
    times are pooled as well, because the 1/√p weighting turns a symbol seen once into a spurious
    perfect correlation. Computed from the stream given (pass the training split only).

    Parameters
    ----------
    tokens : (T,) non-negative token ids.
    lags : number of lags (≥ 1, < T).
    min_count : rarer ids are pooled.
    symbols : the budget K (≥ 1) of kept ids, or None for all.
    """
    t = token_stream(tokens)
    if lags < 1 or len(t) <= lags:
        raise ValueError(f"lags must lie in [1, {len(t) - 1}] for a stream of {len(t)} tokens, got {lags}")
    if min_count < 1:
        raise ValueError(f"min_count must be at least 1, got {min_count}")
    if symbols is not None and (isinstance(symbols, bool) or int(symbols) < 1):
        raise ValueError(f"symbols must be a positive budget or None, got {symbols}")
    counts = np.bincount(t)
    keep = np.flatnonzero(counts >= min_count)
    if symbols is not None and len(keep) > symbols:
        keep = keep[np.argsort(-counts[keep], kind="stable")[:symbols]]  # most frequent first
    rare = np.setdiff1d(np.flatnonzero(counts > 0), keep)
    mapping = np.full(len(counts), len(keep), dtype=np.int64)
    mapping[keep] = np.arange(len(keep))
    K = len(keep) + (1 if rare.size else 0)
    s = mapping[t]
    kept = keep if not rare.size else np.append(keep, -1)
    blocks, chi2 = [], []
    for k in range(1, lags + 1):
        joint = np.bincount(s[k:] * K + s[:-k], minlength=K * K).reshape(K, K) / (len(s) - k)
        pa, pb = joint.sum(1), joint.sum(0)  # marginals of this lag's pairs: Q_k is exactly centered
        root = np.sqrt(np.outer(pa, pb))
        Q = np.divide(joint, root, out=np.zeros_like(joint), where=root > 0) - root
        blocks.append(Q)
        chi2.append(float((Q**2).sum()))
    operator = np.concatenate(blocks, axis=1)
    return LagOperator(operator, kept, np.array(chi2), float(effective_rank(operator)),
                       float(energy_effective_rank(operator)), int((counts > 0).sum()), K - 1)


def lag_operator_rank(tokens, lags: int = 8, min_count: int = 20, symbols: int | None = 32) -> float:
    """Predicted rank: R_eff (eq. 1) of :func:`lag_operator` (over the common symbol budget)."""
    return lag_operator(tokens, lags, min_count, symbols).effective_rank


def _windows(tokens, context: int, max_windows: int | None) -> np.ndarray:
    x, y = eval_windows(token_stream(tokens), context, max_windows)
    return torch.cat([x, y[:, -1:]], 1).numpy()  # (N, context + 1): the window and its next token


def ridge_operator(tokens, context: int = 64, width: int = 64, ridge: float = 1.0, seed: int = 0,
                   max_windows: int | None = 4096) -> np.ndarray:
    """Ablation of App. B.4: a token-mixing operator fitted with fixed random embeddings.

    Tokens are embedded by a fixed Gaussian E : (V, width), entries N(0, 1/width), drawn from
    ``seed``. Over N non-overlapping windows, X_n : (T, width) embeds tokens 0..T−1 and Y_n embeds
    tokens 1..T (the next token at every position). The causal operator A : (T, T) (A[t, s] = 0 for
    s > t) minimizes Σ_n ‖Y_n − A X_n‖_F² + ridge·‖A‖_F²; row t solves
    (G[:t+1, :t+1] + ridge·I) a = C[t, :t+1] with G = Σ_n X_n X_nᵀ and C = Σ_n Y_n X_nᵀ.
    """
    if ridge <= 0 or width < 1:
        raise ValueError(f"need ridge > 0 and width ≥ 1, got ridge={ridge}, width={width}")
    w = _windows(tokens, context, max_windows)
    E = np.random.default_rng(seed).normal(0.0, 1.0 / np.sqrt(width), (int(w.max()) + 1, width))
    X, Y = E[w[:, :-1]], E[w[:, 1:]]  # (N, T, width)
    G = np.einsum("nsd,nud->su", X, X)
    C = np.einsum("ntd,nsd->ts", Y, X)
    A = np.zeros((context, context))
    for t in range(context):
        A[t, : t + 1] = np.linalg.solve(G[: t + 1, : t + 1] + ridge * np.eye(t + 1), C[t, : t + 1])
    return A


def repeat_operator(tokens, context: int = 64, max_windows: int | None = 4096) -> np.ndarray:
    """Ablation of App. B.4: the token-space repeat operator R : (T, T).

    R[t, s] = P(x_t = x_s) for s < t over non-overlapping windows (how often the token s positions
    back repeats the current one), 0 on and above the diagonal.
    """
    w = _windows(tokens, context, max_windows)[:, :-1]  # (N, T)
    same = (w[:, :, None] == w[:, None, :]).mean(0)
    return np.tril(same, -1)


def repeat_operator_rank(tokens, context: int = 64, max_windows: int | None = 4096) -> float:
    """R_eff (eq. 1) of :func:`repeat_operator`."""
    return float(effective_rank(repeat_operator(tokens, context, max_windows)))
