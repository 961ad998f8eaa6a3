"""Training an unconstrained softmax-attention layer.

``train_unconstrained`` fits the student Ŷ = softmax(X K Xᵀ/√D) X V with K and V free (D × D each, no rank
constraint) jointly by L-BFGS from K = V = 0 on the mean squared error ‖Y − Ŷ‖² / ‖Y‖²: a full-rank student
trained to convergence. The V-unknown least-squares estimator of ``softmax_estimators`` minimizes the same
loss with V profiled out, so the two should agree: the frontier page shows that they do, which makes that
estimator a better-optimized training run, not a pre-training estimator.

``gavish_donoho_threshold``, the rank rule that uses every sample, lives in ``rank_reading`` beside the
split-half rule (the frontier's phase fits read it through this module).

Used by the frontier section (beyond the paper).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from .rank_reading import gavish_donoho_threshold  # noqa: F401 (the frontier's phase fits read it here)
from .softmax_estimators import checked_inputs, lbfgs, mixing


@dataclass(frozen=True)
class Student:
    """A trained unconstrained softmax-attention layer.

    kernel, value : (D, D) float64 K and V; loss : the mean squared residual per entry of Y,
    ‖Y − softmax(S(K)) X V‖² / (N T D), as ``SoftmaxEstimate.loss`` reports it; iterations : L-BFGS
    iterations; converged : the stopping rule fired before the cap; seconds : wall time of the training.
    """

    kernel: torch.Tensor
    value: torch.Tensor
    loss: float
    iterations: int
    converged: bool
    seconds: float


def train_unconstrained(X, Y, *, tol: float = 1e-10, max_iter: int = 2000) -> Student:
    """Train K and V of softmax(X K Xᵀ/√D) X V jointly, from zero, by L-BFGS on ‖Y − Ŷ‖² / ‖Y‖².

    The same loss, optimizer, line search and stopping rule as ``softmax_estimators.kernel_least_squares``
    (there with V eliminated); here nothing is eliminated: both matrices are trained together, as a
    full-rank student would be.

    Parameters
    ----------
    X, Y : (N, T, D) array_like; tol, max_iter : the L-BFGS stopping rule of ``softmax_estimators._lbfgs``.
    """
    X, Y, _ = checked_inputs(X, Y)
    D = X.shape[-1]
    scale = float(Y.pow(2).sum())

    def objective(KV):
        K, V = KV[:D], KV[D:]
        return (Y - mixing(X, K) @ X @ V).pow(2).sum() / scale

    start = time.perf_counter()
    KV, iterations, converged = lbfgs(objective, torch.zeros(2 * D, D, dtype=torch.float64), tol, max_iter)
    seconds = time.perf_counter() - start
    with torch.no_grad():
        loss = float((Y - mixing(X, KV[:D]) @ X @ KV[D:]).pow(2).mean())
    return Student(KV[:D], KV[D:], loss, iterations, converged, seconds)


def relative_difference(A, B) -> float:
    """‖A − B‖_F / ‖B‖_F (∞ when B = 0 ≠ A, 0 when both are 0)."""
    A, B = torch.as_tensor(A, dtype=torch.float64), torch.as_tensor(B, dtype=torch.float64)
    norm = float(B.norm())
    diff = float((A - B).norm())
    return diff / norm if norm else (0.0 if diff == 0 else math.inf)
