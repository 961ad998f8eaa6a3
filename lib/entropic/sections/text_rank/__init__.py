"""The attention-native rank of real text: the capacity sweep of §6 on App. B's corpora (beyond the paper).

The package, in reading order: ``spec`` declares the section (``Config``, ``CLAIMS``, its jobs) and ``declared``
what its page judges and how, in two declarations, each fixed before the runs it judges; ``fits`` trains and
measures one student; ``analysis`` turns stored students into curves, the tolerance, r̂ and the first declaration's
outcomes; ``second`` reads them by the second declaration (r̂'s uncertainty, the calibration, the outcomes);
``tables`` and ``prose`` write what the page shows and says; ``figures`` draws it. This file only hands their
names on. Used by ``notebooks/text_rank.md``.
"""

from __future__ import annotations

from .analysis import DECIDED, MISSING, check, compare, first, ranks, rows, variation
from .declared import DECLARED, FIRST_DATE, SECOND, SECOND_DATE, THIRD, THIRD_DATE
from .figures import figure_calibration, figure_deficiency, figure_kernels
from .fits import FITS, fit, kernel_rows
from .prose import facts
from .second import judge
from .spec import CLAIMS, READS, ROUTING, TABLE, TITLE, Config, jobs
from .tables import calibration, cost, first_table, outcomes, readings

__all__ = ["CLAIMS", "DECIDED", "DECLARED", "FITS", "FIRST_DATE", "MISSING", "READS", "ROUTING", "SECOND", "SECOND_DATE", "THIRD", "THIRD_DATE",
           "TABLE", "TITLE", "Config", "calibration", "check", "compare", "cost", "facts", "figure_calibration",
           "figure_deficiency", "figure_kernels", "first", "first_table", "fit", "jobs", "judge", "kernel_rows",
           "outcomes", "ranks", "readings", "rows", "variation"]
