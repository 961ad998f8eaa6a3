"""Spectral capacity measures of §3 of the paper, each under its own name.

"Effective rank" means different things in public code; here every measure is a separate function
that cites its equation. All accept a NumPy array or a torch tensor of shape ``(..., M, N)`` and are
batched over the leading dimensions; they return a value of the same kind (``float``/``ndarray`` for
NumPy input, ``Tensor`` for torch input), computed in float64.

Edge cases
----------
* Empty matrices and matrices holding NaN or Inf raise ``ValueError``.
* The zero matrix has no spectral mass: every measure here returns 0 for it (a rank-0 operator).

Used by every section: §4 (surrogate recovery), §5 (ladder), §6 (attention-native recovery).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = [
    "effective_rank",
    "effective_rank_from_spectrum",
    "energy_effective_rank",
    "energy_effective_rank_from_spectrum",
    "mp_corrected_effective_rank",
    "numerical_rank",
    "participation_ratio",
    "singular_values",
    "stable_rank",
]


def _as_tensor(M) -> tuple[torch.Tensor, bool]:
    is_numpy = not isinstance(M, torch.Tensor)
    t = torch.as_tensor(np.asarray(M) if is_numpy else M)
    if t.ndim < 2:
        raise ValueError(f"expected a matrix of shape (..., M, N), got shape {tuple(t.shape)}")
    if t.shape[-1] == 0 or t.shape[-2] == 0 or t.numel() == 0:
        raise ValueError(f"expected a non-empty matrix, got shape {tuple(t.shape)}")
    if t.is_complex() or not (t.is_floating_point() or t.dtype in (torch.int32, torch.int64)):
        raise ValueError(f"expected a real matrix, got dtype {t.dtype}")
    t = t.detach().to(device="cpu", dtype=torch.float64)
    if not torch.isfinite(t).all():
        raise ValueError("matrix holds NaN or Inf values")
    return t, is_numpy


def _out(value: torch.Tensor, is_numpy: bool):
    if not is_numpy:
        return value
    array = value.numpy()
    return float(array) if array.ndim == 0 else array


def singular_values(M):
    """Singular values σ₁ ≥ … ≥ σ_q of ``M`` : (..., M, N), as (..., q) with q = min(M, N)."""
    t, is_numpy = _as_tensor(M)
    return _out(torch.linalg.svdvals(t), is_numpy)


def _spectral_entropy_rank(sv: torch.Tensor, power: int) -> torch.Tensor:
    weights = sv**power
    total = weights.sum(-1, keepdim=True)
    p = torch.where(total > 0, weights / total.clamp_min(torch.finfo(sv.dtype).tiny), 0.0)
    entropy = -torch.special.xlogy(p, p).sum(-1)
    return torch.where(total.squeeze(-1) > 0, entropy.exp(), 0.0)


def effective_rank(M):
    """Effective rank, eq. (1): exp of the Shannon entropy of p_i = σ_i / Σ_j σ_j (Roy & Vetterli).

    Parameters
    ----------
    M : (..., M, N) array_like or Tensor

    Returns
    -------
    float, ndarray or Tensor of shape (...): 1 for a rank-1 matrix, k for k equal singular values.
    """
    t, is_numpy = _as_tensor(M)
    return _out(_spectral_entropy_rank(torch.linalg.svdvals(t), power=1), is_numpy)


def energy_effective_rank(M):
    """Energy effective rank, eq. (2): exp of the entropy of p̃_i = σ_i² / Σ_j σ_j².

    Less sensitive than eq. (1) to many small singular values (the paper's estimator under softmax).
    """
    t, is_numpy = _as_tensor(M)
    return _out(_spectral_entropy_rank(torch.linalg.svdvals(t), power=2), is_numpy)


def stable_rank(M):
    """Stable rank, eq. (3): ‖M‖_F² / ‖M‖₂² = Σσ_i² / σ₁²."""
    t, is_numpy = _as_tensor(M)
    sv = torch.linalg.svdvals(t)
    top = sv[..., 0]
    value = torch.where(top > 0, (sv**2).sum(-1) / top.clamp_min(torch.finfo(sv.dtype).tiny) ** 2, 0.0)
    return _out(value, is_numpy)


def numerical_rank(M, rtol: float | None = None, atol: float = 0.0):
    """Number of singular values above ``max(atol, rtol · σ₁)``.

    Tolerance rule: by default ``rtol = max(M, N) · ε`` with ε the float32 machine epsilon
    (NumPy's ``matrix_rank`` rule, at the precision the models train in). For matrices estimated
    from noisy data pass a noise-aware ``atol`` instead (see ``estimators``).
    """
    t, is_numpy = _as_tensor(M)
    if rtol is None:
        rtol = max(t.shape[-2:]) * float(np.finfo(np.float32).eps)
    if rtol < 0 or atol < 0:
        raise ValueError(f"tolerances must be non-negative, got rtol={rtol}, atol={atol}")
    sv = torch.linalg.svdvals(t)
    threshold = torch.clamp(rtol * sv[..., :1], min=atol)
    counts = ((sv > threshold) & (sv > 0)).sum(-1)
    if not is_numpy:
        return counts
    return int(counts) if counts.ndim == 0 else counts.numpy()


def mp_corrected_effective_rank(M, n: int, dim: int | None = None):
    """Effective rank with the finite-sample Marchenko–Pastur correction of Theorem 8 removed.

    Theorem 8: R̂ = R_true + (dim − R_true) / (2n) + O(1/n²), with R̂ the effective rank (eq. 1) of a
    matrix estimated from ``n`` samples. Inverting the first-order relation gives
    R_true = (R̂ − dim / (2n)) / (1 − 1 / (2n)).

    Parameters
    ----------
    M : (..., M, N) array_like or Tensor
    n : number of samples the matrix was estimated from (≥ 1).
    dim : ambient dimension of the noise bulk; defaults to min(M, N).
    """
    if n < 1:
        raise ValueError(f"n must be a positive sample count, got {n}")
    t, is_numpy = _as_tensor(M)
    dim = min(t.shape[-2:]) if dim is None else dim
    r_hat = _spectral_entropy_rank(torch.linalg.svdvals(t), power=1)
    corrected = (r_hat - dim / (2 * n)) / (1 - 1 / (2 * n))
    return _out(torch.where(r_hat > 0, corrected, 0.0), is_numpy)


def participation_ratio(M):
    """Participation ratio (Σσ_i²)² / Σσ_i⁴: the exp of the order-2 Rényi entropy of p̃ in eq. (2)."""
    t, is_numpy = _as_tensor(M)
    energy = torch.linalg.svdvals(t) ** 2
    num = energy.sum(-1) ** 2
    den = (energy**2).sum(-1)
    return _out(torch.where(den > 0, num / den.clamp_min(torch.finfo(energy.dtype).tiny), 0.0), is_numpy)


# ----------------------------------------------------------------------------- from stored spectra


def _spectrum(sv) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(sv, dtype=np.float64))
    if t.ndim < 1 or t.shape[-1] == 0:
        raise ValueError(f"expected singular values of shape (..., q) with q ≥ 1, got shape {tuple(t.shape)}")
    if not torch.isfinite(t).all() or (t < 0).any():
        raise ValueError("singular values must be finite and non-negative")
    return t


def effective_rank_from_spectrum(sv):
    """Eq. (1) from singular values σ : (..., q) (e.g. stored ones) → (...); as :func:`effective_rank`."""
    return _out(_spectral_entropy_rank(_spectrum(sv), power=1), True)


def energy_effective_rank_from_spectrum(sv):
    """Eq. (2) from singular values σ : (..., q) → (...); as :func:`energy_effective_rank`."""
    return _out(_spectral_entropy_rank(_spectrum(sv), power=2), True)
