"""The section registry: which paper sections there are, and their modules by name.

Every module (or package) of ``entropic.sections`` not starting with ``_`` is a section, and so is every one
in the folders ``ENTROPIC_SECTIONS`` names (``entropic.sections.__path__``). Modules are imported when asked
for, so the command line answers ``--help`` at once. This is the one module below the sections that knows
them by name: the jobs layer (``jobs.config``, ``jobs.runner``, ``jobs.cluster``) finds a section through it.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import traceback
import types

from . import sections


def names() -> list[str]:
    """Every section module (files of ``entropic.sections`` not starting with ``_``), sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(sections.__path__) if not m.name.startswith("_"))


def module(name: str) -> types.ModuleType:
    """Import a section module by name; an unknown name lists the known ones, and a module that fails to import (a
    syntax error in a section of one's own, a missing import) is refused in one line naming its file and line."""
    if name not in names():
        raise ValueError(f"unknown section {name!r}; expected one of {names()}")
    qualified = f"{sections.__name__}.{name}"
    try:
        return importlib.import_module(qualified)
    except Exception as error:  # whatever a module of one's own raises, said in one line
        sys.modules.pop(qualified, None)
        raise ValueError(f"section {name!r} fails to import: {_where(error)}: {type(error).__name__}: "
                         f"{getattr(error, 'msg', None) or error}") from None


def _where(error: Exception) -> str:
    """The file and line where an import failed: a syntax error's own, else the innermost frame of the traceback."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}"
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith("<frozen")]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "its module"


def check(name: str) -> str:
    """"" if the section imports, else the one-line reason (``module``'s refusal)."""
    try:
        module(name)
    except ValueError as error:
        return str(error)
    return ""
