"""The batched trainer: full-batch Adam over G × S students at once (App. C.4: Adam, lr 1e-2).

Students never interact: the summed loss gives each student exactly its own gradient, and Adam is
elementwise, so one optimizer over the stacked (G, S, ...) parameters equals S·G separate Adams.
Runs on CUDA when available and on the CPU otherwise, with the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from .models import BatchedStudents


def default_device() -> torch.device:
    """CUDA when available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def per_student_loss(pred: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """Mean over samples of the squared Frobenius error ‖Y − Ŷ‖²_F (noise floor σ²·T·D).

    pred : (G, N, T, S, D); Y : (G, N, T, D). Returns (G, S).
    """
    return (pred - Y.unsqueeze(3)).pow(2).sum((2, 4)).mean(1)


@dataclass
class TrainResult:
    """What one training run returns.

    Attributes
    ----------
    history : (steps, G, S) training loss before each step.
    final_loss : (G, S) loss after the last step (the "converged MSE" of App. C.5).
    """

    history: np.ndarray
    final_loss: np.ndarray


def _as_groups(X: torch.Tensor) -> torch.Tensor:
    return X if X.ndim == 4 else X.unsqueeze(0)


def train(model: BatchedStudents, X: torch.Tensor, Y: torch.Tensor, steps: int, lr: float = 1e-2,
          progress: bool = True, desc: str | None = None, device: torch.device | str | None = None
          ) -> TrainResult:
    """Train every student of ``model`` on its group's data with full-batch Adam.

    Parameters
    ----------
    model : G × S batched students (trained in place, moved to ``device``).
    X, Y : (G, N, T, D) per-group data, or (N, T, D) for a single group.
    steps : number of Adam steps (≥ 1).
    lr : Adam learning rate.
    progress : show a tqdm bar (on stderr).
    device : where to train; defaults to :func:`default_device`.
    """
    X, Y = _as_groups(X), _as_groups(Y)
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    if lr <= 0:
        raise ValueError(f"lr must be positive, got {lr}")
    if X.shape != Y.shape or X.shape[0] != model.G or X.shape[-1] != model.D:
        raise ValueError(f"X {tuple(X.shape)} and Y {tuple(Y.shape)} must both be "
                         f"(G={model.G}, N, T, D={model.D})")
    device = torch.device(device) if device is not None else default_device()
    model.to(device)
    X, Y = X.to(device), Y.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = torch.empty(steps, model.G, model.S, device=device)
    for step in tqdm(range(steps), desc=desc, disable=not progress, leave=False):
        optimizer.zero_grad(set_to_none=True)
        loss = per_student_loss(model(X), Y)
        loss.sum().backward()
        optimizer.step()
        history[step] = loss.detach()
    with torch.no_grad():
        final = per_student_loss(model(X), Y)
    return TrainResult(history.cpu().numpy(), final.cpu().numpy())
