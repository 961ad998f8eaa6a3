"""The small experiments of the teaching page (the Argument part): the Eckart–Young picture, rank sweeps of
the §4 surrogate and of §6 attention-native tasks, the students of the §5 ladder scored on their training
set and on fresh inputs, the equivariance bound's share against T, the output energies that size the §6 gaps,
a recovered kernel's spectrum (Shannon against energy rank), r* read from data before training, and the
static kernel's rank on tasks inside and outside the attention class (App. B in miniature). Their figures are
drawn by ``argument.figures``; the lesson's slides and handout by ``argument.lesson``; the theory page's checks
compute in ``theorems`` and ``inflation``.

Each experiment is seeded and runs on one CPU thread (the caller sets ``torch.set_num_threads``): seconds at
the page's sizes, about a minute and a half for the ladder at the paper's §5 sizes.
Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from ..engine import spectral
from ..engine.synthetic import theorems
from ..engine.synthetic.attention_estimators import attention_kernel_v_known
from ..engine.synthetic.models import QKStudents, SurrogateStudents
from ..engine.synthetic.population import ladder_excesses
from ..engine.synthetic.tasks import (
    TEACHERS,
    attention_scores,
    make_attention_task,
    make_surrogate_task,
    orthonormal_basis,
    teacher_spectrum,
)
from ..engine.synthetic.train import rank_sweep, train
from ..report.numbers import number


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
    there): Σ_{j>r_a} σ_j(A*)² / Σ_{j>r_b} σ_j(A*)², with σ_j(A*) = λ_j the spectrum of this symmetric teacher
    (``tasks.teacher_spectrum``)."""
    if not 0 <= r_a < r_star or not 0 <= r_b < r_star:
        raise ValueError(f"the ranks compared must lie below r_star={r_star}, got {r_a} and {r_b}")
    lam2 = teacher_spectrum(r_star, profile) ** 2
    return float(lam2[r_a:].sum() / lam2[r_b:].sum())


def surrogate_sweep(T: int = 8, D: int = 6, r_star: int = 3, n: int = 200, sigma: float = 0.05, seed: int = 0,
                    steps: int = 400, profile: str = "sharp") -> pd.DataFrame:
    """Students Ŷ = A X V of rank r = 1 … 2r*, trained with Adam (``train.train``) on one §4 task.

    Returns one row per r: ``excess`` (converged training loss − floor), ``optimum`` (the population
    rank-r optimum ‖V*‖²_F Σ_{j>r} σ_j(A*)²), ``floor`` (σ²TD).
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


def first_failing_rung(excess: pd.DataFrame, noise_floor: float, band: float) -> str | None:
    """The first rung of the ladder (in the order of ``excess``, :func:`break_demo`'s table) whose population
    excess at rank r* leaves the achievability band, ``band`` · the noise floor; None when every rung stays in."""
    if not band > 0 or not noise_floor > 0:
        raise ValueError(f"band and noise_floor must be positive, got {band} and {noise_floor}")
    out = excess[excess["population"] > band * noise_floor]
    return None if out.empty else str(out["rung"].iloc[0])


def bound_share(tokens=(4, 8, 16, 32), D: int = 6, r_star: int = 3, seed: int = 0,
                profile: str = "sharp") -> pd.DataFrame:
    """The equivariance bound as a share of the excess of the predictor 0, on §5 tasks of ``seed`` with T tokens.

    ``share`` is ``theorems.equivariant_floor`` / (‖V*‖²_F ‖A*‖²_F), exact for each task; ``first_order`` is
    1 − (Σλ)²/(T Σλ²): A*'s diagonal carries tr A* = Σλ, which a token-symmetric predictor keeps as its mean
    (tr A*/T) I, and the rest of A* (its off-diagonal mean is O(1/T²)) is lost. One row per T.
    """
    lam = teacher_spectrum(r_star, profile).numpy()
    rows = []
    for T in tokens:
        if T < max(2, r_star):
            raise ValueError(f"every T must be at least max(2, r_star={r_star}), got {T}")
        task = make_surrogate_task(T, D, r_star, 2, 0.0, seed, profile)
        A, V = task.operator.double().numpy(), task.V.double().numpy()
        zero = float(np.sum(V**2) * np.sum(A**2))
        rows.append({"T": T, "share": theorems.equivariant_floor(A, V) / zero,
                     "first_order": 1 - lam.sum() ** 2 / (T * np.sum(lam**2))})
    return pd.DataFrame(rows)


def recovery_spectrum(teacher: str = "softmax_qk", T: int = 8, D: int = 16, r_star: int = 3, n: int = 400,
                      sigma: float = 0.05, seed: int = 0, steps: int = 800, init_scale: float = 0.3) -> dict:
    """One over-parameterized student (rank D, initialized × ``init_scale``, App. C's recovery protocol) trained
    on a §6 task: the singular values of its kernel K and of the teacher's K*, and their effective ranks.

    Returns
    -------
    dict with ``learned`` and ``teacher`` : (D,) singular values, ``shannon`` and ``energy`` (eq. 1 and eq. 2)
    of each as ``{"learned": …, "teacher": …}``, and ``excess`` (training loss − floor).
    """
    task = make_attention_task(teacher, T, D, r_star, n, sigma, seed)
    student = QKStudents([seed], [D], T, D, init_scale=init_scale, softmax=teacher == "softmax_qk")
    result = train(student, task.X, task.Y, steps, progress=False)
    kernels = {"learned": student.kernel().detach()[0, 0].double(), "teacher": task.operator.double()}
    return {**{name: spectral.singular_values(K).numpy() for name, K in kernels.items()},
            "shannon": {name: float(spectral.effective_rank(K)) for name, K in kernels.items()},
            "energy": {name: float(spectral.energy_effective_rank(K)) for name, K in kernels.items()},
            "excess": float(result.final_loss[0, 0]) - task.noise_floor}


def data_only_estimates(T: int = 8, D: int = 16, r_star: int = 3, n: int = 200, sigma: float = 0.05,
                        seed: int = 0) -> pd.DataFrame:
    """r* read from data before any training: the V-known kernel estimate K̂ of a linear and a softmax teacher
    (``attention_estimators.attention_kernel_v_known``) on the §6 tasks of ``seed``. One row per teacher: the
    numerical rank of K̂ (singular values above twice its noise edge), its energy effective rank (eq. 2), the
    teacher's, K̂'s relative error ‖K̂ − K*‖_F/‖K*‖_F, the noise edge and K̂'s singular values (``spectrum``)."""
    rows = []
    for teacher in TEACHERS:
        task = make_attention_task(teacher, T, D, r_star, n, sigma, seed)
        estimate = attention_kernel_v_known(task.X, task.Y, task.V, teacher)
        K = task.operator.double()
        rows.append({"teacher": teacher, "numerical_rank": estimate.numerical_rank,
                     "energy_rank": estimate.energy_effective_rank,
                     "teacher_energy_rank": float(spectral.energy_effective_rank(K)),
                     "relative_error": float((estimate.kernel - K).norm() / K.norm()),
                     "noise_edge": estimate.noise_edge, "spectrum": spectral.singular_values(estimate.kernel).numpy()})
    return pd.DataFrame(rows)


def static_rank_sweep(task: str = "linear_qk", T: int = 8, D: int = 8, r_stars=(1, 2, 3, 4, 5, 6), n: int = 200,
                      sigma: float = 0.05, seed: int = 0, steps: int = 800, init_scale: float = 0.3) -> pd.DataFrame:
    """The static kernel's rank against the task's r*: one linear-QK student of full width D per task (App. C's
    recovery protocol), all trained as one batch, on tasks of rank r* = ``r_stars`` inside the attention class
    (``task="linear_qk"``, a §6 teacher) or outside it (``"surrogate"``, a §5 fixed operator A*).

    Returns one row per r*: ``learned`` (eq. 2 of the learned K), ``teacher`` (eq. 2 of the task's operator, K* or
    A*), ``excess`` (training loss − floor), ``floor`` (the task's noise floor)."""
    if task not in ("linear_qk", "surrogate"):
        raise ValueError(f"task must be 'linear_qk' or 'surrogate', got {task!r}")
    tasks = [make_attention_task("linear_qk", T, D, r, n, sigma, seed) if task == "linear_qk"
             else make_surrogate_task(T, D, r, n, sigma, seed) for r in r_stars]
    student = QKStudents([seed + k for k in range(len(tasks))], [D], T, D, init_scale=init_scale)
    result = train(student, torch.stack([t.X for t in tasks]), torch.stack([t.Y for t in tasks]), steps,
                   progress=False)
    kernels = student.kernel().detach()[:, 0].double()  # (G, D, D)
    return pd.DataFrame({"r_star": list(r_stars), "learned": spectral.energy_effective_rank(kernels).numpy(),
                         "teacher": [float(spectral.energy_effective_rank(t.operator)) for t in tasks],
                         "excess": result.final_loss[:, 0] - np.array([t.noise_floor for t in tasks]),
                         "floor": [t.noise_floor for t in tasks]})


def rank_slope(table: pd.DataFrame) -> float:
    """The least-squares slope of the learned rank against r* in a :func:`static_rank_sweep` table."""
    if len(table) < 2:
        raise ValueError(f"a slope needs at least two tasks, got {len(table)}")
    return float(np.polyfit(table["r_star"].to_numpy(float), table["learned"].to_numpy(float), 1)[0])


def sizes_clause(paper: dict, shown: dict) -> str:
    """How the ladder section's sizes ``shown`` stand to the paper's §5 sizes ``paper`` (each ``{"T", "d",
    "r_star"}``), as the end of the teaching page's sentence "the section … of this book …": "runs it at the same
    sizes", or the sizes it runs at when they differ (a smaller profile)."""
    keys = ("T", "d", "r_star")
    if any(key not in paper or key not in shown for key in keys):
        raise ValueError(f"both sizes need {keys}, got {sorted(paper)} and {sorted(shown)}")
    if all(paper[key] == shown[key] for key in keys):
        return "runs it at the same sizes"
    return f"runs it at $T = {shown['T']}$, $d = {shown['d']}$, $r^* = {shown['r_star']}$"


def predict_reading(estimates: pd.DataFrame, r_star: int, tolerance: float) -> dict:
    """What the data-only estimates of :func:`data_only_estimates` (indexed by teacher) show, in words that follow
    them: per teacher whether the count of singular values is r* and whether the energy rank is within
    ``tolerance`` (a share) of the teacher's; the lesson's take-away, the solution's conclusion and the summary's
    clause and the lesson plan's cell (``path``), each saying "exactly" only of a teacher read exactly and "in part"
    only of one that is not."""
    exact = {}
    for teacher, row in estimates.iterrows():
        within = abs(row["energy_rank"] - row["teacher_energy_rank"]) <= tolerance * row["teacher_energy_rank"]
        exact[teacher] = bool(row["numerical_rank"] == r_star and within)
    both = all(exact.values())
    error = {t: 100 * float(estimates.loc[t, "relative_error"]) for t in estimates.index}
    words = {t: "exactly" if ok else "only in part" for t, ok in exact.items()}
    if both:
        takeaway = ("In this miniature data reveal $r^*$ before training for both teachers; softmax costs accuracy in "
                    "the kernel itself, not in its rank.")
        shows = (f"data-only prediction reads $r^*$ for both teachers here, and softmax shows up as the kernel's "
                 f"error ({error.get('softmax_qk', math.nan):.0f} % against "
                 f"{error.get('linear_qk', math.nan):.0f} %); whether one estimator reads it across the paper's whole "
                 f"softmax grid is the frontier that {{doc}}`predictability` and {{doc}}`frontier` take up.")
        summary = "data give it before training for both teachers in the miniature"
        path = "both teachers"
    else:
        takeaway = (f"Data reveal $r^*$ {words.get('linear_qk', '')} for linear attention, "
                    f"{words.get('softmax_qk', '')} under softmax.")
        shows = (f"data-only prediction is {words.get('linear_qk', '')} right for linear attention and "
                 f"{words.get('softmax_qk', '')} right under softmax, the frontier the paper draws and "
                 f"{{doc}}`frontier` takes up.")
        summary = (f"data give it {words.get('linear_qk', '')} for linear attention, {words.get('softmax_qk', '')} "
                   f"under softmax")
        path = "; ".join(f"{name}: {'exact' if exact.get(teacher) else 'in part'}"
                         for name, teacher in (("linear", "linear_qk"), ("softmax", "softmax_qk")))
    return {"exact": exact, "takeaway": takeaway, "shows": shows, "summary": summary, "path": path}


def claim_sentence(row: pd.Series) -> str:
    """App. B's main test in one sentence from its ledger ``row`` (the Pearson claim): what the paper reports, our
    correlation with its permutation p, and the claim's verdict, as the ledger decides it."""
    p = "" if pd.isna(row.get("p")) else f" (p = {number(row['p'])})"
    return (f"App. B asks whether a text model's measured kernel rank follows the rank predicted from its corpus: the "
            f"paper reports r = {number(row['paper value'])} ({row['where']}), and on our six corpora r = "
            f"{number(row['ours'])}{p}, {row['verdict']} ({{doc}}`real_corpora`).")
