"""Data-side predictors of the real-corpus diagnostics (Appendix B), from token streams only.

* the lag-MI predictor (``lag_mi``, ``lag_mi_operator``): mutual information between characters k
  apart, bias-corrected, against a permutation null — the paper's "lag-MI / operator estimate" (B.1);
* the unigram entropy H₁ (``unigram_entropy``) and the conditional entropy H(x_t | x_{t−1})
  (``conditional_entropy``), a data-only alternative reading of H₁;
* from ``corpus_operators``, re-exported here: the lag canonical-dependence operator (``lag_operator``),
  a second reading over a common symbol budget, and the two ablations of App. B.4, ``ridge_operator``
  and ``repeat_operator``.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..spectral import effective_rank
from .operators import (
    LagOperator,
    lag_operator,
    lag_operator_rank,
    repeat_operator,
    repeat_operator_rank,
    ridge_operator,
    token_stream,
)

__all__ = ["RULES", "LagMI", "LagOperator", "conditional_entropy", "lag_mi", "lag_mi_operator", "lag_mi_operator_rank",
           "lag_operator", "lag_operator_rank", "repeat_operator", "repeat_operator_rank", "ridge_operator",
           "unigram_entropy"]


@dataclass
class LagMI:
    """The lag mutual-information profile of a token stream (see :func:`lag_mi`).

    Attributes
    ----------
    mi : (K,) plug-in mutual information I(x_t; x_{t−k}) in nats, lags k = 1 … K.
    null_mean : the mean of the same statistic where there is no dependence at the lag (circularly shifted
        or shuffled copies of the stream, same letter frequencies): the estimator's bias.
    threshold : the level a lag's MI must exceed to count as informative (the rule's noise level).
    excess : (K,) ``mi − null_mean`` at the informative lags, 0 elsewhere.
    informative_lags : how many lags exceed ``threshold``.
    effective_lags : exp of the Shannon entropy of ``excess / Σ excess`` (eq. 1 applied to the profile):
        how many lags carry the dependence, 1 when one lag carries all of it, 0 when none does.
    total : Σ excess, the dependence summed over lags (nats).
    rule : ``"shift"``, ``"max"`` or ``"lag1"`` (see :func:`lag_mi`).
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
    t = token_stream(tokens)
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


RULES = ("shift", "max", "lag1")


def lag_mi(tokens, max_lag: int = 64, min_count: int = 20, null_permutations: int = 20, seed: int = 0,
           rule: str = "shift") -> LagMI:
    """The paper's "lag-MI" data-side predictor (App. B.1): how much the character k back tells about the
    next one, for k = 1 … ``max_lag``, against what an estimator finds in a text without dependence.

    I_k is the plug-in mutual information between x_t and x_{t−k} over the corpus's symbols (those seen
    fewer than ``min_count`` times pooled). The plug-in estimate is biased upward by about
    (K − 1)²/(2N) nats; instead of a formula, the bias and the noise level come from a **permutation
    null**: ``null_permutations`` shuffled copies of the stream (drawn from ``seed``), which keep every
    letter frequency and destroy every dependence. A lag's excess over the null's mean is its
    bias-corrected dependence. Which lags count as informative is the ``rule``:

    * ``"shift"`` (the default): the null copies are **circular shifts** of the stream, not shuffles: copy j
      pairs x_t with x_{t−k−s_j}, the stream rolled by a shift s_j drawn uniformly from [N/4, 3N/4] (far beyond
      any lag measured). A shift keeps what a shuffle destroys, the stream's own autocorrelation, which lowers
      the effective number of independent pairs and raises the plug-in bias: a shuffled null underestimates
      that bias on an autocorrelated stream and counts it as dependence at every lag (a lag-1 copy chain gets
      all 64 lags "informative" under shuffles). The decision is the ``"max"`` rule's, over the shifted copies.
    * ``"max"`` (the earlier rule, a second reading): the profile I_1 … I_K of every shuffled copy is computed,
      and a lag is informative when its I_k exceeds the **largest value over all lags of every shuffled copy**: its
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
    if rule in ("shift", "max") and null_permutations < 19:
        raise ValueError(f"the max-over-lags rule needs null_permutations ≥ 19 for a 5 % level, got "
                         f"{null_permutations}")
    mi = np.array([_mutual_information(s[k:], s[:-k], K) for k in range(1, max_lag + 1)])
    rng = np.random.default_rng(seed)
    if rule == "lag1":
        null = np.array([_mutual_information(s[1:], rng.permutation(s)[:-1], K) for _ in range(null_permutations)])
        threshold, null_mean = float(np.quantile(null, 0.95)), float(null.mean())
    elif rule == "shift":
        shifts = rng.integers(len(s) // 4, 3 * len(s) // 4 + 1, null_permutations)
        profiles = np.array([[_mutual_information(s[k:], c[:-k], K) for k in range(1, max_lag + 1)]
                             for c in (np.roll(s, int(shift)) for shift in shifts)])  # (B, K)
        threshold, null_mean = float(profiles.max()), float(profiles.mean())
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


def unigram_entropy(tokens) -> float:
    """H₁ = −Σ p(a) log p(a) (nats/char) of the unigram frequencies of a token stream."""
    p = np.bincount(token_stream(tokens)) / len(tokens)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def conditional_entropy(tokens) -> float:
    """H(x_t | x_{t−1}) = H(x_{t−1}, x_t) − H(x_{t−1}) (nats/char, plug-in) of a token stream: a data-only
    reading of "H₁" that counts what the previous character already tells (≤ :func:`unigram_entropy`)."""
    t = token_stream(tokens)
    if len(t) < 2:
        raise ValueError(f"need at least two tokens, got {len(t)}")
    V = int(t.max()) + 1
    pairs = np.bincount(t[:-1] * V + t[1:]) / (len(t) - 1)
    pairs = pairs[pairs > 0]
    first = np.bincount(t[:-1]) / (len(t) - 1)
    first = first[first > 0]
    return float(-(pairs * np.log(pairs)).sum() + (first * np.log(first)).sum())
