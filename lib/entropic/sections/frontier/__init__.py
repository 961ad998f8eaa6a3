"""Beyond the paper: the softmax predictability frontier (§6 "Predictability and its frontier", §7 open
problem (i)) — estimators of r* under softmax that need no V*, each named for what it computes, where
exactness ends and why, and its picture.

Every estimator runs on ``softmax_qk`` tasks (``tasks.make_attention_task``) and sees only (X, Y), and V*
where it is V-known; the truth (r*, K*) enters the rows only as reference columns. One job per (task,
estimator set), each kind with its own function in ``FITS`` so that its version key covers only its code:

* ``existing``: ``engine.synthetic.attention_estimators`` — the V-known log inversion (the paper's kernel-side
  reading), the V-unknown alternating minimization, plain and shrunk, and the realized mixer — each timed;
* ``least_squares`` and ``logistic``: ``engine.synthetic.softmax_estimators``, each V-known and V-unknown (the
  logistic read by the split-half rule alone, as the grid and the held-out settings declared it);
* ``phase_goal``: the goal estimator on one small-n cell of the phase diagrams, by the rule declared for small n,
  which is ``kernel_logistic``'s own (a library user calling it gets the same reading, named in its result);
* ``phase``: the V-known log inversion and the V-unknown least squares on one cell of the phase diagrams,
  with the singular values of each K̂ and both rank rules (split halves, and Gavish–Donoho on all n);
* ``student``: the V-unknown least squares beside an unconstrained student (K, V) trained on the same loss
  (``engine.synthetic.softmax_students``): the estimator is that training run.

Tasks: the Table 4 softmax grid (setting ``grid``), the held-out settings (``HOLDOUT``: one parameter
changed each), and the cells of the phase diagrams over (n, σ), (n, d) and (r*, n).
The package, in reading order: ``spec`` (parameters, claims, estimators, jobs) and ``declared`` (what the
page judges and how); ``fits`` (one function per kind of job); ``analysis``, ``phase`` and ``causes`` (the
tables); ``figures``; ``prose`` (every sentence whose words follow the data). This file only hands their
names on. Used by ``notebooks/frontier.md``.
"""

from __future__ import annotations

from .analysis import compare, errors, holdout, summary
from .causes import cause_counts, causes, student_table
from .declared import DECLARED
from .figures import figure_causes, figure_errors, figure_minimal_n, figure_phase
from .fits import FITS, fit
from .phase import goal_small_n, goal_text, minimal_n
from .prose import facts
from .spec import (
    CLAIMS,
    ESTIMATORS,
    GOAL_ESTIMATOR,
    GOAL_TOLERANCE,
    HOLDOUT,
    PHASE,
    READS,
    REGIME,
    SEPARATION,
    TABLE,
    TASK,
    TITLE,
    TRAINED_ESTIMATOR,
    Config,
    jobs,
)

__all__ = [
    "CLAIMS",
    "DECLARED",
    "ESTIMATORS",
    "FITS",
    "GOAL_ESTIMATOR",
    "GOAL_TOLERANCE",
    "HOLDOUT",
    "PHASE",
    "READS",
    "REGIME",
    "SEPARATION",
    "TABLE",
    "TASK",
    "TITLE",
    "TRAINED_ESTIMATOR",
    "Config",
    "cause_counts",
    "causes",
    "compare",
    "errors",
    "facts",
    "figure_causes",
    "figure_errors",
    "figure_minimal_n",
    "figure_phase",
    "fit",
    "goal_small_n",
    "goal_text",
    "holdout",
    "jobs",
    "minimal_n",
    "student_table",
    "summary",
]
