"""The section registry: which paper sections there are, and their modules by name.

Every module (or package) of ``entropic.sections`` not starting with ``_`` is a section, and so is every one
in the folders ``ENTROPIC_SECTIONS`` names (``entropic.sections.__path__``). Modules are imported when asked
for, so the command line answers ``--help`` at once. This is the one module below the sections that knows
them by name: the jobs layer (``jobs.config``, ``jobs.runner``, ``jobs.cluster``) finds a section through it.
"""

from __future__ import annotations

import importlib
import pkgutil
import types

from . import sections


def names() -> list[str]:
    """Every section module (files of ``entropic.sections`` not starting with ``_``), sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(sections.__path__) if not m.name.startswith("_"))


def module(name: str) -> types.ModuleType:
    """Import a section module by name; an unknown name lists the known ones."""
    if name not in names():
        raise ValueError(f"unknown section {name!r}; expected one of {names()}")
    return importlib.import_module(f"{sections.__name__}.{name}")
