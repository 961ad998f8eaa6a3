"""The small experiments of the teaching page (the Argument part): the Eckart–Young picture, rank sweeps of
the §4 surrogate and of §6 attention-native tasks, the students of the §5 ladder scored on their training
set and on fresh inputs, and the output energies that size the §6 gaps. Their figures are drawn by
``argument.figures``; the theory page's checks compute in ``theorems`` and ``inflation``.

Each experiment is seeded and runs on one CPU thread (the caller sets ``torch.set_num_threads``): seconds at
the page's sizes, about a minute and a half for the ladder at the paper's §5 sizes.
Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from ..engine.synthetic import theorems
from ..engine.synthetic.models import QKStudents, SurrogateStudents
from ..engine.synthetic.population import ladder_excesses
from ..engine.synthetic.tasks import (
    attention_scores,
    make_attention_task,
    make_surrogate_task,
    orthonormal_basis,
    teacher_spectrum,
)
from ..engine.synthetic.train import rank_sweep, train


def eckart_young_demo(T: int = 8, competitors: int = 200, seed: int = 0) -> pd.DataFrame:
    """One (T, T) matrix M with singular values 1/j: for every r < T, ‖M − M_r‖²_F of the truncated SVD, the
    tail Σ_{j>r} σ_j², and the best of ``competitors`` random rank-r fits Q Qᵀ M (Q : (T, r) orthonormal)."""
    if T < 2 or competitors < 1:
        raise ValueError(f"need T >= 2 and competitors >= 1, got T={T}, competitors={competitors}")
    gen = torch.Generator().manual_seed(seed)
    s = teacher_spectrum(T, "power_law")
    M = ((orthonormal_basis(T, T, gen) * s) @ orthonormal_basis(T, T, gen).T).numpy()
    rows = []
    for r in range(T):  # r = T leaves no error to show on a log axis
        fits = [np.sum((M - Q @ Q.T @ M) ** 2) for Q in (orthonormal_basis(T, r, gen).numpy() if r else
                                                         np.zeros((T, 1)) for _ in range(competitors))]
        rows.append({"r": r, "truncation": float(np.sum((M - theorems.truncate(M, r)) ** 2)),
                     "tail": float(np.sum(s.numpy()[r:] ** 2)), "best_random": float(min(fits))})
    return pd.DataFrame(rows)


def excess_ratio(profile: str = "sharp", r_star: int = 3, r_a: int = 1, r_b: int = 2) -> float:
    """Closed-form ratio of the rank-r_a to the rank-r_b excess for isotropic inputs (Theorem 5 is exact
    there): Σ_{j>r_a} λ_j² / Σ_{j>r_b} λ_j², with λ the teacher spectrum of ``tasks.teacher_spectrum``."""
    if not 0 <= r_a < r_star or not 0 <= r_b < r_star:
        raise ValueError(f"the ranks compared must lie below r_star={r_star}, got {r_a} and {r_b}")
    lam2 = teacher_spectrum(r_star, profile) ** 2
    return float(lam2[r_a:].sum() / lam2[r_b:].sum())


def surrogate_sweep(T: int = 8, D: int = 6, r_star: int = 3, n: int = 200, sigma: float = 0.05, seed: int = 0,
                    steps: int = 400, profile: str = "sharp") -> pd.DataFrame:
    """Students Ŷ = A X V of rank r = 1 … 2r*, trained with Adam (``train.train``) on one §4 task.

    Returns one row per r: ``excess`` (converged training loss − floor), ``optimum`` (the population
    rank-r optimum ‖V*‖²_F Σ_{j>r} λ_j²), ``floor`` (σ²TD).
    """
    task = make_surrogate_task(T, D, r_star, n, sigma, seed, profile)
    ranks = rank_sweep(r_star)
    result = train(SurrogateStudents([seed], ranks, T, D), task.X, task.Y, steps, progress=False)
    return pd.DataFrame({"r": ranks, "excess": result.tail_min[0] - task.noise_floor, "floor": task.noise_floor,
                         "optimum": [theorems.rank_r_optimum(task.operator, task.V, r)[0] for r in ranks]})


def attention_sweep(teacher: str = "linear_qk", T: int = 8, D: int = 8, r_star: int = 2, n: int = 200,
                    sigma: float = 0.05, seed: int = 0, steps: int = 400) -> pd.DataFrame:
    """Attention students [softmax](X W_Q W_Kᵀ Xᵀ/√D) X V of rank r = 1 … 2r* on one §6 attention-native task.

    Returns one row per r: ``excess``, ``floor``, and ``signal``: the teacher's mean output energy
    E‖M*(X) X V*‖²_F per sample, the scale every excess of this task is measured against.
    """
    task = make_attention_task(teacher, T, D, r_star, n, sigma, seed)
    softmax = teacher == "softmax_qk"
    ranks = rank_sweep(r_star)
    result = train(QKStudents([seed], ranks, T, D, softmax=softmax), task.X, task.Y, steps, progress=False)
    clean = attention_scores(task.X.double(), task.operator.double(), softmax) @ task.X.double() @ task.V.double()
    return pd.DataFrame({"r": ranks, "excess": result.tail_min[0] - task.noise_floor, "floor": task.noise_floor,
                         "signal": float(clean.pow(2).sum((1, 2)).mean())})



def output_energies(teacher: str = "linear_qk", T: int = 8, D: int = 8, r_star: int = 2, n: int = 200,
                    seed: int = 0, profile: str = "sharp") -> dict[str, float]:
    """Mean energies per sample of a §6 teacher's clean output M*(X) X V* on the inputs of its task
    (``tasks.make_attention_task``, the same seed, so the same X and V* as :func:`attention_sweep`).

    ``total`` is E‖M*(X) X V*‖²_F. ``last`` is E‖(M*(X) − M₋(X)) X V*‖²_F, where M₋ is the mixer of K* with its
    smallest direction λ_{r*} u uᵀ removed: the part of the output that a kernel of rank r* − 1 built from the
    teacher's other directions cannot produce, an estimate of what a student one rank short pays.
    """
    task = make_attention_task(teacher, T, D, r_star, n, 0.0, seed, profile)
    X, K, V = task.X.double(), task.operator.double(), task.V.double()
    softmax = teacher == "softmax_qk"
    w, U = torch.linalg.eigh(K)  # ascending, K* ⪰ 0 of rank r*: its smallest direction sits at index D − r*
    u = U[:, D - r_star]
    clean = attention_scores(X, K, softmax) @ X @ V
    short = attention_scores(X, K - w[D - r_star] * torch.outer(u, u), softmax) @ X @ V
    return {"total": float(clean.pow(2).sum((1, 2)).mean()), "last": float((clean - short).pow(2).sum((1, 2)).mean())}


def break_demo(T: int = 8, D: int = 6, r_star: int = 3, n: int = 200, sigma: float = 0.05, seed: int = 0,
               steps: int = 600, fresh: int = 4000) -> dict:
    """The §5 break at the page's size: B0, B1, B1c and B2 at rank r* (:func:`ladder_excesses`, ``steps`` fixed
    Adam steps), and the mixer the B1c student realizes on two of its training inputs.

    Returns
    -------
    :func:`ladder_excesses`'s dict, with ``operator`` : (T, T) A* and ``mixers`` : (2, T, T).
    """
    out = ladder_excesses(("B0", "B1", "B1c", "B2"), T, D, r_star, n, sigma, seed, steps, 1e-2, "fixed", fresh)
    model = out["students"]["B1c"]
    with torch.no_grad():
        mixers = model.mixer(out["task"].X[None, :2].to(next(model.parameters()).device))[0, 0].cpu()
    return {**out, "operator": out["task"].operator.numpy(), "mixers": mixers.numpy()}
