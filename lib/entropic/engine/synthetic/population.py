"""Population excess of trained students: the §5 ladder's students at rank r*, scored on their training set and
on fresh inputs, beside the least excess any token-equivariant predictor can reach (``theorems.equivariant_floor``).

The training-set excess (training loss minus the noise floor) is what Table 2 reports; the population excess
E‖A* X V* − f(X)‖²_F over new inputs is what the risk decomposition and the equivariance bound speak of. Used
by the ladder section (its population jobs) and the teaching page.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from . import theorems
from .models import ladder_students
from .tasks import make_surrogate_task
from .train import StopRule, train

RUNG_NAMES = {"B0": "B0: A X V", "B1": "B1: linear QK", "B1c": "B1c: full-rank K", "B2": "B2: softmax QK",
              "B3": "B3: full block"}
FRESH_SEED = 1_000_003  # fresh inputs of a task of seed s are drawn from seed s + FRESH_SEED, never from its own


def ladder_excesses(rungs=("B1", "B1c", "B2", "B3"), T: int = 12, D: int = 10, r_star: int = 3, n: int = 3000,
                    sigma: float = 0.05, seed: int = 0, steps: int = 1500, lr: float = 1e-2,
                    stop: str = "converged", fresh: int = 4000) -> dict:
    """Students of the §5 interpolation ladder (``models.ladder_students``) at rank r* on one fixed-operator task
    Y = A* X V* + E, each scored on its training set and on fresh inputs. The defaults are the paper's §5 sizes
    with the ladder section's paper-profile training (1500 Adam steps at most, stopped once converged).

    ``train`` is the training loss minus the noise floor σ²TD. ``population`` is E‖A* X V* − f(X)‖²_F over
    ``fresh`` new inputs X ~ N(0, I): the excess of the risk decomposition, the quantity the equivariant
    floor bounds from below; ``population_se`` is its Monte Carlo standard error.

    Returns
    -------
    dict with ``excess`` (DataFrame: rung, student, train, population, population_se), ``floor``
    (``theorems.equivariant_floor``), ``zero`` (‖V*‖²_F ‖A*‖²_F, the excess of the predictor 0),
    ``noise_floor``, ``fresh``, ``task`` and ``students`` (rung → its trained model).
    """
    if not rungs or fresh < 2:
        raise ValueError(f"need at least one rung and two fresh inputs, got rungs={rungs}, fresh={fresh}")
    task = make_surrogate_task(T, D, r_star, n, sigma, seed)
    A_star, V_star = task.operator.double(), task.V.double()
    generator = torch.Generator().manual_seed(seed + FRESH_SEED)
    X_fresh = torch.randn(fresh, T, D, generator=generator, dtype=torch.float64)  # (N, T, D)
    target = A_star @ X_fresh @ V_star
    rows, students = [], {}
    for rung in rungs:
        model = ladder_students(rung, [seed], [r_star], T, D)
        result = train(model, task.X, task.Y, steps, lr, progress=False, stop=StopRule(stop))
        device = next(model.parameters()).device
        with torch.no_grad():  # (N, T, D), in chunks of inputs so that the block's activations stay small
            prediction = torch.cat([model(part[None].float().to(device))[0, 0].cpu() for part in X_fresh.split(500)])
        errors = (target - prediction.double()).pow(2).sum((1, 2))
        rows.append({"rung": rung, "student": RUNG_NAMES[rung],
                     "train": float(result.final_loss[0, 0]) - task.noise_floor, "population": float(errors.mean()),
                     "population_se": float(errors.std()) / math.sqrt(fresh)})
        students[rung] = model
    A, V = A_star.numpy(), V_star.numpy()
    return {"excess": pd.DataFrame(rows), "floor": theorems.equivariant_floor(A, V),
            "zero": float(np.sum(V**2) * np.sum(A**2)), "noise_floor": task.noise_floor, "fresh": fresh,
            "task": task, "students": students}


def equivariant_floors(T: int = 12, D: int = 10, r_star: int = 3, n: int = 3000, sigma: float = 0.05,
                       seeds=range(5)) -> pd.DataFrame:
    """The equivariant floor and the excess of the predictor 0 for the fixed-operator tasks of several seeds
    (the tasks the ladder section trains on, when given its sizes): one row per seed."""
    rows = []
    for seed in seeds:
        task = make_surrogate_task(T, D, r_star, n, sigma, seed)
        A, V = task.operator.double().numpy(), task.V.double().numpy()
        rows.append({"seed": seed, "floor": theorems.equivariant_floor(A, V),
                     "zero": float(np.sum(V**2) * np.sum(A**2))})
    return pd.DataFrame(rows)


