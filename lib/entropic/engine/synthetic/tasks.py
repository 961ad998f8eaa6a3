"""Teachers and synthetic data: the §4 surrogate task and the §6 attention-native tasks.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width (the paper's d), ``R`` rank.
Inputs are i.i.d. standard Gaussian tokens, X ~ N(0, I) of shape (N, T, D) (the paper does not state
its input law; assumption (A1) only needs a full-rank covariance). Noise is E ~ N(0, σ² I), so the
noise floor of the per-sample squared Frobenius loss is σ²·T·D.

Every function that draws takes a ``seed``; the same seed gives bit-identical tensors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

SPECTRA = ("sharp", "power_law", "flat")
TEACHERS = ("linear_qk", "softmax_qk")


def noise_floor(sigma: float, T: int, d: int) -> float:
    """The Bayes risk σ²·T·d of the per-sample squared Frobenius loss (Theorem 6)."""
    return sigma**2 * T * d


def teacher_spectrum(r_star: int, profile: str = "sharp") -> torch.Tensor:
    """The r* leading eigenvalues of a teacher operator, shape (R,).

    * ``sharp`` (eq. 8): λ_i = 2 − (i−1)/(r*−1), and λ₁ = 2 when r* = 1;
    * ``power_law`` (App. D): λ_i = 1/i;
    * ``flat`` (App. D, no gap): λ_i = 1.
    """
    if r_star < 1:
        raise ValueError(f"r_star must be at least 1, got {r_star}")
    i = torch.arange(1, r_star + 1, dtype=torch.float64)
    if profile == "sharp":
        return torch.full((1,), 2.0, dtype=torch.float64) if r_star == 1 else 2 - (i - 1) / (r_star - 1)
    if profile == "power_law":
        return 1 / i
    if profile == "flat":
        return torch.ones(r_star, dtype=torch.float64)
    raise ValueError(f"unknown spectrum profile {profile!r}; expected one of {SPECTRA}")


def orthonormal_basis(dim: int, r: int, generator: torch.Generator) -> torch.Tensor:
    """A Haar-random (dim, r) matrix with orthonormal columns (QR of a Gaussian, signs fixed)."""
    if not 1 <= r <= dim:
        raise ValueError(f"need 1 <= r <= dim, got r={r}, dim={dim}")
    g = torch.randn(dim, r, generator=generator, dtype=torch.float64)
    q, upper = torch.linalg.qr(g)
    return q * torch.sign(torch.diagonal(upper)).where(torch.diagonal(upper) != 0, 1.0)


def low_rank_operator(dim: int, r_star: int, profile: str, generator: torch.Generator) -> torch.Tensor:
    """U diag(λ) Uᵀ of eq. (8): a symmetric (dim, dim) operator of rank r* with the given spectrum."""
    if r_star > dim:
        raise ValueError(f"r_star={r_star} exceeds the operator dimension {dim}")
    U = orthonormal_basis(dim, r_star, generator)
    return (U * teacher_spectrum(r_star, profile)) @ U.T


@dataclass(frozen=True)
class Task:
    """One synthetic regression task, Y = teacher(X) + E.

    Attributes
    ----------
    X, Y : (N, T, D) float32 tensors.
    operator : the teacher's mixing operator: A* (T, T) for the surrogate, K* (D, D) for attention.
    V : (D, D) value map V*.
    kind : ``"surrogate"``, ``"linear_qk"`` or ``"softmax_qk"``.
    """

    kind: str
    X: torch.Tensor
    Y: torch.Tensor
    operator: torch.Tensor
    V: torch.Tensor
    sigma: float
    r_star: int
    seed: int

    @property
    def noise_floor(self) -> float:
        _, T, d = self.X.shape
        return noise_floor(self.sigma, T, d)


def _validate(T: int, d: int, r_star: int, n: int, sigma: float, operator_dim: int) -> None:
    for name, value in (("T", T), ("d", d), ("n", n), ("r_star", r_star)):
        if value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value}")
    if r_star > operator_dim:
        raise ValueError(f"r_star={r_star} exceeds the operator dimension {operator_dim}")
    if not sigma >= 0:
        raise ValueError(f"sigma must be non-negative, got {sigma}")


def _inputs_values_noise(n: int, T: int, d: int, sigma: float, generator: torch.Generator):
    X = torch.randn(n, T, d, generator=generator, dtype=torch.float64)
    V = torch.randn(d, d, generator=generator, dtype=torch.float64) / math.sqrt(d)
    E = sigma * torch.randn(n, T, d, generator=generator, dtype=torch.float64)
    return X, V, E


def make_surrogate_task(T: int, d: int, r_star: int, n: int, sigma: float, seed: int,
                        profile: str = "sharp") -> Task:
    """The §4 fixed-operator task Y = A* X V* + E with rank(A*) = r* (also the §5 ladder's task)."""
    _validate(T, d, r_star, n, sigma, operator_dim=T)
    generator = torch.Generator().manual_seed(seed)
    A = low_rank_operator(T, r_star, profile, generator)
    X, V, E = _inputs_values_noise(n, T, d, sigma, generator)
    Y = A @ X @ V + E  # (T,T) @ (N,T,D) @ (D,D)
    return Task("surrogate", X.float(), Y.float(), A.float(), V.float(), sigma, r_star, seed)


def attention_scores(X: torch.Tensor, K: torch.Tensor, softmax: bool) -> torch.Tensor:
    """The mixing matrix X K Xᵀ / √D of eq. (9), softmax-normalized over keys when ``softmax``: (..., T, T)."""
    scores = X @ K @ X.transpose(-1, -2) / math.sqrt(X.shape[-1])
    return scores.softmax(-1) if softmax else scores


def make_attention_task(teacher: str, T: int, d: int, r_star: int, n: int, sigma: float, seed: int,
                        profile: str = "sharp") -> Task:
    """A §6 attention-native task, eq. (9): Y = M(X) X V* + E with M = X K* Xᵀ/√d (``linear_qk``)
    or softmax(X K* Xᵀ/√d) (``softmax_qk``), rank(K*) = r*."""
    if teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {teacher!r}; expected one of {TEACHERS}")
    _validate(T, d, r_star, n, sigma, operator_dim=d)
    generator = torch.Generator().manual_seed(seed)
    K = low_rank_operator(d, r_star, profile, generator)
    X, V, E = _inputs_values_noise(n, T, d, sigma, generator)
    Y = attention_scores(X, K, softmax=teacher == "softmax_qk") @ X @ V + E
    return Task(teacher, X.float(), Y.float(), K.float(), V.float(), sigma, r_star, seed)
