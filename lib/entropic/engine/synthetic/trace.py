"""One over-parameterized recovery student of §6 retrained with its learned kernel measured at every step: where
its loss is lowest, and whether the loss spikes of an unstable student move the rank read at its last step.

The student and its training are the recovery protocol of App. C (``protocol.units``: one ``QKStudents`` of rank
d initialized × ``init_scale``, full-batch Adam, the fixed step count), written as a plain loop so that the
kernel is read before every update, where the batched trainer (``train.train``) records only the loss. Used by
§6's page (``sections/attention_native``) for the students it flags unstable.
"""

from __future__ import annotations

import numpy as np
import torch

from .. import spectral
from .models import QKStudents
from .tasks import make_attention_task
from .train import UNSTABLE_RISE


def recovery_trace(teacher: str, T: int, d: int, r_star: int, n: int, sigma: float, seed: int, spectrum: str,
                   steps: int, lr: float, init_scale: float) -> dict[str, list[dict]]:
    """Train the recovery student of one task, reading its loss and its kernel's ranks (eq. 1, eq. 2) before
    every Adam step and after the last.

    Returns
    -------
    ``{"trace": [one row]}``: the task's coordinates; the step of the lowest loss and the last step; the loss
    and both ranks at each; the largest one-step rise of the loss over the second half of training relative to
    its lowest there (above ``UNSTABLE_RISE`` the student spikes); and the largest change of each rank over the
    second half.
    """
    task = make_attention_task(teacher, T, d, r_star, n, sigma, seed, spectrum)
    student = QKStudents([seed], [d], T, d, init_scale=init_scale, softmax=teacher == "softmax_qk")
    optimizer = torch.optim.Adam(student.parameters(), lr=lr)
    X, Y = task.X[None], task.Y[None]
    loss, shannon, energy = np.empty(steps + 1), np.empty(steps + 1), np.empty(steps + 1)
    for step in range(steps + 1):
        optimizer.zero_grad(set_to_none=True)
        value = student.loss(X, Y) / task.X.shape[0]
        kernel = student.kernel().detach()[0, 0].double()
        loss[step] = float(value.detach().sum())
        shannon[step] = float(spectral.effective_rank(kernel))
        energy[step] = float(spectral.energy_effective_rank(kernel))
        if step < steps:
            value.sum().backward()
            optimizer.step()
    lowest, half = int(np.argmin(loss)), steps // 2
    late = loss[half:]
    rise = float(max(0.0, np.diff(late).max()) / late.min()) if len(late) > 1 else 0.0
    row = {"teacher": teacher, "r_star": r_star, "seed": seed, "noise_floor": task.noise_floor,
           "teacher_energy_effective_rank": float(spectral.energy_effective_rank(task.operator)),
           "lowest_step": lowest, "last_step": steps, "lowest_loss": float(loss[lowest]), "last_loss": float(loss[-1]),
           "effective_rank_at_lowest": float(shannon[lowest]), "effective_rank_at_last": float(shannon[-1]),
           "energy_rank_at_lowest": float(energy[lowest]), "energy_rank_at_last": float(energy[-1]),
           "late_max_rise": rise, "spikes": bool(rise > UNSTABLE_RISE),
           "late_effective_rank_range": float(np.ptp(shannon[half:])),
           "late_energy_rank_range": float(np.ptp(energy[half:]))}
    return {"trace": [row]}
