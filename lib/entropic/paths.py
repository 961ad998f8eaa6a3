"""Every filesystem location the project uses, computed from this file so code runs from any directory.

Generated material (executed notebooks, figures, the HTML book) lives under ``build/`` and ``_build/``,
both ignored by git.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
PROFILES = NOTEBOOKS / "params"
BOOK_SOURCES = ROOT / "book"
BUILD = ROOT / "build"
EXECUTED = BUILD / "sections"  # papermill output: one executed .ipynb per section
HTML = ROOT / "_build" / "html"


def notebook_source(section: str) -> Path:
    """The jupytext (MyST Markdown) source of a section notebook."""
    return NOTEBOOKS / f"{section}.md"


def executed_notebook(section: str) -> Path:
    """Where papermill writes the executed notebook of ``section`` (the book reads it from there)."""
    return EXECUTED / f"{section}.ipynb"
