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


def train(model: BatchedStudents, X: torch.Tensor, Y: torch.Tensor, steps: int, lr: float = 1e-2,
          progress: bool = True, desc: str | None = None, device: torch.device | str | None = None,
          chunk_elements: int | None = None) -> TrainResult:
    """Train every student of ``model`` on its group's data with full-batch Adam.

    Parameters
    ----------
    model : G × S batched students (trained in place, moved to ``device``).
    X, Y : (G, N, T, D) per-group data, or (N, T, D) for a single group.
    steps : number of Adam steps (≥ 1).
    lr : Adam learning rate.
    progress : show a tqdm bar (on stderr).
    device : where to train; defaults to :func:`default_device`.
    chunk_elements : activation budget per chunk of samples (see :func:`sample_chunk`).
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
    N = X.shape[1]
    chunk = sample_chunk(model, X, device, chunk_elements)
    parts = [(X[:, i:i + chunk].contiguous(), Y[:, i:i + chunk].contiguous()) for i in range(0, N, chunk)]
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = torch.empty(steps, model.G, model.S, device=device)
    for step in tqdm(range(steps), desc=desc, disable=not progress, leave=False):
        optimizer.zero_grad(set_to_none=True)
        total = torch.zeros(model.G, model.S, device=device)
        for Xc, Yc in parts:
            loss = model.loss(Xc, Yc) / N
            loss.sum().backward()  # students are independent: each gets exactly its own gradient
            total += loss.detach()
        optimizer.step()
        history[step] = total
    with torch.no_grad():
        final = sum(model.loss(Xc, Yc) for Xc, Yc in parts) / N
    return TrainResult(history.cpu().numpy(), final.cpu().numpy())
