"""The paper's sections, one module each; ``entropic.registry`` finds them by themselves.

A section module owns everything specific to its part of the paper:

* ``TITLE`` and ``CLAIMS`` (what the paper says, in its own wording, and where: ``report.verdicts.Claim``);
* ``Config``: a ``jobs.config.SectionConfig`` dataclass whose defaults are the paper's values;
* ``jobs(cfg)``: its independent units of work (``jobs.store.Job``), and ``fit(job)``, which
  computes one of them and returns its tidy rows, ``{table name: [row, …]}``;
* ``compare(results)`` (the table beside the paper, with verdicts), ``facts(results)`` (every number its
  prose quotes, as one dict) and its figures.

A package section declares these in ``spec.py``, computes in ``fits.py``, writes its data-dependent
sentences in ``prose.py`` and hands every name on from its ``__init__``. Sections never import each other;
what they share lives in the engine, ``jobs`` or ``report``. Modules are imported lazily, so the command
line answers ``--help`` at once. Section modules of one's own can live outside the package: the folders
named in ``ENTROPIC_SECTIONS`` (separated by ``os.pathsep``) are searched after this one, in this process
and in every process it starts (notebook kernels, cluster workers).
"""

import os

# Section modules of one's own: the folders named in ENTROPIC_SECTIONS, searched after this package.
__path__ = [*__path__, *(folder for folder in os.environ.get("ENTROPIC_SECTIONS", "").split(os.pathsep) if folder)]
