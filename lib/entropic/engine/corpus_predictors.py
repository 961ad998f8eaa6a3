"""Data-side predictors of the real-corpus diagnostics (Appendix B), from token streams only.

* the lag-MI predictor (``lag_mi``, ``lag_mi_operator``): mutual information between characters k
  apart, bias-corrected, against a permutation null — the paper's "lag-MI / operator estimate" (B.1);
* the lag canonical-dependence operator (``lag_operator``): a second reading, over a common symbol budget;
* the unigram entropy H₁ (``unigram_entropy``) and the conditional entropy H(x_t | x_{t−1})
  (``conditional_entropy``), a data-only alternative reading of H₁;
* the two ablations of App. B.4: ``ridge_operator`` and ``repeat_operator``.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .charlm import eval_windows
from .spectral import effective_rank, energy_effective_rank


def _stream(tokens) -> np.ndarray:
    t = np.asarray(tokens)
    if t.ndim != 1 or not np.issubdtype(t.dtype, np.integer) or t.size == 0 or t.min() < 0:
        raise ValueError(f"tokens must be a non-empty 1-D array of non-negative ids, got {t.dtype} {t.shape}")
    return t.astype(np.int64)


@dataclass
class LagMI:
    """The lag mutual-information profile of a token stream (see :func:`lag_mi`).

    Attributes
    ----------
    mi : (K,) plug-in mutual information I(x_t; x_{t−k}) in nats, lags k = 1 … K.
    null_mean : the mean of the same statistic where there is no dependence (shuffled copies of the
        stream, same letter frequencies): the estimator's bias.
    threshold : the level a lag's MI must exceed to count as informative (the rule's noise level).
    excess : (K,) ``mi − null_mean`` at the informative lags, 0 elsewhere.
    informative_lags : how many lags exceed ``threshold``.
    effective_lags : exp of the Shannon entropy of ``excess / Σ excess`` (eq. 1 applied to the profile):
        how many lags carry the dependence, 1 when one lag carries all of it, 0 when none does.
    total : Σ excess, the dependence summed over lags (nats).
    rule : ``"max"`` or ``"lag1"`` (see :func:`lag_mi`).
    """

    mi: np.ndarray
    null_mean: float
    threshold: float
    excess: np.ndarray
    informative_lags: int
    effective_lags: float
    total: float
    rule: str = "max"

    @property
    def null_q95(self) -> float:
        """The threshold under its earlier name (the lag-1 rule's 95 % quantile)."""
        return self.threshold


def _pooled(tokens, min_count: int) -> tuple[np.ndarray, int]:
    """Symbols seen fewer than ``min_count`` times pooled into one; returns (symbol ids, alphabet size)."""
    t = _stream(tokens)
    counts = np.bincount(t)
    keep = np.flatnonzero(counts >= min_count)
    mapping = np.full(len(counts), len(keep), dtype=np.int64)
    mapping[keep] = np.arange(len(keep))
    return mapping[t], len(keep) + int((counts[counts > 0] < min_count).any())


def _mutual_information(a: np.ndarray, b: np.ndarray, K: int) -> float:
    """Plug-in I(a; b) in nats of two aligned symbol streams over K symbols."""
    joint = np.bincount(a * K + b, minlength=K * K).reshape(K, K) / len(a)
    outer = np.outer(joint.sum(1), joint.sum(0))
    mask = joint > 0
    return float((joint[mask] * np.log(joint[mask] / outer[mask])).sum())


RULES = ("max", "lag1")


def lag_mi(tokens, max_lag: int = 64, min_count: int = 20, null_permutations: int = 20, seed: int = 0,
           rule: str = "max") -> LagMI:
    """The paper's "lag-MI" data-side predictor (App. B.1): how much the character k back tells about the
    next one, for k = 1 … ``max_lag``, against what an estimator finds in a text without dependence.

    I_k is the plug-in mutual information between x_t and x_{t−k} over the corpus's symbols (those seen
    fewer than ``min_count`` times pooled). The plug-in estimate is biased upward by about
    (K − 1)²/(2N) nats; instead of a formula, the bias and the noise level come from a **permutation
    null**: ``null_permutations`` shuffled copies of the stream (drawn from ``seed``), which keep every
    letter frequency and destroy every dependence. A lag's excess over the null's mean is its
    bias-corrected dependence. Which lags count as informative is the ``rule``:

    * ``"max"`` (the default): the profile I_1 … I_K of every shuffled copy is computed, and a lag is
      informative when its I_k exceeds the **largest value over all lags of every shuffled copy**: its
      permutation p-value (1 + #{copies whose max over lags ≥ I_k}) / (B + 1) is then 1/(B + 1). The
      test is on the maximum over lags, so the chance that a stream without any dependence shows even
      one informative lag is at most 1/(B + 1) (2.5 % for B = 39): noise is not counted as structure.
    * ``"lag1"`` (the earlier rule, kept as a second reading): the null is I(x_t; shuffled x_{t−1}) at
      lag 1 only, and its 95 % quantile is applied at every lag without correction; on a stream without
      dependence several of 64 lags pass, and their small, nearly equal excesses inflate the count.

    Parameters
    ----------
    tokens : (N,) non-negative token ids, N > max_lag.
    max_lag : K ≥ 1, the longest lag (at least the model's context, to cover what attention can reach).
    null_permutations : B ≥ 2 shuffled copies; the ``"max"`` rule needs B ≥ 19 for a level of 5 % or less.
    """
    s, K = _pooled(tokens, min_count)
    if isinstance(max_lag, bool) or not 1 <= int(max_lag) < len(s):
        raise ValueError(f"max_lag must lie in [1, {len(s) - 1}] for a stream of {len(s)} tokens, got {max_lag}")
    if null_permutations < 2 or min_count < 1:
        raise ValueError(f"need null_permutations ≥ 2 and min_count ≥ 1, got {null_permutations}, {min_count}")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    if rule == "max" and null_permutations < 19:
        raise ValueError(f"the max-over-lags rule needs null_permutations ≥ 19 for a 5 % level, got "
                         f"{null_permutations}")
    mi = np.array([_mutual_information(s[k:], s[:-k], K) for k in range(1, max_lag + 1)])
    rng = np.random.default_rng(seed)
    if rule == "lag1":
        null = np.array([_mutual_information(s[1:], rng.permutation(s)[:-1], K) for _ in range(null_permutations)])
        threshold, null_mean = float(np.quantile(null, 0.95)), float(null.mean())
    else:
        profiles = np.array([[_mutual_information(c[k:], c[:-k], K) for k in range(1, max_lag + 1)]
                             for c in (rng.permutation(s) for _ in range(null_permutations))])  # (B, K)
        threshold, null_mean = float(profiles.max()), float(profiles.mean())
    informative = mi > threshold
    excess = np.where(informative, mi - null_mean, 0.0).clip(min=0.0)
    total = float(excess.sum())
    if total > 0:
        share = excess[excess > 0] / total
        effective = float(np.exp(-(share * np.log(share)).sum()))
    else:
        effective = 0.0
    return LagMI(mi, null_mean, threshold, excess, int(informative.sum()), effective, total, rule)


def lag_mi_operator(mi: LagMI, size: int) -> np.ndarray:
    """The lag-MI profile as a causal token-mixing operator A : (size, size), A[t, s] = excess at lag t − s
    for 1 ≤ t − s ≤ K, else 0: the data's own estimate of how strongly position t should read position s,
    the same kind of (T, T) object as the attention it is set against (the "operator" reading)."""
    if size < 2:
        raise ValueError(f"size must be at least 2, got {size}")
    t, u = np.indices((size, size))
    lag = t - u
    valid = (lag >= 1) & (lag <= len(mi.excess))
    A = np.zeros((size, size))
    A[valid] = mi.excess[lag[valid] - 1]
    return A


def lag_mi_operator_rank(mi: LagMI, size: int) -> float:
    """R_eff (eq. 1) of :func:`lag_mi_operator`; 0 when no lag is informative."""
    return float(effective_rank(lag_mi_operator(mi, size)))


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
    t = _stream(tokens)
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


def unigram_entropy(tokens) -> float:
    """H₁ = −Σ p(a) log p(a) (nats/char) of the unigram frequencies of a token stream."""
    p = np.bincount(_stream(tokens)) / len(tokens)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def conditional_entropy(tokens) -> float:
    """H(x_t | x_{t−1}) = H(x_{t−1}, x_t) − H(x_{t−1}) (nats/char, plug-in) of a token stream: a data-only
    reading of "H₁" that counts what the previous character already tells (≤ :func:`unigram_entropy`)."""
    t = _stream(tokens)
    if len(t) < 2:
        raise ValueError(f"need at least two tokens, got {len(t)}")
    V = int(t.max()) + 1
    pairs = np.bincount(t[:-1] * V + t[1:]) / (len(t) - 1)
    pairs = pairs[pairs > 0]
    first = np.bincount(t[:-1]) / (len(t) - 1)
    first = first[first > 0]
    return float(-(pairs * np.log(pairs)).sum() + (first * np.log(first)).sum())


def _windows(tokens, context: int, max_windows: int | None) -> np.ndarray:
    x, y = eval_windows(_stream(tokens), context, max_windows)
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


