"""The attention-native rank of real text: the capacity sweep of §6 on App. B's corpora (beyond the paper).

The package, in reading order: ``spec`` declares the section (``Config``, ``CLAIMS``, its jobs) and ``declared``
what its page judges and how, fixed before the runs it judges; ``fits`` trains and measures one student. This
file only hands their names on. Used by ``notebooks/text_rank.md``.
"""

from __future__ import annotations

from .declared import DECLARED
from .fits import fit, kernel_rows
from .spec import CLAIMS, READS, ROUTING, TABLE, TITLE, Config, jobs

__all__ = ["CLAIMS", "DECLARED", "READS", "ROUTING", "TABLE", "TITLE", "Config", "fit", "jobs", "kernel_rows"]
