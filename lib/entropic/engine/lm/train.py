"""Training the batched char-level Transformers of Appendix B, with checkpoints and resumption.

``train_charlm`` runs AdamW on random windows of a token stream for every model of a ``CharLM`` at
once. At the steps listed in ``checkpoints`` it calls ``on_checkpoint(step, model)`` (the caller
measures the model there) and, when given a ``state_path``, saves everything needed to continue:
parameters, optimizer state, the window generators, the loss history and what the checkpoints
returned. A run started again with the same ``state_path`` continues from the last saved checkpoint
and ends with exactly the numbers of an uninterrupted run (on the CPU; a test checks it).

Model m draws its windows from a generator seeded by ``model.seeds[m]`` (offset so the data stream
differs from the initialization stream), so a model trained in a batch sees exactly the windows it
would see alone. Constant learning rate: the model at a checkpoint at 25 % of the steps is the model a
run with a quarter of the budget would have produced, so checkpoints double as shorter budgets. No
gradient clipping (a global clip would couple the models). Weight decay applies to the weight matrices
and the token embedding, not to LayerNorm parameters, biases or the position embedding.

On CUDA, matrix products use TF32 and AdamW its fused kernel; windows are drawn on the CPU ahead of
time in blocks and moved at once, and the loss stays on the device between checkpoints, so the host
never waits for the device inside a block.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from .charlm import CharLM, evaluate, sample_windows

_NO_DECAY = {"ln1_g", "ln1_b", "ln2_g", "ln2_b", "lnf_g", "lnf_b", "b_1", "b_2", "pos_emb"}
_BLOCK = 128  # steps whose windows are drawn and moved to the device at once
_STATE_FORMAT = 1


@dataclass
class CharLMResult:
    """What :func:`train_charlm` returns.

    Attributes
    ----------
    history : (steps, M) training loss (nats/char) of each step's batch, before the update.
    val_loss : (M,) validation loss after training (nan without validation tokens).
    seconds : wall-clock seconds of the training loop (summed over resumed parts).
    checkpoints : ``(step, value)`` for every checkpoint, ``value`` what ``on_checkpoint`` returned.
    resumed_from : the step a saved state was resumed from (0 for a fresh run).
    """

    history: np.ndarray
    val_loss: np.ndarray
    seconds: float
    checkpoints: list = field(default_factory=list)
    resumed_from: int = 0


def _check(model: CharLM, tokens: torch.Tensor, steps: int, lr: float, batch_size: int, context: int,
           checkpoints: Sequence[int]) -> list[int]:
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if not lr > 0:
        raise ValueError(f"lr must be positive, got {lr}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if context > model.T:
        raise ValueError(f"context={context} exceeds the model's context {model.T}")
    if int(tokens.max()) >= model.V or int(tokens.min()) < 0:
        raise ValueError(f"token ids must lie in [0, {model.V}), got range [{int(tokens.min())}, {int(tokens.max())}]")
    marks = sorted(set(int(c) for c in checkpoints))
    if marks and not 1 <= marks[0] <= marks[-1] <= steps:
        raise ValueError(f"checkpoints must lie in [1, steps={steps}], got {list(checkpoints)}")
    return marks


def _optimizer(model: CharLM, lr: float, weight_decay: float, betas, fused: bool):
    decay = [p for n, p in model.named_parameters() if n not in _NO_DECAY]
    no_decay = [p for n, p in model.named_parameters() if n in _NO_DECAY]
    return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}], lr=lr, betas=betas,
                             fused=fused)


def _load_state(path: Path, model: CharLM, optimizer, gens, steps: int):
    """The saved step, history, checkpoint values and seconds of a state file; restores the rest in place."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
        ok = state["format"] == _STATE_FORMAT and state["seeds"] == model.seeds and state["steps"] == steps
    except Exception as error:  # any unreadable file: name it, never guess
        raise ValueError(f"the saved training state {path} is unreadable ({type(error).__name__}: {error}); "
                         f"delete it to start this job over") from error
    if not ok:
        raise ValueError(f"the saved training state {path} belongs to another run; delete it to start over")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    for gen, saved in zip(gens, state["generators"], strict=True):
        gen.set_state(saved)
    return state["step"], state["history"], state["checkpoints"], state["seconds"]


def _save_state(path: Path, model, optimizer, gens, steps, step, history, done, seconds) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(".partial")
    torch.save({"format": _STATE_FORMAT, "seeds": model.seeds, "steps": steps, "step": step,
                "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "generators": [g.get_state() for g in gens], "history": history[:step].copy(),
                "checkpoints": done, "seconds": seconds}, staging)
    os.replace(staging, path)  # atomic: a crash leaves the previous state


def _windows(tokens, gens, count: int, batch_size: int, context: int, device, align: int | None):
    """``count`` steps of windows for every model: x, y : (count, M, batch_size, context) on ``device``."""
    pairs = [[sample_windows(tokens, batch_size, context, g, align) for g in gens] for _ in range(count)]
    x = torch.stack([torch.stack([p[0] for p in step]) for step in pairs])
    y = torch.stack([torch.stack([p[1] for p in step]) for step in pairs])
    return x.to(device, non_blocking=True), y.to(device, non_blocking=True)


def train_charlm(model: CharLM, train_tokens, steps: int, batch_size: int = 32, context: int | None = None,
                 lr: float = 3e-3, weight_decay: float = 0.01, betas: tuple[float, float] = (0.9, 0.99),
                 val_tokens=None, max_val_windows: int | None = 256, progress: bool = True,
                 desc: str | None = None, device: torch.device | str | None = None,
                 checkpoints: Sequence[int] = (), on_checkpoint: Callable[[int, CharLM], object] | None = None,
                 state_path: Path | str | None = None, fused: bool | None = None,
                 align: int | None = None) -> CharLMResult:
    """Train every model of ``model`` with AdamW on random windows of ``train_tokens`` (see the module
    docstring).

    Parameters
    ----------
    steps : number of AdamW steps (≥ 1); batch_size : windows per step and model;
    context : window length (default ``model.T``); lr, weight_decay, betas : AdamW settings;
    val_tokens : if given, :func:`charlm.evaluate` runs on it after training;
    checkpoints : steps in [1, steps] after which ``on_checkpoint(step, model)`` is called;
    state_path : where to save the state at every checkpoint and resume from (None: no saving);
    fused : AdamW's fused kernel (None: on CUDA only, as App. B's grid was trained; its CPU kernel computes the
        same update with other round-off);
    align : windows start at multiples of ``align`` (a stream of documents, ``charlm.sample_windows``).
    """
    context = context or model.T
    device = torch.device(device) if device is not None else torch.device("cpu")
    tokens = torch.as_tensor(np.asarray(train_tokens), dtype=torch.int64)
    if tokens.ndim != 1 or len(tokens) < context + 1:
        raise ValueError(f"train_tokens must be a 1-D stream longer than context={context}, got {tuple(tokens.shape)}")
    marks = _check(model, tokens, steps, lr, batch_size, context, checkpoints)
    model.to(device)
    optimizer = _optimizer(model, lr, weight_decay, betas, device.type == "cuda" if fused is None else fused)
    gens = [torch.Generator().manual_seed(seed + 0x5EED) for seed in model.seeds]
    history, done, start_step, spent = np.empty((steps, model.M)), [], 0, 0.0
    path = Path(state_path) if state_path is not None else None
    if path is not None and path.exists():
        start_step, saved, done, spent = _load_state(path, model, optimizer, gens, steps)
        history[:start_step] = saved
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = device.type == "cuda"
    bar = tqdm(total=steps, initial=start_step, desc=desc, disable=not progress, leave=False)
    try:
        step = start_step
        for mark in [m for m in sorted({*marks, steps}) if m > start_step]:
            began, first = time.perf_counter(), step
            # one buffer per segment: a small tensor kept per step would sit between the freed activations
            # and keep glibc from reusing their memory (the resident size grew by megabytes a step)
            losses = torch.empty(mark - step, model.M, device=device)
            while step < mark:
                count = min(_BLOCK, mark - step)
                xs, ys = _windows(tokens, gens, count, batch_size, context, device, align)
                for i in range(count):
                    optimizer.zero_grad(set_to_none=True)
                    loss = model.loss(xs[i], ys[i])
                    loss.sum().backward()  # models are independent: each gets exactly its own gradient
                    optimizer.step()
                    losses[step - first + i] = loss.detach()
                step += count
                bar.update(count)
            history[first:mark] = losses.cpu().numpy()
            spent += time.perf_counter() - began
            if mark in marks:
                if on_checkpoint is not None:
                    done.append((mark, on_checkpoint(mark, model)))
                if path is not None:
                    _save_state(path, model, optimizer, gens, steps, mark, history, done, spent)
    finally:
        bar.close()
        torch.backends.cuda.matmul.allow_tf32 = tf32
    val = evaluate(model, val_tokens, context, max_val_windows) if val_tokens is not None \
        else np.full(model.M, np.nan)
    return CharLMResult(history, val, spent, done, start_step)
