"""Executed checks of the linear-surrogate theorems (§4 and App. A of the paper), used by the theory page.

* Deficiency (the paper's Theorems 1/5): the exact best rank-r fit under separable input covariances,
  :func:`rank_r_optimum`, against the lower bounds of the proof, :func:`deficiency_bounds`.
* Achievability (Theorems 2/6): a rank-r fit from data by alternating least squares, :func:`reduced_rank_fit`,
  scored by its exact population excess, :func:`population_excess`.
* Recovery (Theorems 4/8): the first-order inflation of the effective rank (eq. 1) by a Marchenko–Pastur
  noise bulk, :func:`bulk_inflation`, against least-squares estimates from data, :func:`mp_check`.
* The §5 break: the best any token-permutation-equivariant predictor can do, :func:`equivariant_floor`.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank. Inputs are X = Σ_T^{1/2} Z Σ_D^{1/2} with Z of
i.i.d. standard Gaussian entries, so Cov(vec X) = Σ_D ⊗ Σ_T; the tasks of ``tasks`` have Σ_T = I, Σ_D = I.
Every function that draws takes a ``seed``. Computations are in float64 NumPy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import estimators, spectral
from .tasks import make_surrogate_task, teacher_spectrum


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
    return {"paper": lambda_min * v_min**2 * tail, "frobenius": lambda_min * float(np.sum(V_star**2)) * tail}


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
    ``frobenius`` (the bounds), and ``ratio_paper``, ``ratio_frobenius`` (bound / exact).
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
            bounds = deficiency_bounds(A_star, V_star, r, lam_min)
            rows.append({"instance": i, "r": r, "kappa": kappa, "exact": exact, **bounds,
                         "ratio_paper": bounds["paper"] / exact, "ratio_frobenius": bounds["frobenius"] / exact})
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
    DataFrame with one row per r: ``optimum`` (the population rank-r optimum ‖V*‖²_F Σ_{j>r} λ_j²),
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


def quarter_circle_moments(power: float) -> tuple[float, float]:
    """E[x^p] and E[x^p log x^p] under the quarter-circle law (1/π)√(4 − x²) on [0, 2]: the limit law of the
    singular values of an (m, m) matrix of i.i.d. N(0, 1) entries, divided by √m (Marchenko–Pastur, ratio 1)."""
    if not power > 0:
        raise ValueError(f"power must be positive, got {power}")
    nodes, weights = np.polynomial.legendre.leggauss(400)
    theta = (nodes + 1) * np.pi / 4  # x = 2 sin θ, θ in [0, π/2]: the density becomes (4/π) cos²θ dθ
    w = weights * np.pi / 4 * (4 / np.pi) * np.cos(theta) ** 2
    xp = (2 * np.sin(theta)) ** power
    return float(np.sum(w * xp)), float(np.sum(w * xp * np.log(xp)))


def bulk_inflation(signal, eps: float, m: int, power: int = 1) -> float:
    """First-order increase of a spectral entropy rank (eq. 1 for power 1, eq. 2 for power 2) when a bulk of
    m noise singular values ε·μ_j, with μ/√m quarter-circle distributed, joins the signal singular values.

    R̂ − R ≈ R η (1 + log(R_bulk / (R η))), with η = ε^p M_p / (S_p + ε^p M_p) the bulk's share of the mass,
    S_p = Σ s_i^p, M_p = m^{1+p/2} E[x^p], and R_bulk = exp of the entropy of the bulk alone.

    Parameters
    ----------
    signal : (R,) positive signal singular values; eps : noise scale of one entry; m : bulk size.
    """
    s = np.asarray(signal, dtype=np.float64)
    if s.ndim != 1 or s.size == 0 or not (s > 0).all() or not eps >= 0 or m < 1 or power not in (1, 2):
        raise ValueError(f"need positive singular values, eps >= 0, m >= 1, power 1 or 2; got {s}, {eps}, {m}, "
                         f"{power}")
    sp = s**power
    q = sp / sp.sum()
    R = math.exp(-np.sum(q * np.log(q)))
    moment, moment_log = quarter_circle_moments(power)
    bulk_mass = eps**power * m ** (1 + power / 2) * moment
    if bulk_mass == 0:
        return 0.0
    eta = bulk_mass / (sp.sum() + bulk_mass)
    R_bulk = m * moment * math.exp(-moment_log / moment)
    return R * eta * (1 + math.log(R_bulk / (R * eta)))


def mp_check(T: int = 16, D: int = 12, r_star: int = 3, sigma: float = 0.05,
             ns=(25, 50, 100, 200, 400, 800, 1600, 3000), seeds=range(5), profile: str = "sharp") -> pd.DataFrame:
    """Effective rank (eq. 1) of least-squares estimates Â of A* (``estimators.surrogate_operator_v_known``)
    over the sample count n, beside the first-order prediction and the paper's correction (T − R)/(2n).

    The estimate's error has i.i.d. rows of covariance σ² (Σ Z Zᵀ)⁻¹ ≈ σ²/(n ‖V*‖²_F) I, so ε = σ/(√n ‖V*‖_F).

    Returns
    -------
    DataFrame with one row per (n, seed): ``true`` (R of A*), ``simulated`` (R(Â) − R), ``first_order``
    (:func:`bulk_inflation`), ``paper`` ((T − R)/(2n)).
    """
    if min(ns) < 1 or not list(seeds):
        raise ValueError(f"need positive sample counts and at least one seed, got ns={ns}, seeds={seeds}")
    spectrum = teacher_spectrum(r_star, profile).numpy()
    true = float(spectral.effective_rank(np.diag(spectrum)))
    rows = []
    for n in ns:
        for seed in seeds:
            task = make_surrogate_task(T, D, r_star, n, sigma, seed, profile)
            estimate = estimators.surrogate_operator_v_known(task).operator.double()
            eps = sigma / math.sqrt(n * float(task.V.double().pow(2).sum()))
            rows.append({"n": n, "seed": seed, "true": true,
                         "simulated": float(spectral.effective_rank(estimate)) - true,
                         "first_order": bulk_inflation(spectrum, eps, T - r_star), "paper": (T - true) / (2 * n)})
    return pd.DataFrame(rows)

