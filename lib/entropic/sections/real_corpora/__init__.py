"""App. B: real-corpus diagnostics on six char-level corpora (B.1–B.4, and §5's last paragraph).

The package, in reading order: ``spec`` declares the section (``Config``, ``CLAIMS``, its jobs) and
``declared`` what its page judges and how, fixed before the runs it judges; ``fits`` computes one job of
each kind; ``grid``, ``readings`` and ``long_run`` turn stored rows into cells; ``analysis``,
``across_corpora`` and ``tables`` into the tables beside the paper; ``figures`` draws them; ``prose``
writes every sentence whose words follow the data (``words`` names the measures). This file only hands
their names on. Used by ``notebooks/real_corpora.md``.
"""

from __future__ import annotations

from .across_corpora import correlations
from .analysis import cells, measure_variation, trajectory
from .declared import DECLARED
from .figures import (
    figure_lag_mi,
    figure_learning,
    figure_long_run,
    figure_measures,
    figure_prediction,
    figure_trajectory,
)
from .fits import FITS, fit
from .grid import availability, budgets, corpora_table
from .long_run import trajectory as long_run_trajectory
from .long_run import verdicts as long_run_verdicts
from .prose import facts
from .readings import spectra_table
from .spec import CLAIMS, TABLE, THREADS, TITLE, Config, budget_name, jobs, locate, preflight
from .summary import summary
from .tables import compare, specification

__all__ = ["CLAIMS", "DECLARED", "FITS", "TABLE", "THREADS", "TITLE", "Config", "availability", "budget_name",
           "budgets", "cells", "compare", "corpora_table", "correlations", "facts", "figure_lag_mi",
           "figure_learning", "figure_long_run", "figure_measures", "figure_prediction", "figure_trajectory", "fit",
           "jobs", "locate", "long_run_trajectory", "long_run_verdicts", "measure_variation", "preflight",
           "specification", "spectra_table", "summary", "trajectory"]
