"""The batched trainer: full-batch Adam over G × S students at once (App. C.4: Adam, lr 1e-2).

Students never interact: the summed loss gives each student exactly its own gradient, and Adam is
elementwise, so one optimizer over the stacked (G, S, ...) parameters equals S·G separate Adams.
Runs on CUDA when available and on the CPU otherwise, with the same code.

Two stop rules (:class:`StopRule`):

* ``fixed``: every student runs the given number of steps (the paper's protocol);
* ``converged``: a student is done once its training loss varies by at most ``rtol`` (relative)
  over the last ``window`` steps: (max − min) / min ≤ rtol. A spike keeps it training, so an unstable
  student never stops early. Students that are done leave the batch as soon as their whole group
  (or, across groups, their whole rank column) is done, so the others run faster. A student's
  results are those of the step it left the batch; the step count is capped at ``steps``.

The "converged MSE" of App. C.5 is reported as the **tail minimum**: the lowest full-batch training
loss over the student's last ``window`` steps. The training loss is deterministic (full batch), and an
optimizer spike only raises it, so a spike cannot dominate this statistic the way it dominates the
loss at the last step. The tail's spread (median, maximum, largest step-to-step rise) is returned
beside it, and a student whose loss rose by more than ``UNSTABLE_RISE`` of its tail minimum within
one step of the tail is flagged unstable.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from .models import BatchedStudents

STOP_RULES = ("fixed", "converged")
UNSTABLE_RISE = 0.05  # a one-step rise above 5 % of the tail minimum marks an unstable (spiking) student


def default_device() -> torch.device:
    """CUDA when available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def rank_sweep(r_star: int) -> list[int]:
    """The student ranks of a deficiency/achievability sweep, r = 1 … 2·r* (App. C.3)."""
    if r_star < 1:
        raise ValueError(f"r_star must be at least 1, got {r_star}")
    return list(range(1, 2 * r_star + 1))


@dataclass(frozen=True)
class StopRule:
    """When a student stops training (see the module docstring).

    kind : ``"fixed"`` or ``"converged"``.
    window : steps of the tail over which convergence and the tail statistics are measured.
    rtol : relative variation of the loss over the window below which a student is converged.
    """

    kind: str = "fixed"
    window: int = 100
    rtol: float = 1e-3

    def __post_init__(self):
        if self.kind not in STOP_RULES:
            raise ValueError(f"stop must be one of {STOP_RULES}, got {self.kind!r}")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 2:
            raise ValueError(f"the stop window must be an integer of at least 2 steps, got {self.window!r}")
        if not self.rtol > 0:
            raise ValueError(f"the stop tolerance must be positive, got {self.rtol!r}")

    def done(self, recent: np.ndarray) -> np.ndarray:
        """Which students are converged, from their last ``window`` losses ``recent`` : (window, G, S)."""
        if self.kind == "fixed" or len(recent) < self.window:
            return np.zeros(recent.shape[1:], dtype=bool)
        low = recent.min(0)
        return (recent.max(0) - low) <= self.rtol * np.abs(low)


FIXED = StopRule("fixed")


@dataclass
class TrainResult:
    """What one training run returns; every array is (G, S) unless stated.

    history : (steps, G, S) training loss before each step; NaN after a student left the batch.
    final_loss : loss of the parameters the student ends with.
    steps_run : Adam steps the student took.
    tail_min, tail_median, tail_max : statistics of its last ``window`` losses (final loss included);
        ``tail_min`` is the converged MSE reported by the sections.
    tail_max_rise : largest one-step increase of the loss within the tail.
    unstable : ``tail_max_rise > UNSTABLE_RISE · tail_min``.
    """

    history: np.ndarray
    final_loss: np.ndarray
    steps_run: np.ndarray
    tail_min: np.ndarray
    tail_median: np.ndarray
    tail_max: np.ndarray
    tail_max_rise: np.ndarray
    unstable: np.ndarray

    def student(self, g: int, s: int) -> dict:
        """One student's numbers as a row: ``loss`` is the converged MSE (the tail minimum)."""
        return {"loss": float(self.tail_min[g, s]), "final_loss": float(self.final_loss[g, s]),
                "tail_median": float(self.tail_median[g, s]), "tail_max": float(self.tail_max[g, s]),
                "steps_run": int(self.steps_run[g, s]), "unstable": bool(self.unstable[g, s])}


def _as_groups(X: torch.Tensor) -> torch.Tensor:
    return X if X.ndim == 4 else X.unsqueeze(0)


def sample_chunk(model: BatchedStudents, X: torch.Tensor, device: torch.device,
                 chunk_elements: int | None = None) -> int:
    """How many samples to push through the students at once.

    The full-batch gradient is accumulated over chunks of samples, so the chunk changes only speed
    and memory, never the result (up to float round-off). On the CPU a chunk whose activations fit
    in cache (about 2²¹ floats per activation tensor) is several times faster than the whole batch;
    on a GPU the budget (2²⁸) only bounds memory.
    """
    G, N, T, D = X.shape
    budget = chunk_elements or (2**28 if device.type == "cuda" else 2**21)
    return max(1, min(N, budget // (G * model.S * T * max(T, D))))


class _Batch:
    """The students still training: a shrinking copy of the model, its optimizer and its data."""

    def __init__(self, model, X, Y, lr, device, chunk_elements):
        self.work = copy.deepcopy(model)
        self.groups, self.students = list(range(model.G)), list(range(model.S))
        self.X, self.Y, self.lr, self.device, self.chunk_elements = X, Y, lr, device, chunk_elements
        self.optimizer = torch.optim.Adam(self.work.parameters(), lr=lr)
        self._chunk()

    def _chunk(self):
        X, Y = self.X[self.groups], self.Y[self.groups]
        size = sample_chunk(self.work, X, self.device, self.chunk_elements)
        self.parts = [(X[:, i:i + size].contiguous(), Y[:, i:i + size].contiguous())
                      for i in range(0, X.shape[1], size)]

    def loss_and_gradient(self) -> torch.Tensor:
        """Full-batch loss (G, S) of the current parameters, leaving its gradient in ``.grad``."""
        self.optimizer.zero_grad(set_to_none=True)
        N = self.X.shape[1]
        total = torch.zeros(len(self.groups), len(self.students), device=self.device)
        for Xc, Yc in self.parts:
            loss = self.work.loss(Xc, Yc) / N
            loss.sum().backward()  # students are independent: each gets exactly its own gradient
            total += loss.detach()
        return total

    def final_loss(self) -> torch.Tensor:
        with torch.no_grad():
            return sum(self.work.loss(Xc, Yc) for Xc, Yc in self.parts) / self.X.shape[1]

    def write_back(self, model: BatchedStudents, groups=None, students=None) -> None:
        """Copy the current parameters of the given (local) groups × students into ``model``."""
        groups = range(len(self.groups)) if groups is None else groups
        students = range(len(self.students)) if students is None else students
        with torch.no_grad():
            for full, part in zip(model.parameters(), self.work.parameters(), strict=True):
                for g in groups:
                    for s in students:
                        full[self.groups[g], self.students[s]] = part[g, s].to(full.device)

    def keep(self, groups: list[int], students: list[int]) -> None:
        """Drop every group and student not listed (local indices), keeping Adam's state of the rest."""
        g_idx = torch.tensor(groups, device=self.device)
        s_idx = torch.tensor(students, device=self.device)
        old_state = {name: self.optimizer.state.get(p, {}) for name, p in self.work.named_parameters()}
        for name, p in list(self.work.named_parameters()):
            data = p.detach().index_select(0, g_idx).index_select(1, s_idx)
            fresh = torch.nn.Parameter(data)
            if p.grad is not None:
                fresh.grad = p.grad.index_select(0, g_idx).index_select(1, s_idx)
            setattr(self.work, name, fresh)
        self.work.select(groups, students)
        self.optimizer = torch.optim.Adam(self.work.parameters(), lr=self.lr)
        for name, p in self.work.named_parameters():
            state = {key: value.index_select(0, g_idx).index_select(1, s_idx)
                     if torch.is_tensor(value) and value.ndim >= 2 else value
                     for key, value in old_state[name].items()}
            if state:
                self.optimizer.state[p] = state
        self.groups = [self.groups[g] for g in groups]
        self.students = [self.students[s] for s in students]
        self._chunk()


def train(model: BatchedStudents, X: torch.Tensor, Y: torch.Tensor, steps: int, lr: float = 1e-2,
          progress: bool = True, desc: str | None = None, device: torch.device | str | None = None,
          chunk_elements: int | None = None, stop: StopRule = FIXED) -> TrainResult:
    """Train every student of ``model`` on its group's data with full-batch Adam.

    Parameters
    ----------
    model : G × S batched students (trained in place, moved to ``device``).
    X, Y : (G, N, T, D) per-group data, or (N, T, D) for a single group.
    steps : number of Adam steps (≥ 1); the cap under the ``converged`` rule.
    lr : Adam learning rate.
    progress : show a tqdm bar (on stderr).
    device : where to train; defaults to :func:`default_device`.
    chunk_elements : activation budget per chunk of samples (see :func:`sample_chunk`).
    stop : the stop rule (:class:`StopRule`); its window also sets the tail statistics.
    """
    X, Y = _as_groups(X), _as_groups(Y)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if not lr > 0:
        raise ValueError(f"lr must be positive, got {lr}")
    if X.shape != Y.shape or X.shape[0] != model.G or X.shape[-1] != model.D:
        raise ValueError(f"X {tuple(X.shape)} and Y {tuple(Y.shape)} must both be "
                         f"(G={model.G}, N, T, D={model.D})")
    device = torch.device(device) if device is not None else default_device()
    model.to(device)
    batch = _Batch(model, X.to(device), Y.to(device), lr, device, chunk_elements)
    G, S = model.G, model.S
    history = np.full((steps, G, S), np.nan)
    final = np.full((G, S), np.nan)
    steps_run = np.full((G, S), steps)
    bar = tqdm(range(steps), desc=desc, disable=not progress, leave=False)
    for step in bar:
        loss = batch.loss_and_gradient().cpu().numpy()
        history[step][np.ix_(batch.groups, batch.students)] = loss
        recent = history[max(0, step + 1 - stop.window):step + 1][:, batch.groups][:, :, batch.students]
        done = stop.done(recent)
        leave_s = [s for s in range(len(batch.students)) if done[:, s].all()]
        leave_g = [g for g in range(len(batch.groups)) if done[g].all()]
        if leave_s or leave_g:
            # Students leave with the parameters whose loss was just recorded (no further update).
            for g in range(len(batch.groups)):
                for s in range(len(batch.students)):
                    if g in leave_g or s in leave_s:
                        gi, si = batch.groups[g], batch.students[s]
                        steps_run[gi, si], final[gi, si] = step, loss[g, s]
            batch.write_back(model, leave_g, range(len(batch.students)))
            batch.write_back(model, range(len(batch.groups)), leave_s)
            keep_g = [g for g in range(len(batch.groups)) if g not in leave_g]
            keep_s = [s for s in range(len(batch.students)) if s not in leave_s]
            if not keep_g or not keep_s:
                break
            batch.keep(keep_g, keep_s)
        batch.optimizer.step()
    else:
        final[np.ix_(batch.groups, batch.students)] = batch.final_loss().cpu().numpy()
        batch.write_back(model)
    return _summarize(history, final, steps_run, stop.window)


def _summarize(history: np.ndarray, final: np.ndarray, steps_run: np.ndarray, window: int) -> TrainResult:
    G, S = final.shape
    stats = {name: np.empty((G, S)) for name in ("tail_min", "tail_median", "tail_max", "tail_max_rise")}
    for g in range(G):
        for s in range(S):
            seen = history[: steps_run[g, s], g, s]
            tail = np.append(seen, final[g, s])[-window:]
            stats["tail_min"][g, s], stats["tail_median"][g, s] = tail.min(), np.median(tail)
            stats["tail_max"][g, s] = tail.max()
            stats["tail_max_rise"][g, s] = max(0.0, float(np.diff(tail).max())) if len(tail) > 1 else 0.0
    unstable = stats["tail_max_rise"] > UNSTABLE_RISE * np.abs(stats["tail_min"])
    return TrainResult(history, final, steps_run, unstable=unstable, **stats)
