"""§4's fits, one function per kind of job (``FITS``): the rank sweep, the recovery student and the data-only
estimate; and the noise floor the sweep stores, which the tables read."""

from __future__ import annotations

import torch

from ...engine import spectral
from ...engine.synthetic import estimators
from ...engine.synthetic.models import SurrogateStudents
from ...engine.synthetic.tasks import make_surrogate_task
from ...engine.synthetic.train import StopRule, rank_sweep, train
from ...jobs.store import Job


def eckart_young_excess(operator: torch.Tensor, V: torch.Tensor, r: int) -> float:
    """Population excess of the best rank-r student for X ~ N(0, I): ‖V*‖²_F · Σ_{j>r} σ_j(A*)²
    (the exact optimum of Theorem 5 for Gaussian inputs, where E‖M X V‖²_F = ‖M‖²_F ‖V‖²_F)."""
    tail = torch.linalg.svdvals(operator.double())[r:]
    return float(V.double().pow(2).sum() * tail.pow(2).sum())


def _task(p: dict):
    return make_surrogate_task(p["T"], p["d"], p["r_star"], p["n"], p["sigma"], p["seed"], p["spectrum"])


def fit_data_only(job: Job) -> dict[str, list[dict]]:
    """The V-known estimate of A* and its numerical rank, from the data alone (no training)."""
    p = job.params
    est = estimators.surrogate_operator_v_known(_task(p))
    return {"data_only": [{"seed": p["seed"], "numerical_rank": est.numerical_rank, "noise_edge": est.noise_edge,
                           "energy_effective_rank": est.energy_effective_rank}]}


def fit_sweep(job: Job) -> dict[str, list[dict]]:
    """The rank sweep r = 1 … 2r*: excess risk of every student beside the Eckart–Young optimum."""
    p = job.params
    task, ranks = _task(p), rank_sweep(p["r_star"])
    students = SurrogateStudents([p["seed"]], ranks, p["T"], p["d"], init_scale=1.0)
    result = train(students, task.X, task.Y, p["steps"], p["lr"], progress=False, stop=StopRule(p["stop"]))
    return {"sweep": [{"seed": p["seed"], "r": r, **result.student(0, s), "noise_floor": task.noise_floor,
                       "excess": result.student(0, s)["loss"] - task.noise_floor,
                       "eckart_young": eckart_young_excess(task.operator, task.V, r)}
                      for s, r in enumerate(ranks)]}


def fit_recovery(job: Job) -> dict[str, list[dict]]:
    """The over-parameterized student (r = T, small initialization) and the ranks of what it learned."""
    p = job.params
    task = _task(p)
    students = SurrogateStudents([p["seed"]], [p["T"]], p["T"], p["d"], init_scale=p["init_scale"])
    result = train(students, task.X, task.Y, p["steps"], p["lr"], progress=False, stop=StopRule(p["stop"]))
    A = students.kernel().detach().cpu()[0, 0]
    return {"recovery": [{"seed": p["seed"], **result.student(0, 0), "excess": result.student(0, 0)["loss"]
                          - task.noise_floor,
                          "effective_rank": float(spectral.effective_rank(A)),
                          "mp_corrected": float(spectral.mp_corrected_effective_rank(A, n=p["n"])),
                          "energy_effective_rank": float(spectral.energy_effective_rank(A)),
                          "teacher_effective_rank": float(spectral.effective_rank(task.operator)),
                          "teacher_energy_effective_rank": float(spectral.energy_effective_rank(task.operator))}]}


# Each kind of job has its own function, so its version key covers only the code that kind runs.
FITS = {"sweep": fit_sweep, "recovery": fit_recovery, "data_only": fit_data_only}


def fit(job: Job) -> dict[str, list[dict]]:
    return FITS[job.params["kind"]](job)


def noise_floor(results) -> float:
    return float(results["sweep"]["noise_floor"].iloc[0])
