"""The teacher–student protocol of App. C: draw a task, train a batch of students on it, return one
row of numbers per student.

One task is two units of work (:func:`units`): its rank sweep r = 1 … 2r* and its over-parameterized
recovery student; :func:`run` computes one unit from its flat parameters. Used by the sections that
train attention students on attention-native teachers (§6 Table 3 and the App. D ablation). Knows
nothing of sections or stores: it takes and returns plain dicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import spectral
from .models import QKStudents
from .tasks import make_attention_task
from .train import StopRule, rank_sweep, train

# Recovery students measure ranks, and the Shannon effective rank of a learned kernel keeps drifting
# after its loss has settled (measured: under softmax it moved by about 2 % between the converged stop
# and the paper's 2,500 steps, enough to change CV_seed fourfold). So the converged rule applies to the
# rank sweeps only; every recovery student runs the paper's step count.
RECOVERY_STOP = "fixed"


def attention_rows(teacher: str, T: int, d: int, r_star: int, n: int, sigma: float, seed: int, spectrum: str,
                   ranks: Sequence[int], steps: int, lr: float, stop: str = "fixed", init_scale: float = 1.0,
                   measure_kernels: bool = False) -> list[dict]:
    """Train QK students of the given ranks on one attention-native task (eq. 9) and describe each.

    Every row holds the task's coordinates (teacher, spectrum, r_star, seed, noise_floor), the student's
    rank ``r``, its training numbers (``TrainResult.student``: ``loss`` is the tail minimum) and
    ``excess = loss − σ²Td``; with ``measure_kernels`` also the effective rank (eq. 1) and energy effective
    rank (eq. 2) of the learned kernel K = W_Q W_Kᵀ and of the teacher's K*.
    """
    task = make_attention_task(teacher, T, d, r_star, n, sigma, seed, spectrum)
    students = QKStudents([seed], list(ranks), T, d, init_scale=init_scale, softmax=teacher == "softmax_qk")
    result = train(students, task.X, task.Y, steps, lr, progress=False, stop=StopRule(stop))
    cell = {"teacher": teacher, "spectrum": spectrum, "r_star": r_star, "seed": seed,
            "noise_floor": task.noise_floor}
    rows = [{**cell, "r": r, **result.student(0, s), "excess": result.student(0, s)["loss"] - task.noise_floor}
            for s, r in enumerate(ranks)]
    if measure_kernels:
        kernels, K_star = students.kernel().detach().cpu()[0], task.operator
        for s, row in enumerate(rows):
            row.update({"effective_rank": float(spectral.effective_rank(kernels[s])),
                        "energy_effective_rank": float(spectral.energy_effective_rank(kernels[s])),
                        "teacher_effective_rank": float(spectral.effective_rank(K_star)),
                        "teacher_energy_effective_rank": float(spectral.energy_effective_rank(K_star))})
    return rows


def units(task: dict, steps: int, recovery_steps: int, recovery_init: float) -> dict[str, dict]:
    """The two units of one App. C task, as ``{kind: parameters for run}``: the rank sweep (``steps``,
    the task's own stop rule) and the recovery student (``recovery_steps``, initialized × ``recovery_init``,
    always the paper's fixed steps: see ``RECOVERY_STOP``). ``task`` holds the other arguments of
    :func:`attention_rows` (teacher, T, d, r_star, n, sigma, seed, spectrum, lr, stop)."""
    return {"sweep": {"kind": "sweep", **task, "steps": steps},
            "recovery": {"kind": "recovery", **task, "stop": RECOVERY_STOP, "steps": recovery_steps,
                         "init_scale": recovery_init}}


def run(params: dict) -> dict[str, list[dict]]:
    """One unit of the App. C protocol from a flat parameter mapping, as ``{kind: rows}``.

    ``params["kind"]`` is ``"sweep"`` (students of rank r = 1 … 2r*, App. C.3) or ``"recovery"`` (one
    over-parameterized student of rank d whose learned kernel is measured); every other key is an
    argument of :func:`attention_rows`.
    """
    p = dict(params)
    kind = p.pop("kind")
    if kind not in ("sweep", "recovery"):
        raise ValueError(f"kind must be 'sweep' or 'recovery', got {kind!r}")
    ranks = rank_sweep(p["r_star"]) if kind == "sweep" else [p["d"]]
    return {kind: attention_rows(**p, ranks=ranks, measure_kernels=kind == "recovery")}
