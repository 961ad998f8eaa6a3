"""The frontier's fits, one function per kind of job (``FITS``), so that each kind's version key covers only the
estimators it runs (see the package docstring)."""

from __future__ import annotations

import time
from functools import cache

import torch

from ...engine import spectral
from ...engine.synthetic import attention_estimators as existing
from ...engine.synthetic import softmax_estimators as new
from ...engine.synthetic import softmax_students as students
from ...engine.synthetic.tasks import make_attention_task
from ...jobs.store import Job
from .spec import GOAL_ESTIMATOR, TASK


@cache
def _warm_up() -> None:
    """Call once, untimed, the torch routines the estimators use (LAPACK, autograd, L-BFGS), so that no timed
    estimator pays their first-call cost (about a second). No estimator's code runs here, so no job's
    version key depends on another kind's estimators."""
    A = torch.eye(6, dtype=torch.float64) + 0.1 * torch.ones(6, 6, dtype=torch.float64)
    torch.linalg.lstsq(A, A, driver="gelsd")
    torch.linalg.svd(A)
    torch.linalg.matrix_norm(A, ord=2)
    L, _ = torch.linalg.cholesky_ex(A)
    torch.cholesky_solve(A, L)
    torch.linalg.solve_triangular(L, A, upper=False)
    K = torch.zeros(6, 6, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([K], max_iter=3, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (A @ K).softmax(-1).logsumexp(-1).sum() + (K - A).pow(2).sum()
        loss.backward()
        return loss

    opt.step(closure)


def _task(p: dict):
    return make_attention_task("softmax_qk", p["T"], p["d"], p["r_star"], p["n"], p["sigma"], p["seed"], p["spectrum"])


def _run(p: dict, task, estimator: str, compute) -> dict:
    """One row: the estimator's readings (``compute()`` → (integer rank or None, R̃_eff, converged, iterations)),
    its wall time and the reference columns. A ValueError (too few samples for the estimator, a diverged fit)
    is recorded in ``failure`` with null readings, not raised: a failed estimate is a result of the frontier."""
    _warm_up()
    start = time.perf_counter()
    try:
        rank, energy, converged, iterations = compute()
        failure = ""
    except ValueError as error:
        rank, energy, converged, iterations, failure = None, None, False, 0, str(error)
    return {"setting": p["setting"], **{k: p[k] for k in TASK}, "estimator": estimator,  # None: stored as null
            "numerical_rank": None if rank is None else int(rank), "energy_rank": None if energy is None else
            float(energy),
            "teacher_energy_rank": float(spectral.energy_effective_rank(task.operator.double())),
            "converged": converged, "iterations": iterations, "seconds": time.perf_counter() - start,
            "failure": failure}


def _v_known_log(task):
    fit = existing.attention_kernel_v_known(task.X, task.Y, task.V, "softmax_qk")
    return fit.numerical_rank, fit.energy_effective_rank, True, 1


def _softmax(function, task, v_known: bool):
    fit = function(task.X, task.Y, task.V if v_known else None)
    return fit.numerical_rank, fit.energy_effective_rank, fit.converged, fit.iterations


def fit_existing(job: Job) -> dict[str, list[dict]]:
    """The estimators of ``attention_estimators``, as the Table 4 page runs them (``predict_rank``'s calls)."""
    p = job.params
    task = _task(p)

    def alternating(shrinkage):
        fit = existing.attention_kernel_v_unknown(task.X, task.Y, "softmax_qk", shrinkage=shrinkage,
                                                  shrink_multiple=p["shrink_multiple"], max_iter=p["max_iter"])
        return fit.numerical_rank, fit.energy_effective_rank, fit.converged, fit.iterations

    def mixer():
        mixing = existing.recover_mixing(task.X, task.Y, task.V).mixing
        return None, existing.realized_mixer_energy_rank(mixing), True, 1

    return {"estimates": [_run(p, task, "v_known_log", lambda: _v_known_log(task)),
                          _run(p, task, "v_unknown_alternating", lambda: alternating(None)),
                          _run(p, task, "v_unknown_alternating_shrunk", lambda: alternating("auto")),
                          _run(p, task, "realized_mixer", mixer)]}


def _fit_softmax(job: Job, function, name: str) -> dict[str, list[dict]]:
    """One of ``engine.synthetic.softmax_estimators``' fits, V-known and V-unknown, on the job's task: its two rows."""
    p = job.params
    task = _task(p)
    return {"estimates": [_run(p, task, f"v_{v}_{name}", lambda v=v: _softmax(function, task, v == "known"))
                          for v in ("known", "unknown")]}


def fit_least_squares(job: Job) -> dict[str, list[dict]]:
    return _fit_softmax(job, new.kernel_least_squares, "least_squares")


def _split_half_logistic(X, Y, V):
    """``kernel_logistic`` read by the split-half rule alone, as the grid and the held-out settings declared it: a
    half-sample fit that diverges is a failed fit there (the small-n reading was declared for the phase cells)."""
    return new.kernel_logistic(X, Y, V, reading="split_half")


def fit_logistic(job: Job) -> dict[str, list[dict]]:
    return _fit_softmax(job, _split_half_logistic, "logistic")


def _spectrum(fit, threshold: float):
    """The singular values of K̂ and its rank under both rules: (integer rank, R̃_eff, converged, iterations,
    extra columns: the singular values, the split-half threshold and the Gavish–Donoho threshold and rank)."""
    sv = torch.linalg.svdvals(fit.kernel)
    gd = students.gavish_donoho_threshold(sv)
    return {"singular_values": [float(v) for v in sv], "split_threshold": float(threshold),
            "gd_threshold": gd, "gd_rank": int((sv > gd).sum())}


def _phase_run(p: dict, task, estimator: str, estimate) -> dict:
    """One phase row: ``_run``'s columns and ``_spectrum``'s (null where the estimate failed)."""
    kept = {}

    def compute():
        fit, threshold = estimate()
        kept.update(_spectrum(fit, threshold))
        return fit.numerical_rank, fit.energy_effective_rank, getattr(fit, "converged", True), \
            getattr(fit, "iterations", 1)

    row = _run(p, task, estimator, compute)
    return {**row, **{k: kept.get(k) for k in ("singular_values", "split_threshold", "gd_threshold", "gd_rank")}}


def _log_inversion(task):
    fit = existing.attention_kernel_v_known(task.X, task.Y, task.V, "softmax_qk")
    sv1 = float(torch.linalg.matrix_norm(fit.kernel, ord=2))
    return fit, max(2 * fit.noise_edge, fit.kernel.shape[-1] * float(torch.finfo(torch.float32).eps) * sv1)


def fit_phase(job: Job) -> dict[str, list[dict]]:
    """One cell of the phase diagrams and seed: both estimators of ``PHASE``, with their K̂'s singular values."""
    p = job.params
    task = _task(p)

    def least_squares():
        fit = new.kernel_least_squares(task.X, task.Y, None)
        return fit, fit.threshold

    return {"phase": [_phase_run(p, task, "v_known_log", lambda: _log_inversion(task)),
                      _phase_run(p, task, "v_unknown_least_squares", least_squares)]}


def fit_phase_goal(job: Job) -> dict[str, list[dict]]:
    """One cell of the phase diagrams and seed: the goal estimator by the rule declared for small n, which is
    ``kernel_logistic``'s own (its split-half reading, or, where a half-sample fit diverged while the fit on all
    samples succeeded, the all-n reading, with what failed; a fit that fails on all samples is a failed fit)."""
    p = job.params
    task = _task(p)
    failed = {}

    def estimate():
        fit = new.kernel_logistic(task.X, task.Y, None)
        failed["half"] = fit.half_sample_failure
        return fit, fit.threshold

    row = _phase_run(p, task, GOAL_ESTIMATOR, estimate)
    return {"phase_goal": [{**row, "half_sample_failure": failed.get("half", "")}]}


def fit_student(job: Job) -> dict[str, list[dict]]:
    """The V-unknown least-squares estimate and an unconstrained student (K, V) trained from zero by L-BFGS
    on the same loss, on one grid task: how far apart their K are, their losses, ranks and costs."""
    p = job.params
    task = _task(p)
    _warm_up()
    start = time.perf_counter()
    fit = new.kernel_least_squares(task.X, task.Y, None)
    seconds = time.perf_counter() - start
    student = students.train_unconstrained(task.X, task.Y)
    rank, energy, _ = new.read_ranks(student.kernel, fit.threshold)
    return {"student": [{**{k: p[k] for k in TASK}, "relative_difference_K": students.relative_difference(
        student.kernel, fit.kernel), "estimator_loss": fit.loss, "student_loss": student.loss,
        "estimator_rank": fit.numerical_rank, "student_rank": rank, "estimator_energy_rank": fit.energy_effective_rank,
        "student_energy_rank": energy, "estimator_seconds": seconds, "student_seconds": student.seconds,
        "student_iterations": student.iterations, "student_converged": student.converged,
        "teacher_energy_rank": float(spectral.energy_effective_rank(task.operator.double()))}]}


FITS = {"existing": fit_existing, "least_squares": fit_least_squares, "logistic": fit_logistic, "phase": fit_phase,
        "phase_goal": fit_phase_goal, "student": fit_student}


def fit(job: Job) -> dict[str, list[dict]]:
    return FITS[job.params["kind"]](job)
