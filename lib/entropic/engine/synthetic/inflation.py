"""Recovery from finite samples (the paper's Theorems 4/8): how a Marchenko–Pastur noise bulk inflates a
spectral entropy rank, used by the theory page.

* :func:`quarter_circle_moments`: the moments of the bulk's limit law;
* :func:`bulk_inflation`: the first-order increase of the effective rank (eq. 1) or the energy effective
  rank (eq. 2) when a small bulk joins the signal singular values;
* :func:`mp_check`: that prediction beside least-squares estimates from data and the paper's correction.

Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank. Every function that draws takes a seed.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import spectral
from . import estimators
from .tasks import make_surrogate_task, teacher_spectrum


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

