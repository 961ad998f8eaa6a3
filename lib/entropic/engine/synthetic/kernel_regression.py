"""The regressions behind the attention-kernel estimators of §6 (``attention_estimators``), and the
records those estimators return.

* the score regression min_K Σ_n ‖(S_n − X_n K X_nᵀ/√D) C‖² for given mixing matrices, its normal
  equations solved as one (D², D²) Cholesky system, with the noise edge of K̂ (``score_regression``);
* the ranks read at that edge (``kernel_ranks``);
* the steps of the V-unknown alternation: the linear teacher's exact K-step (``linear_kernel_step``),
  the least-squares V-step (``value_step``) and the proximal step of the nuclear norm
  (``singular_value_soft_threshold``).

Used by the predictability section (§6, Table 4) and the softmax frontier (``sections/frontier``)
through ``attention_estimators``.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width. Everything is computed in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .. import spectral
from .tasks import attention_scores

__all__ = ["AlternatingEstimate", "KernelEstimate", "MixingRecovery", "singular_value_soft_threshold"]


@dataclass(frozen=True)
class MixingRecovery:
    """Per-sample mixing matrices recovered from Y = M X V + E given V.

    Attributes
    ----------
    mixing : (N, T, T) float64, M̂_n = Y_n Z_n⁺ with Z_n = X_n V.
    identifiable : True when every Z_n has full row rank T (then M̂_n = Y_n Z_nᵀ (Z_n Z_nᵀ)⁻¹ is the
        unique least-squares solution); False otherwise (e.g. T > D), when M̂_n only recovers M_n on the
        row space of Z_n: M̂_n = M_n P_n + E_n Z_n⁺ with P_n the projector onto range(Z_n).
    """

    mixing: torch.Tensor
    identifiable: bool


@dataclass(frozen=True)
class KernelEstimate:
    """A data-only estimate of the teacher kernel K* and the ranks it implies.

    Attributes
    ----------
    kernel : (D, D) float64 estimate K̂.
    noise_edge : predicted spectral norm of the estimation noise in K̂ (see the tolerance rule).
    numerical_rank : singular values of K̂ above ``max(2 · noise_edge, D · ε₃₂ · σ₁)``.
    energy_effective_rank : eq. (2) of K̂.
    residual_scale : σ̂, root mean square residual of the regression per degree of freedom.
    mixing_identifiable : see ``MixingRecovery.identifiable``.
    clamped_fraction : fraction of recovered mixing entries raised to the floor before the log
        (softmax teacher; 0 for the linear teacher).
    """

    kernel: torch.Tensor
    noise_edge: float
    numerical_rank: int
    energy_effective_rank: float
    residual_scale: float
    mixing_identifiable: bool
    clamped_fraction: float


@dataclass(frozen=True)
class AlternatingEstimate:
    """The (K, V) pair found by alternating minimization, and the ranks of K.

    Attributes
    ----------
    kernel : (D, D) float64 K̂ (for the linear teacher only K̂ up to scale is identified).
    value : (D, D) float64 V̂, the least-squares value map for ``kernel``.
    noise_edge : noise edge of the last K-step (same rule as ``KernelEstimate``).
    numerical_rank : singular values of K̂ above ``max(2 · noise_edge, D · ε₃₂ · σ₁)``.
    energy_effective_rank : eq. (2) of K̂ (invariant to the scale ambiguity).
    shrinkage : threshold τ used in the last K-step (0 for the plain variant).
    iterations : number of K-steps taken.
    converged : whether the stopping rule fired before ``max_iter``.
    loss : mean squared residual per entry of Y, ‖Y − M̂ X V̂‖² / (N T D).
    """

    kernel: torch.Tensor
    value: torch.Tensor
    noise_edge: float
    numerical_rank: int
    energy_effective_rank: float
    shrinkage: float
    iterations: int
    converged: bool
    loss: float


def check_positive(name: str, value, allow_zero: bool = False) -> None:
    number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not (number and (value >= 0 if allow_zero else value > 0)):
        raise ValueError(f"{name} must be a finite {'non-negative' if allow_zero else 'positive'} number, "
                         f"got {value!r}")


def _kron_normal(G: torch.Tensor, H: torch.Tensor) -> torch.Tensor:
    """Σ_n H_n ⊗ G_n as the (D², D²) matrix of K ↦ Σ_n G_n K H_n on row-major vec(K); G, H symmetric."""
    N, D, _ = G.shape
    outer = G.reshape(N, D * D).T @ H.reshape(N, D * D)  # [(a,c), (b,d)] = Σ G_ac H_bd
    return outer.view(D, D, D, D).permute(0, 2, 1, 3).reshape(D * D, D * D)


def _factor(G: torch.Tensor, H: torch.Tensor) -> tuple[torch.Tensor, float]:
    """Cholesky factor of A = Σ_n H_n ⊗ G_n and tr(A⁻¹) = ‖L⁻¹‖_F²; raises if A is singular."""
    L, info = torch.linalg.cholesky_ex(_kron_normal(G, H))
    if int(info) != 0:
        raise ValueError("the kernel regression is singular: too few samples or degenerate inputs")
    L_inv = torch.linalg.solve_triangular(L, torch.eye(L.shape[0], dtype=L.dtype), upper=False)
    return L, float(L_inv.pow(2).sum())


def _check_dof(dof: int, D: int) -> None:
    if dof <= 0:
        raise ValueError(f"too few samples to estimate a ({D}, {D}) kernel: {dof} residual degrees of freedom")


def score_regression(X: torch.Tensor, softmax: bool):
    """min_K Σ_n ‖(S_n − X_n K X_nᵀ/√D) C‖² for fixed X, as a function of the mixing matrices.

    The normal matrix A = Σ_n H_n ⊗ G_n (G = XᵀX, H = XᵀCX) depends on X only, so it is factored once and
    reused (the V-unknown softmax iteration calls the returned function once per step).
    """
    N, T, D = X.shape
    Xh = X - X.mean(-2, keepdim=True) if softmax else X  # C X, C = I − 11ᵀ/T (softmax) or I
    dof = N * T * (T - 1) - D * D if softmax else N * T * T - D * D
    _check_dof(dof, D)
    L, trace_inv = _factor(X.mT @ X, Xh.mT @ Xh)

    def fit(mixing: torch.Tensor, floor: float | None):
        clamped = 0.0
        if softmax:
            floor = 0.1 / T if floor is None else floor
            clamped = float((mixing < floor).double().mean())
            S = mixing.clamp_min(floor).log()
            S = S - S.mean(-1, keepdim=True)  # S C
        else:
            S = mixing
        rhs = math.sqrt(D) * (X.mT @ S @ Xh).sum(0)  # √D Σ Xᵀ S C X : (D, D)
        K = torch.cholesky_solve(rhs.reshape(D * D, 1), L).view(D, D)
        sigma_hat = math.sqrt(float((S - X @ K @ Xh.mT / math.sqrt(D)).pow(2).sum()) / dof)
        # cov vec(K̂) = σ̂² D A⁻¹ (the design is (X ⊗ CX)/√D): mean entry variance σ̂² tr(A⁻¹)/D,
        # and a (D, D) matrix of such entries has spectral norm ≈ 2√D · that standard deviation
        return K, sigma_hat, 2 * sigma_hat * math.sqrt(trace_inv), clamped

    return fit


def kernel_ranks(K: torch.Tensor, edge: float) -> tuple[int, float]:
    rank = int(spectral.numerical_rank(K, rtol=None, atol=2 * edge))  # rtol: D · ε₃₂, the data's precision
    return rank, float(spectral.energy_effective_rank(K))


def singular_value_soft_threshold(M, tau: float) -> torch.Tensor:
    """The proximal map of τ‖·‖_*: U diag(max(σ − τ, 0)) Wᵀ, for M : (D, D) → (D, D) float64.

    It never increases the numerical rank nor the energy effective rank (eq. 2): every ratio
    (σ_j − τ)/(σ_i − τ), σ_j < σ_i, falls as τ grows, so the energy distribution of the thresholded
    spectrum majorizes the original one and its entropy can only drop.

    Parameters
    ----------
    M : (D, D) array_like
    tau : the threshold τ ≥ 0.

    Returns
    -------
    (D, D) float64 tensor.
    """
    check_positive("tau", tau, allow_zero=True)
    M = torch.as_tensor(M).detach().to(device="cpu", dtype=torch.float64)
    if M.ndim != 2 or M.numel() == 0:
        raise ValueError(f"M must be a non-empty (D, D) matrix, got shape {tuple(M.shape)}")
    U, s, Wh = torch.linalg.svd(M, full_matrices=False)
    return (U * (s - tau).clamp_min(0.0)) @ Wh


def value_step(X, K, Y, softmax: bool) -> torch.Tensor:
    P = attention_scores(X, K, softmax) @ X  # M(X) X : (N, T, D)
    return torch.linalg.lstsq(torch.einsum("ntd,nte->de", P, P), torch.einsum("ntd,nte->de", P, Y),
                              driver="gelsd").solution


def linear_kernel_step(X, Y, V):
    """min_K Σ ‖Y_n − X_n K B_n‖², B_n = X_nᵀ X_n V/√D: normal equations Σ G_n K B_n B_nᵀ = Σ X_nᵀ Y_n B_nᵀ."""
    N, T, D = X.shape
    dof = N * T * D - 2 * D * D
    _check_dof(dof, D)
    G = X.mT @ X
    B = G @ V / math.sqrt(D)  # (N, D, D)
    L, trace_inv = _factor(G, B @ B.mT)
    K = torch.cholesky_solve((X.mT @ Y @ B.mT).sum(0).reshape(D * D, 1), L).view(D, D)
    sigma_hat = math.sqrt(float((Y - X @ K @ B).pow(2).sum()) / dof)
    # cov vec(K̂) = σ̂² A⁻¹: mean entry variance σ̂² tr(A⁻¹)/D², spectral edge 2√D times its root
    return K, 2 * sigma_hat * math.sqrt(trace_inv / D)
