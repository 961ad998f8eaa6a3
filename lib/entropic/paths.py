"""Every filesystem location the project uses, computed from this file so code runs from any directory.

Generated material (executed notebooks, tables, the HTML book) lives under ``build/`` and ``_build/``,
both ignored by git; the results store lives under ``results/``, of which only ``results/paper/`` is
committed.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ENGINE = PACKAGE / "engine"
SECTIONS = PACKAGE / "sections"
ROOT = PACKAGE.parents[1]
NOTEBOOKS = ROOT / "notebooks"
PROFILES = NOTEBOOKS / "params"
BOOK_SOURCES = ROOT / "book"
# The results store, results/<label>/<section>/<job>.json, and the build folder; both can be moved
# (ENTROPIC_RESULTS, ENTROPIC_BUILD), which the tests do to stay out of the working tree.
RESULTS = Path(os.environ.get("ENTROPIC_RESULTS", ROOT / "results"))
BUILD = Path(os.environ.get("ENTROPIC_BUILD", ROOT / "build"))
EXECUTED = BUILD / "sections"  # papermill output: one executed .ipynb per section (what the book shows)
TABLES = BUILD / "tables"  # the tables each executed section produced, as CSV: <label>/<section>/<name>.csv
HTML = ROOT / "_build" / "html"


def notebook_source(section: str) -> Path:
    """The jupytext (MyST Markdown) source of a section notebook."""
    return NOTEBOOKS / f"{section}.md"
