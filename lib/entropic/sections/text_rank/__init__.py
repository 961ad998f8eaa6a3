"""The attention-native rank of real text: the capacity sweep of §6 on App. B's corpora (beyond the paper).

The package, in reading order: ``spec`` declares the section (``Config``, ``CLAIMS``, its jobs) and ``declared``
what its page judges and how, fixed before the runs it judges; ``fits`` trains and measures one student;
``analysis`` turns stored students into curves, the tolerance, r̂ and the declared outcomes; ``prose`` writes
the sentences whose words follow the data; ``figures`` draws them. This file only hands their names on. Used by
``notebooks/text_rank.md``.
"""

from __future__ import annotations

from .analysis import DECIDED, MISSING, check, compare, ranks, rows, variation
from .declared import DECLARED
from .figures import figure_deficiency, figure_kernels
from .fits import fit, kernel_rows
from .prose import facts, outcomes, per_corpus
from .spec import CLAIMS, READS, ROUTING, TABLE, TITLE, Config, jobs

__all__ = ["CLAIMS", "DECIDED", "DECLARED", "MISSING", "READS", "ROUTING", "TABLE", "TITLE", "Config", "check",
           "compare", "facts", "figure_deficiency", "figure_kernels", "fit", "jobs", "kernel_rows", "outcomes",
           "per_corpus", "ranks", "rows", "variation"]
