"""The theory page's numerical checks that other pages quote: the sheared teacher that breaks the eigenvalue form
of the paper's Theorem 5, and how much of the measured inflation of the effective rank the paper's Theorem 8
correction removes. Each instance is declared once here (``SHEAR``, ``INFLATION``); the theory page shows them and
the introduction's abstract quotes them.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ..engine.synthetic import inflation, theorems

SHEAR = {"shear": 10.0, "D": 3, "r": 1}  # the sheared teacher A*(t) of the eigenvalue counterexample: t, d and r
INFLATION = {"T": 16, "D": 12, "r_star": 3, "sigma": 0.05}  # the paper's §4 task, for the inflation check
INFLATION_SEEDS = 5


@functools.lru_cache(maxsize=1)
def shear() -> dict:
    """The eigenvalue counterexample at ``SHEAR`` (``theorems.shear_counterexample``), with the factor by which the
    eigenvalue form's bound exceeds the exact excess."""
    found = theorems.shear_counterexample(**SHEAR)
    return {**found, "factor": float(found["eigenvalue_bound"] / found["exact"])}


@functools.lru_cache(maxsize=1)
def inflation_check() -> pd.DataFrame:
    """The measured inflation of a least-squares estimate's effective rank against n, beside the first-order
    prediction and the paper's correction (``inflation.mp_check`` at ``INFLATION``)."""
    return inflation.mp_check(INFLATION["T"], INFLATION["D"], INFLATION["r_star"], INFLATION["sigma"],
                              seeds=range(INFLATION_SEEDS))


def inflation_share(check: pd.DataFrame | None = None) -> tuple[int, float]:
    """(the largest n, the percentage of the measured inflation the paper's correction removes there)."""
    check = inflation_check() if check is None else check
    mean = check.groupby("n")[["simulated", "paper"]].mean()
    last = int(mean.index.max())
    return last, float(100 * mean.loc[last, "paper"] / mean.loc[last, "simulated"])


def slopes(check: pd.DataFrame | None = None) -> dict[str, float]:
    """The log–log slope against n of the simulated inflation, the first-order prediction and the paper's."""
    check = inflation_check() if check is None else check
    mean = check.groupby("n")[["simulated", "first_order", "paper"]].mean()
    return {column: float(np.polyfit(np.log(mean.index), np.log(mean[column]), 1)[0]) for column in mean.columns}
