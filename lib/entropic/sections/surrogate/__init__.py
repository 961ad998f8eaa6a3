"""§4, Table 1: the Entropic Bound in the linear attention surrogate Y = A* X V* + E.

The package, in reading order: ``spec`` (parameters, claims, jobs), ``fits`` (one function per kind of job),
``tables`` (Table 1 beside the paper, the prose's numbers), ``prose`` (the sentences that follow the data),
``figures``. This file only hands their names on. Used by ``notebooks/surrogate.md``.
"""

from __future__ import annotations

from .figures import figure_sweep
from .fits import FITS, eckart_young_excess, fit, noise_floor
from .spec import CLAIMS, DEFICIENCY, PAPER_FLOOR, TABLE, TITLE, Config, jobs
from .tables import compare, facts

__all__ = ["CLAIMS", "DEFICIENCY", "FITS", "PAPER_FLOOR", "TABLE", "TITLE", "Config", "compare",
           "eckart_young_excess", "facts", "figure_sweep", "fit", "jobs", "noise_floor"]
