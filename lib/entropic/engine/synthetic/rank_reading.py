"""Reading a rank off a noisy kernel estimate K̂ with one knob, the threshold τ, chosen from the data.

τ = ``EDGE_MULTIPLE`` · ê = 2ê, where the noise edge ê is measured by ``split_half_edge``: half the
spectral norm of the difference between the estimator's fits on two random halves of the samples, whose
difference has twice the standard deviation of the full fit's noise. ``read_ranks`` counts the singular
values of K̂ above τ (the integer rank) and reads the energy effective rank (eq. 2) of K̂ truncated there.

Where the halves cannot be fitted (a half-sample fit diverged while the fit on all n samples succeeded), the
rule that uses every sample reads the rank instead: ``gavish_donoho_threshold``, the hard threshold of Gavish &
Donoho (2014) for a square matrix observed in white noise of unknown level, τ = ω · median singular value with
ω = 2.858 (their ω(β = 1)).

Used by the softmax estimators (``softmax_estimators``) of the softmax predictability frontier
(``sections/frontier``), which also reads a trained student's kernel with ``read_ranks``.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width. Everything is computed in float64 on the CPU.
"""

from __future__ import annotations

import math

import torch

from .. import spectral

EDGE_MULTIPLE = 2.0  # τ = 2ê, the same multiple of the noise edge as the V-known numerical-rank rule
GAVISH_DONOHO_OMEGA = 2.858  # ω(1): the optimal hard threshold over the median singular value, square matrix


def split_half_edge(fit, X: torch.Tensor, Y: torch.Tensor, seed: int) -> float:
    """The noise edge ê of an estimator, measured from the data: ‖K̂_A − K̂_B‖₂ / 2.

    The samples are split into two random halves A and B (``seed``) and ``fit(X_h, Y_h)`` — the estimator
    itself, from its own start — is run on each. The halves' errors are independent, each with twice the
    variance of the full fit's, so K̂_A − K̂_B has twice the full fit's standard deviation and half its
    spectral norm estimates the spectral norm of the full fit's error (a bias common to both cancels).
    The fits start cold, not from the full-data K̂: a warm start already within a half's stopping rule
    would not move, and the edge would shrink towards 0.

    Parameters
    ----------
    fit : callable (X_h, Y_h) → K̂_h : (D, D), the estimator run on a subset of the samples.
    X, Y : (N, T, D) tensors, N ≥ 4 (two halves of at least 2).
    seed : the random split.

    Returns
    -------
    float, ê ≥ 0.
    """
    order = torch.randperm(X.shape[0], generator=torch.Generator().manual_seed(seed))
    half = X.shape[0] // 2
    A, B = order[:half], order[half:2 * half]
    return float(torch.linalg.matrix_norm(fit(X[A], Y[A]) - fit(X[B], Y[B]), ord=2)) / 2


def read_ranks(K, threshold: float) -> tuple[int, float, float]:
    """(numerical rank, truncated energy rank, raw energy rank) of K : (D, D) at ``threshold`` τ ≥ 0.

    The numerical rank counts singular values above τ; the truncated energy rank is eq. (2) of those
    singular values alone (0 when none is above τ); the raw one is eq. (2) of all of them.

    Parameters
    ----------
    K : (D, D) array_like, a kernel estimate.
    threshold : τ ≥ 0, finite (the estimators use ``EDGE_MULTIPLE`` · ê).

    Returns
    -------
    (int, float, float)
    """
    if not (isinstance(threshold, int | float) and math.isfinite(threshold) and threshold >= 0):
        raise ValueError(f"threshold must be a finite non-negative number, got {threshold!r}")
    s = torch.linalg.svdvals(torch.as_tensor(K, dtype=torch.float64))
    kept = s[s > threshold]
    truncated = float(spectral.energy_effective_rank(torch.diag(kept))) if len(kept) else 0.0
    return len(kept), truncated, float(spectral.energy_effective_rank(torch.diag(s)))


def gavish_donoho_threshold(singular_values) -> float:
    """τ = 2.858 · median(σ): the Gavish–Donoho hard threshold of a square matrix in white noise of unknown
    level (it uses every singular value, so every sample that made the matrix). ``singular_values`` : (q,)."""
    s = torch.as_tensor(singular_values, dtype=torch.float64)
    if s.ndim != 1 or s.numel() == 0 or not torch.isfinite(s).all() or (s < 0).any():
        raise ValueError(f"expected a non-empty vector of finite non-negative singular values, got {s}")
    return GAVISH_DONOHO_OMEGA * float(s.quantile(0.5))
