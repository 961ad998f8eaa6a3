"""Data-only predictor of r* for the §4 surrogate: estimate the teacher's operator from (X, Y) before
any training (the V-known estimator of App. C.5: with the value map given, the operator is a linear
regression on the values Z = X V*). The attention-native estimators of §6 live in
``attention_estimators``.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .. import spectral
from .tasks import Task


@dataclass(frozen=True)
class OperatorEstimate:
    """A least-squares operator estimate, the noise level of its entries and the rank it implies.

    Attributes
    ----------
    operator : (T, T) estimate Â.
    noise_edge : predicted largest singular value of the estimation noise in Â.
    numerical_rank : number of singular values of Â above ``2 · noise_edge``.
    energy_effective_rank : eq. (2) of Â.
    """

    operator: torch.Tensor
    noise_edge: float
    numerical_rank: int
    energy_effective_rank: float


def surrogate_operator_v_known(task: Task) -> OperatorEstimate:
    """Estimate A* of Y = A* X V* + E by least squares given V*: Â = (Σ Y Zᵀ)(Σ Z Zᵀ)⁻¹, Z = X V*.

    Tolerance rule for the numerical rank: each row of Â − A* has covariance σ̂² (Σ Z Zᵀ)⁻¹, so the
    (T, T) noise matrix has spectral norm at most about ``2√T · σ̂ · √λ_max((Σ Z Zᵀ)⁻¹)`` (the edge of a
    Gaussian matrix); singular values above twice that edge count as signal.
    """
    X, Y = task.X.double(), task.Y.double()
    N, T, D = X.shape
    Z = X @ task.V.double()  # (N, T, D)
    gram = torch.einsum("ntd,nud->tu", Z, Z)  # Σ Z Zᵀ : (T, T)
    cross = torch.einsum("ntd,nud->tu", Y, Z)  # Σ Y Zᵀ
    A_hat = torch.linalg.solve(gram, cross, left=False)
    residual = Y - A_hat @ Z
    dof = N * T * D - T * T
    if dof <= 0:
        raise ValueError(f"too few samples to estimate a ({T}, {T}) operator: n={N}")
    sigma_hat = math.sqrt(float(residual.pow(2).sum()) / dof)
    edge = 2 * math.sqrt(T) * sigma_hat * math.sqrt(float(torch.linalg.eigvalsh(gram).min().reciprocal()))
    return OperatorEstimate(
        operator=A_hat.float(),
        noise_edge=edge,
        numerical_rank=int(spectral.numerical_rank(A_hat, rtol=0.0, atol=2 * edge)),
        energy_effective_rank=float(spectral.energy_effective_rank(A_hat)),
    )
