"""The paper's sections, one module each; the registry finds them by themselves.

A section module owns everything specific to its part of the paper:

* ``TITLE`` and ``CLAIMS`` (what the paper says, in its own wording, and where: ``verdicts.Claim``);
* ``Config``: a ``pipeline.config.SectionConfig`` dataclass whose defaults are the paper's values;
* ``jobs(cfg)``: its independent units of work (``pipeline.store.Job``), and ``fit(job)``, which
  computes one of them and returns its tidy rows, ``{table name: [row, …]}``;
* ``compare(results)`` (the table beside the paper, with verdicts), ``facts(results)`` (every number its
  prose quotes, as one dict) and its figures.

Sections never import each other; what they share lives in the engine or the pipeline. Modules are
imported lazily, so the command line answers ``--help`` at once.
"""

from __future__ import annotations

import importlib
import pkgutil
import types


def names() -> list[str]:
    """Every section module (files of this package not starting with ``_``), sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def module(name: str) -> types.ModuleType:
    """Import a section module by name; an unknown name lists the known ones."""
    if name not in names():
        raise ValueError(f"unknown section {name!r}; expected one of {names()}")
    return importlib.import_module(f"{__name__}.{name}")
