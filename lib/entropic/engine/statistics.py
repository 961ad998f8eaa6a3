"""Statistics across a handful of corpora (Appendix B): coefficients of variation, Pearson and
Spearman correlations, their exact permutation tests and seed-bootstrap intervals, robust outliers, and the
non-increasing least-squares fit of a short curve (the capacity sweep's reading of its loss curves).

With six corpora nothing can be assumed about distributions: every test here is a permutation test,
exact (all n! orders) for n ≤ 8. Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np


def _vector(x, label: str) -> np.ndarray:
    v = np.asarray(x, dtype=np.float64).ravel()
    if v.size < 2 or not np.isfinite(v).all():
        raise ValueError(f"{label} needs at least two finite values, got {v}")
    return v


def coefficient_of_variation(x, ddof: int = 0) -> float:
    """std(x) / |mean(x)| (population std by default): App. C.5's CV_seed over seeds, or a spread across
    corpora. 0 for a single value (no spread to measure); a zero mean raises ValueError."""
    v = np.asarray(x, dtype=np.float64).ravel()
    if v.size == 0 or not np.isfinite(v).all():
        raise ValueError(f"coefficient_of_variation needs finite values, got {v}")
    if v.size == 1:
        return 0.0
    if v.mean() == 0:
        raise ValueError(f"the mean of {v} is zero: CV undefined")
    return float(v.std(ddof=ddof) / abs(v.mean()))


def pearson(x, y) -> float:
    """Pearson correlation of two equally long samples; a constant sample raises ValueError."""
    a, b = _vector(x, "pearson"), _vector(y, "pearson")
    if a.shape != b.shape:
        raise ValueError(f"samples differ in length: {a.size} and {b.size}")
    a, b = a - a.mean(), b - b.mean()
    den = np.sqrt((a**2).sum() * (b**2).sum())
    if den == 0:
        raise ValueError(f"a constant sample has no correlation: {x}, {y}")
    return float((a * b).sum() / den)


def _ranks(v: np.ndarray) -> np.ndarray:
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(1, len(v) + 1)
    for value in np.unique(v):  # ties share their average rank
        tied = v == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def spearman(x, y) -> float:
    """Spearman correlation: Pearson of the (tie-averaged) ranks."""
    return pearson(_ranks(_vector(x, "spearman")), _ranks(_vector(y, "spearman")))


def rowwise(statistic, x, ys) -> np.ndarray:
    """``statistic(x, y)`` for every row ``y`` of the matrix ``ys``: at once for :func:`pearson` and
    :func:`spearman` (a permutation test's thousands of orders, a bootstrap's draws), one call a row for any other
    statistic. A constant row raises ValueError, as the statistic itself does."""
    rows = np.asarray(ys, dtype=np.float64)
    if statistic not in (pearson, spearman):
        return np.array([statistic(x, row) for row in rows])
    a = _vector(x, statistic.__name__)
    if rows.ndim != 2 or rows.shape[1] != a.size or not np.isfinite(rows).all():
        raise ValueError(f"{statistic.__name__} needs rows of {a.size} finite values, got an array of shape "
                         f"{rows.shape}")
    if statistic is spearman:
        a, rows = _ranks(a), np.array([_ranks(row) for row in rows])
    a = a - a.mean()
    centred = rows - rows.mean(axis=1, keepdims=True)
    den = np.sqrt((a**2).sum() * (centred**2).sum(axis=1))
    if (den == 0).any():
        raise ValueError(f"a constant sample has no correlation: {x}, {rows[den == 0][0]}")
    return centred @ a / den


def _paired_orders(x, y, what: str, n_perm: int, seed: int):
    """Two samples of equal length ≥ 3 as vectors, and the orders of the second that a permutation test
    visits: all n! for n ≤ 8, else ``n_perm`` drawn from ``seed``."""
    a, b = _vector(x, what), _vector(y, what)
    if a.size != b.size or a.size < 3:
        raise ValueError(f"need two samples of equal length ≥ 3, got {a.size} and {b.size}")
    if a.size <= 8:
        return a, b, [list(p) for p in itertools.permutations(range(a.size))]
    rng = np.random.default_rng(seed)
    return a, b, [rng.permutation(a.size) for _ in range(n_perm)]


def permutation_threshold(x, y, level: float = 0.05, n_perm: int = 2000, seed: int = 0) -> float:
    """The |Pearson r| a correlation of ``x`` and ``y`` must exceed to be significant at ``level``.

    The (1 − level) quantile of |r| over permutations of ``y`` (all n! of them for n ≤ 8, else
    ``n_perm`` drawn from ``seed``): a two-sided permutation test needing no distributional
    assumption, which matters with six corpora.
    """

    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    a, b, orders = _paired_orders(x, y, "permutation_threshold", n_perm, seed)
    values = np.abs(rowwise(pearson, a, b[np.asarray(orders)]))
    return float(np.quantile(values, 1 - level))


def robust_outliers(x, z: float = 3.0) -> np.ndarray:
    """Which values stand apart: |x − median| > z · 1.4826 · MAD (a robust z-score above ``z``).

    MAD is the median absolute deviation (1.4826·MAD estimates σ for normal data). When more than
    half the values are equal (MAD = 0), every value differing from the median stands apart.
    Returns a boolean array; needs at least three values.
    """
    v = _vector(x, "robust_outliers")
    if v.size < 3:
        raise ValueError(f"robust_outliers needs at least three values, got {v}")
    deviation = np.abs(v - np.median(v))
    mad = np.median(deviation)
    return deviation > z * 1.4826 * mad if mad > 0 else deviation > 0


def permutation_p(x, y, statistic=pearson, n_perm: int = 2000, seed: int = 0) -> float:
    """Two-sided permutation p-value of ``statistic(x, y)``: the share of orders of ``y`` whose statistic is
    at least as far from zero as the observed one (all n! orders for n ≤ 8, else ``n_perm`` drawn from
    ``seed``). With six corpora the smallest possible p is 1/720."""
    a, b, orders = _paired_orders(x, y, "permutation_p", n_perm, seed)
    observed = abs(statistic(a, b))
    if statistic is spearman:  # the ranks of a reordered sample are its ranks reordered: rank once
        a, b, statistic = _ranks(a), _ranks(b), pearson
    values = np.abs(rowwise(statistic, a, b[np.asarray(orders)]))
    return float(np.mean(values >= observed - 1e-12))


@functools.cache  # a table's every row asks for the same few n
def t_quantile(p: float, df: int) -> float:
    """The ``p``-quantile of Student's t with ``df`` degrees of freedom: 2.920 at p = 0.95 and df = 2, 6.314 at
    df = 1 (the one-sided bounds of the capacity sweep's third declaration).

    With t = √df · tan θ the density in θ is ∝ cos^{df−1}θ on (−π/2, π/2); its cumulative integral is solved on a
    fine grid (exact to about 10⁻⁵ for p within [0.001, 0.999]), as ``critical_r`` does.
    """
    if isinstance(df, bool) or not isinstance(df, (int, np.integer)) or df < 1:
        raise ValueError(f"df must be a positive integer, got {df!r}")
    if not 0.001 <= p <= 0.999:
        raise ValueError(f"p must lie in [0.001, 0.999], got {p!r}")
    theta = np.linspace(-np.pi / 2, np.pi / 2, 400_001)
    density = np.cos(theta) ** (df - 1)
    cumulative = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2 * np.diff(theta))])
    return float(math.sqrt(df) * math.tan(np.interp(p, cumulative / cumulative[-1], theta)))


@functools.cache  # a page asks for the same few n in every row
def critical_r(n: int, level: float = 0.05) -> float:
    """The |r| that ``n`` points need for a two-sided p-value below ``level`` under the t-test of a Pearson
    correlation (bivariate normal, no correlation): 0.811 for 6 points, 0.468 for 18.

    Under that null, r has density ∝ (1 − r²)^{(n−4)/2}; with r = sin θ the tail P(|r| ≥ r_c) is
    ∫ cos^{n−3}θ dθ from asin r_c to π/2 over the same integral from 0, solved here on a fine grid (no
    singularity at n = 3, exact to about 10⁻⁶).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"a correlation test needs n ≥ 3 points, got {n!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    theta = np.linspace(0.0, np.pi / 2, 200_001)
    density = np.cos(theta) ** (n - 3)
    # cumulative integral from θ to π/2 (trapezoid), normalized: the two-sided tail at r = sin θ
    pieces = (density[1:] + density[:-1]) / 2 * np.diff(theta)
    tail = np.concatenate([np.cumsum(pieces[::-1])[::-1], [0.0]])
    tail /= tail[0]
    return float(np.sin(np.interp(level, tail[::-1], theta[::-1])))


def decreasing_fit(y, weights=None) -> np.ndarray:
    """The non-increasing sequence closest to ``y`` in weighted least squares (isotonic regression by
    pool-adjacent-violators): a run of values that rises is replaced by its weighted mean. ``y`` : (N,) finite,
    ``weights`` : (N,) positive (default 1). Returns (N,). Used by the capacity sweep on real text
    (``sections/text_rank``), whose loss cannot rise with the capacity in expectation."""
    v = np.asarray(y, dtype=np.float64).ravel()
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if v.size == 0 or w.shape != v.shape or not (np.isfinite(v).all() and np.isfinite(w).all() and (w > 0).all()):
        raise ValueError(f"decreasing_fit needs finite values and as many positive weights, got {v} and {w}")
    blocks: list[list[float]] = []  # [mean, weight, length]
    for value, weight in zip(v, w, strict=True):
        blocks.append([value, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return np.concatenate([np.full(int(n), m) for m, _, n in blocks])
