"""Every filesystem location the project uses, computed from this file so code runs from any directory.

Generated material (executed notebooks, tables, the HTML book) lives under ``build/`` and ``_build/``,
both ignored by git; the results store lives under ``results/``, of which only ``results/paper/`` is
committed.

In a clone (an editable install, or ``lib/`` on ``PYTHONPATH``) ``ROOT`` is the repository. In a regular
install (``pip install entropic``: a notebook launched on Binder or Colab) there is no repository:
``ROOT`` is the current directory, where ``results/`` and ``build/`` are written, and the profiles are
the copies shipped inside the package (``entropic/profiles``, from ``notebooks/params`` at build time).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ENGINE = PACKAGE / "engine"
SECTIONS = PACKAGE / "sections"
CHECKOUT = PACKAGE.parents[1]  # the repository, when this package is the one of a clone
IN_CHECKOUT = (CHECKOUT / "notebooks" / "params").is_dir() and (CHECKOUT / "pyproject.toml").is_file()
ROOT = CHECKOUT if IN_CHECKOUT else Path.cwd()
NOTEBOOKS = CHECKOUT / "notebooks"
# The parameter profiles; ENTROPIC_PROFILES names a folder of one's own instead.
PROFILES = Path(os.environ.get("ENTROPIC_PROFILES", NOTEBOOKS / "params" if IN_CHECKOUT else PACKAGE / "profiles"))
BOOK_SOURCES = ROOT / "book"
# The results store, results/<label>/<section>/<job>.json, and the build folder; both can be moved
# (ENTROPIC_RESULTS, ENTROPIC_BUILD), which the tests do to stay out of the working tree.
RESULTS = Path(os.environ.get("ENTROPIC_RESULTS", ROOT / "results"))
BUILD = Path(os.environ.get("ENTROPIC_BUILD", ROOT / "build"))
EXECUTED = BUILD / "sections"  # papermill output: one executed .ipynb per section (what the book shows)
TABLES = BUILD / "tables"  # the tables each executed section produced, as CSV: <label>/<section>/<name>.csv
HTML = ROOT / "_build" / "html"
VENV = ROOT / ".venv"  # the virtual environment ``make`` creates


def shell_command(arguments: str) -> str:
    """``python -m entropic <arguments>`` as it runs from a fresh shell at ``ROOT``: through the virtual
    environment ``make`` creates (``.venv/bin/python -m entropic …``) when that is the one running, else
    through ``python`` (an installed package: a launched notebook, an environment of one's own)."""
    import sys

    ours = VENV.is_dir() and Path(sys.prefix).resolve() == VENV.resolve()
    return f"{'.venv/bin/python' if ours else 'python'} -m entropic {arguments}".rstrip()


def shown(path: Path) -> str:
    """A path as messages print it: relative to ``ROOT`` when it lies inside it (no machine-local prefix)."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def notebook_source(section: str) -> Path:
    """The jupytext (MyST Markdown) source of a section notebook."""
    return NOTEBOOKS / f"{section}.md"


def keep_newest(folder: Path, count: int, kind=lambda path: True) -> None:
    """Delete all but the ``count`` folders in ``folder`` written or used last (their modification times), among
    those of the ``kind`` (a test of a folder's path) given. A folder another process removes meanwhile counts as the
    oldest."""
    import shutil

    def used(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    kept = sorted((p for p in folder.iterdir() if p.is_dir() and kind(p)), key=used, reverse=True)
    for old in kept[count:]:
        shutil.rmtree(old, ignore_errors=True)
