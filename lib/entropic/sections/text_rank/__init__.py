"""The attention-native rank of real text: the capacity sweep of §6 on App. B's corpora (beyond the paper).

The package, in reading order: ``spec`` declares the section (``Config``, ``CLAIMS``, its jobs) and ``declared``
what its page judges and how, in three declarations, each fixed before the runs it judges; ``fits`` trains and
measures one student; ``analysis`` turns stored students into curves, the tolerance, r̂ and the first declaration's
outcomes; ``second`` reads them by the second declaration (r̂'s uncertainty, the calibration, the outcomes) and
``third`` by the third (paired gaps against a margin, the budget condition, two generators, fresh seeds);
``tables``, ``prose`` and ``prose_third`` write what the page shows and says; ``figures`` draws it. This file only
hands their names on. Used by ``notebooks/text_rank.md``.
"""

from __future__ import annotations

from .analysis import DECIDED, MISSING, check, compare, first, ranks, rows, variation
from .declared import (
    AMENDMENT,
    AMENDMENT_DATE,
    BUDGET,
    BUDGET_DATE,
    DECLARED,
    FIRST_DATE,
    SECOND,
    SECOND_DATE,
    THIRD,
    THIRD_DATE,
)
from .declared import markdown as declared_markdown
from .figures import figure_budget, figure_deficiency, figure_kernels
from .fits import FITS, fit, kernel_rows
from .prose import facts
from .prose_third import third_facts
from .second import judge
from .spec import CLAIMS, READS, ROUTING, TABLE, TITLE, Config, jobs, preflight
from .tables import (
                       calibration,
                       cost,
                       declarations,
                       first_table,
                       outcomes,
                       probe_table,
                       readings,
                       third_calibration,
                       third_readings,
)
from .third import gates
from .third import judge as judge_third

__all__ = ["AMENDMENT", "AMENDMENT_DATE", "BUDGET", "BUDGET_DATE", "CLAIMS", "DECIDED", "DECLARED", "FIRST_DATE",
           "FITS", "MISSING", "READS", "ROUTING", "SECOND", "SECOND_DATE", "TABLE", "THIRD", "THIRD_DATE", "TITLE",
           "Config", "calibration", "check", "compare", "cost", "declarations", "declared_markdown", "facts",
           "figure_budget", "figure_deficiency", "figure_kernels", "first", "first_table", "fit", "gates", "jobs",
           "judge", "judge_third", "kernel_rows", "outcomes", "preflight", "probe_table", "ranks", "readings", "rows",
           "third_calibration", "third_facts", "third_readings", "variation"]
