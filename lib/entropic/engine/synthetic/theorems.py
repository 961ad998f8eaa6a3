"""Executed checks of the linear-surrogate theorems (§4 and App. A of the paper), used by the theory page.

* Deficiency (the paper's Theorems 1/5): the exact best rank-r fit under separable input covariances,
  :func:`rank_r_optimum`, against the lower bounds of the proof, :func:`deficiency_bounds`, and against the
  paper's eq. (7) as written, with eigenvalues, :func:`eigenvalue_bound`; :func:`shear_counterexample`
  is a non-normal teacher on which that form fails.
* Achievability (Theorems 2/6): a rank-r fit from data by alternating least squares, :func:`reduced_rank_fit`,
  scored by its exact population excess, :func:`population_excess`.
* The §5 break: the best any token-permutation-equivariant predictor can do, :func:`equivariant_floor`.

Recovery (Theorems 4/8) is in ``inflation``.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank. Inputs are X = Σ_T^{1/2} Z Σ_D^{1/2} with Z of
i.i.d. standard Gaussian entries, so Cov(vec X) = Σ_D ⊗ Σ_T; the tasks of ``tasks`` have Σ_T = I, Σ_D = I.
Every function that draws takes a ``seed``. Computations are in float64 NumPy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .tasks import make_surrogate_task


def _matrix(M, name: str, shape: tuple[int | None, int | None] = (None, None)) -> np.ndarray:
    a = np.asarray(M, dtype=np.float64)
    if a.ndim != 2 or a.size == 0 or any(s is not None and s != got for s, got in zip(shape, a.shape, strict=True)):
        raise ValueError(f"{name} must be a non-empty matrix of shape {shape}, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} holds NaN or Inf values")
    return a


def _pair(A_star, V_star) -> tuple[np.ndarray, np.ndarray]:
    """Validate a teacher: A* : (T, T) and V* : (D, D), both square."""
    A_star, V_star = _matrix(A_star, "A_star"), _matrix(V_star, "V_star")
    for name, M in (("A_star", A_star), ("V_star", V_star)):
        if M.shape[0] != M.shape[1]:
            raise ValueError(f"{name} must be square, got shape {M.shape}")
    return A_star, V_star


def _covariance(C, dim: int, name: str) -> np.ndarray:
    if C is None:
        return np.eye(dim)
    C = _matrix(C, name, (dim, dim))
    if not np.allclose(C, C.T) or np.linalg.eigvalsh(C).min() <= 0:
        raise ValueError(f"{name} must be symmetric positive definite")
    return C


def _sqrt(C: np.ndarray) -> np.ndarray:
    w, Q = np.linalg.eigh(C)
    return (Q * np.sqrt(w)) @ Q.T


def _rank(r, upper: int) -> int:
    if isinstance(r, bool) or not isinstance(r, int | np.integer) or not 0 <= r <= upper:
        raise ValueError(f"rank r must be an integer in [0, {upper}], got {r!r}")
    return int(r)


def truncate(M, r: int) -> np.ndarray:
    """The Eckart–Young–Mirsky minimizer: the rank-r truncated SVD of ``M`` : (M, N)."""
    M = _matrix(M, "M")
    U, s, Wt = np.linalg.svd(M, full_matrices=False)
    r = _rank(r, len(s))
    return (U[:, :r] * s[:r]) @ Wt[:r]


def population_excess(A_star, V_star, A, V, cov_T=None, cov_D=None) -> float:
    """E‖A* X V* − A X V‖²_F: the excess risk of Ŷ = A X V over the noise floor (Lemma: risk decomposition).

    With Cov(vec X) = Σ_D ⊗ Σ_T and vec(A X V) = (Vᵀ ⊗ A) vec X, every term factorizes:
    E⟨B X C, B' X C'⟩ = tr(Cᵀ Σ_D C') · tr(B Σ_T B'ᵀ).

    Parameters
    ----------
    A_star, A : (T, T) operators; V_star, V : (D, D) value maps.
    cov_T : (T, T) and cov_D : (D, D) positive definite covariances; identity when None.
    """
    A_star, V_star = _pair(A_star, V_star)
    T, D = A_star.shape[0], V_star.shape[0]
    A, V = _matrix(A, "A", (T, T)), _matrix(V, "V", (D, D))
    cT, cD = _covariance(cov_T, T, "cov_T"), _covariance(cov_D, D, "cov_D")

    def inner(B, C, B2, C2):
        return np.trace(C.T @ cD @ C2) * np.trace(B @ cT @ B2.T)

    return float(inner(A_star, V_star, A_star, V_star) - 2 * inner(A_star, V_star, A, V) + inner(A, V, A, V))


def rank_r_optimum(A_star, V_star, r: int, cov_T=None, cov_D=None) -> tuple[float, np.ndarray, np.ndarray]:
    """The exact best rank-r fit: min over rank(A) ≤ r and V of :func:`population_excess`.

    Whitening A' = A Σ_T^{1/2}, V' = Σ_D^{1/2} V turns the problem into the isotropic one, whose minimum is
    ‖Σ_D^{1/2} V*‖²_F Σ_{j>r} σ_j(A* Σ_T^{1/2})², reached at A = [A* Σ_T^{1/2}]_r Σ_T^{-1/2}, V = V*.

    Returns
    -------
    excess : float; A : (T, T) minimizer of rank ≤ r; V : (D, D) minimizer.
    """
    A_star, V_star = _pair(A_star, V_star)
    T, D = A_star.shape[0], V_star.shape[0]
    r = _rank(r, T)
    root = _sqrt(_covariance(cov_T, T, "cov_T"))
    tail = np.linalg.svd(A_star @ root, compute_uv=False)[r:]
    excess = float(np.sum((_sqrt(_covariance(cov_D, D, "cov_D")) @ V_star) ** 2) * np.sum(tail**2))
    return excess, truncate(A_star @ root, r) @ np.linalg.inv(root), V_star.copy()


def deficiency_bounds(A_star, V_star, r: int, lambda_min: float) -> dict[str, float]:
    """Lower bounds on the rank-r excess: c · Σ_{j>r} σ_j(A*)² with the paper's constant
    c = λ_min(Σ_X) σ_min(V*)² (its eq. 7) and with the sharper c = λ_min(Σ_X) ‖V*‖²_F of our proof."""
    A_star, V_star = _pair(A_star, V_star)
    if not lambda_min > 0:
        raise ValueError(f"lambda_min must be positive (assumption A1), got {lambda_min}")
    tail = float(np.sum(np.linalg.svd(A_star, compute_uv=False)[_rank(r, min(A_star.shape)):] ** 2))
    v_min = np.linalg.svd(V_star, compute_uv=False).min()
    return {"paper": float(lambda_min * v_min**2 * tail), "frobenius": lambda_min * float(np.sum(V_star**2)) * tail}


def eigenvalue_bound(A_star, V_star, r: int, lambda_min: float) -> float:
    """The paper's eq. (7) as written: λ_min(Σ_X) σ_min(V*)² Σ_{j=r+1}^{r*} |λ_j(A*)|², with the eigenvalues of
    A* ordered by decreasing modulus. A rank-r* operator has at most r* non-zero eigenvalues, so the sum over
    every j > r is the same sum. For a normal A* (symmetric, as in the paper's eq. 8) |λ_j| = σ_j and this is
    the paper's bound of :func:`deficiency_bounds`; for a non-normal one it need not be a lower bound at all
    (:func:`shear_counterexample`)."""
    A_star, V_star = _pair(A_star, V_star)
    if not lambda_min > 0:
        raise ValueError(f"lambda_min must be positive (assumption A1), got {lambda_min}")
    moduli = np.sort(np.abs(np.linalg.eigvals(A_star)))[::-1]
    v_min = np.linalg.svd(V_star, compute_uv=False).min()
    return float(lambda_min * v_min**2 * np.sum(moduli[_rank(r, len(moduli)):] ** 2))


def shear_operator(shear: float) -> np.ndarray:
    """A*(t) = [[1, t, 0], [0, 1, 0], [0, 0, 0]] : (3, 3): rank 2 and eigenvalues (1, 1, 0) for every shear t,
    while its singular values spread apart as t grows (σ₁σ₂ = 1, σ₁² + σ₂² = 2 + t²)."""
    if not np.isfinite(shear):
        raise ValueError(f"the shear must be finite, got {shear}")
    return np.array([[1.0, shear, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])


def shear_threshold(D: int) -> float:
    """The shear above which eq. (7) with eigenvalues fails for A*(t) (:func:`shear_operator`), V* = I_D,
    Σ_X = I and r = 1: the bound is 1 (λ₂ = 1) and the exact excess D σ₂(t)², which is below 1 exactly when
    σ₁² > D, that is when σ₁² + σ₁⁻² = 2 + t² exceeds D + 1/D: t > (D − 1)/√D."""
    if D < 1:
        raise ValueError(f"D must be a positive integer, got {D}")
    return (D - 1) / math.sqrt(D)


def shear_counterexample(shear: float = 10.0, D: int = 3, r: int = 1, samples: int = 20_000,
                         seed: int = 0) -> dict[str, float]:
    """The paper's Theorem 5 on the non-normal teacher A*(t) of :func:`shear_operator`, V* = I_D, isotropic
    inputs (λ_min(Σ_X) = 1): the exact rank-r excess beside eq. (7) with eigenvalues and with singular values.

    Returns
    -------
    dict: ``eigenvalues`` and ``singular_values`` of A* (moduli, decreasing); ``exact`` (:func:`rank_r_optimum`);
    ``simulated`` and ``simulated_se``: the mean of ‖A* X V* − A X V‖²_F for its minimizer (A, V) over
    ``samples`` inputs X ~ N(0, I) drawn from ``seed``, and its standard error; ``eigenvalue_bound`` (eq. 7 as
    written, :func:`eigenvalue_bound`); ``paper`` and ``frobenius`` (:func:`deficiency_bounds`).
    """
    if samples < 2:
        raise ValueError(f"need at least two samples, got {samples}")
    A_star, V_star = shear_operator(shear), np.eye(D)
    exact, A, V = rank_r_optimum(A_star, V_star, r)
    X = np.random.default_rng(seed).standard_normal((samples, 3, D))  # (N, T, D)
    errors = np.sum((A_star @ X @ V_star - A @ X @ V) ** 2, axis=(1, 2))
    return {"eigenvalues": tuple(map(float, np.sort(np.abs(np.linalg.eigvals(A_star)))[::-1])),
            "singular_values": tuple(map(float, np.linalg.svd(A_star, compute_uv=False))), "exact": exact,
            "simulated": float(errors.mean()), "simulated_se": float(errors.std() / math.sqrt(samples)),
            "eigenvalue_bound": eigenvalue_bound(A_star, V_star, r, 1.0), **deficiency_bounds(A_star, V_star, r, 1.0)}


def random_covariance(dim: int, spread: float, rng: np.random.Generator) -> np.ndarray:
    """A (dim, dim) covariance with Haar eigenvectors and log-eigenvalues uniform in ±spread/2
    (condition number at most e^spread; the identity when spread = 0)."""
    if spread < 0:
        raise ValueError(f"spread must be non-negative, got {spread}")
    Q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    return (Q * np.exp(spread * (rng.random(dim) - 0.5))) @ Q.T


def deficiency_check(T: int = 8, D: int = 6, r_star: int = 4, instances: int = 40, max_spread: float = 3.0,
                     seed: int = 0) -> pd.DataFrame:
    """Random instances of Theorem 5: the exact rank-r optimum beside both lower bounds, for r < r*.

    Instance i has a general rank-r* A* = U diag(s) Wᵀ (s uniform in [0.5, 2]), V* with N(0, 1/D) entries and
    separable covariances of spread ``max_spread · i / (instances − 1)``: the first instance is isotropic.

    Returns
    -------
    DataFrame with one row per (instance, r): ``kappa`` (condition number of Σ_X), ``exact``, ``paper``,
    ``frobenius`` (the bounds), ``eigenvalues`` (eq. 7 as written, :func:`eigenvalue_bound`), and
    ``ratio_paper``, ``ratio_frobenius``, ``ratio_eigenvalues`` (bound / exact).
    """
    if not (1 < r_star <= min(T, D) and instances >= 2 and max_spread >= 0):
        raise ValueError(f"need 1 < r_star <= min(T, D), instances >= 2, max_spread >= 0; got r_star={r_star}, "
                         f"T={T}, D={D}, instances={instances}, max_spread={max_spread}")
    rng, rows = np.random.default_rng(seed), []
    for i in range(instances):
        spread = max_spread * i / (instances - 1)
        U, _ = np.linalg.qr(rng.standard_normal((T, r_star)))
        W, _ = np.linalg.qr(rng.standard_normal((T, r_star)))
        A_star = (U * np.sort(rng.uniform(0.5, 2.0, r_star))[::-1]) @ W.T
        V_star = rng.standard_normal((D, D)) / math.sqrt(D)
        cov_T, cov_D = random_covariance(T, spread, rng), random_covariance(D, spread, rng)
        lam_min = np.linalg.eigvalsh(cov_T).min() * np.linalg.eigvalsh(cov_D).min()
        kappa = np.linalg.cond(cov_T) * np.linalg.cond(cov_D)
        for r in range(1, r_star):
            exact = rank_r_optimum(A_star, V_star, r, cov_T, cov_D)[0]
            bounds = {**deficiency_bounds(A_star, V_star, r, lam_min),
                      "eigenvalues": eigenvalue_bound(A_star, V_star, r, lam_min)}
            rows.append({"instance": i, "r": r, "kappa": kappa, "exact": exact, **bounds,
                         **{f"ratio_{name}": value / exact for name, value in bounds.items()}})
    return pd.DataFrame(rows)


def reduced_rank_fit(X, Y, r: int, iters: int = 100, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares fit of Ŷ = A X V with rank(A) ≤ r, by alternating minimization.

    With V fixed, Z = X V and G = Σ_n Z Zᵀ, the loss is ‖(A − Â) G^{1/2}‖²_F + const with Â = (Σ Y Zᵀ) G⁻¹,
    so the rank-r step is A = [Â G^{1/2}]_r G^{-1/2} (Eckart–Young in the G-weighted norm); with A fixed,
    V is ordinary least squares. Each step cannot raise the loss.

    Parameters
    ----------
    X, Y : (N, T, D) arrays; r : rank bound, 1 ≤ r ≤ T; iters : alternations; seed : initial V ~ N(0, 1/D).

    Returns
    -------
    A : (T, T) of rank ≤ r; V : (D, D).
    """
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    if X.ndim != 3 or X.shape != Y.shape or X.shape[0] * X.shape[2] < X.shape[1]:
        raise ValueError(f"X and Y must share a shape (N, T, D) with N·D ≥ T, got {X.shape} and {Y.shape}")
    if not (np.isfinite(X).all() and np.isfinite(Y).all()):
        raise ValueError("X or Y holds NaN or Inf values")
    _, T, D = X.shape
    r = _rank(r, T)
    if r < 1 or iters < 1:
        raise ValueError(f"need r >= 1 and iters >= 1, got r={r}, iters={iters}")
    V = np.random.default_rng(seed).standard_normal((D, D)) / math.sqrt(D)
    for _ in range(iters):
        Z = X @ V  # (N, T, D)
        w, Q = np.linalg.eigh(np.einsum("ntd,nud->tu", Z, Z))
        inv_root = (Q / np.sqrt(w)) @ Q.T  # G^{-1/2}
        A = truncate(np.einsum("ntd,nud->tu", Y, Z) @ inv_root, r) @ inv_root
        AX = A @ X  # (N, T, D)
        V = np.linalg.lstsq(np.einsum("ntd,nte->de", AX, AX), np.einsum("ntd,nte->de", AX, Y), rcond=None)[0]
    return A, V


def achievability_check(T: int = 16, D: int = 12, r_star: int = 3, n: int = 500, sigma: float = 0.05,
                        seed: int = 0, iters: int = 100, profile: str = "sharp") -> pd.DataFrame:
    """Rank-r fits r = 1 … 2r* on one surrogate task (``tasks.make_surrogate_task``).

    Returns
    -------
    DataFrame with one row per r: ``optimum`` (the population rank-r optimum ‖V*‖²_F Σ_{j>r} σ_j(A*)²),
    ``fitted`` (exact population excess of the fit), ``train`` (training risk minus the noise energy the
    sample holds, mean ‖E‖²_F: negative when the fit absorbs noise), ``floor`` (σ²TD).
    """
    task = make_surrogate_task(T, D, r_star, n, sigma, seed, profile)
    X, Y = task.X.double().numpy(), task.Y.double().numpy()
    A_star, V_star = task.operator.double().numpy(), task.V.double().numpy()
    noise = float(np.mean(np.sum((Y - A_star @ X @ V_star) ** 2, axis=(1, 2))))
    rows = []
    for r in range(1, min(2 * r_star, T) + 1):
        A, V = reduced_rank_fit(X, Y, r, iters, seed)
        rows.append({"r": r, "optimum": rank_r_optimum(A_star, V_star, r)[0],
                     "fitted": population_excess(A_star, V_star, A, V),
                     "train": float(np.mean(np.sum((Y - A @ X @ V) ** 2, axis=(1, 2)))) - noise,
                     "floor": task.noise_floor})
    return pd.DataFrame(rows)


def equivariant_floor(A_star, V_star) -> float:
    """‖V*‖²_F ‖A* − Ā‖²_F: the least excess of any token-permutation-equivariant predictor of A* X V* for
    X ~ N(0, I), where Ā = α I + β (𝟙𝟙ᵀ − I) averages A* over token permutations (α: mean diagonal entry,
    β: mean off-diagonal entry). Every attention student without positional information is equivariant."""
    A_star, V_star = _pair(A_star, V_star)
    T = A_star.shape[0]
    if T < 2:
        raise ValueError("need at least two tokens")
    alpha, beta = np.trace(A_star) / T, (A_star.sum() - np.trace(A_star)) / (T * (T - 1))
    A_bar = alpha * np.eye(T) + beta * (np.ones((T, T)) - np.eye(T))
    return float(np.sum(V_star**2) * np.sum((A_star - A_bar) ** 2))
