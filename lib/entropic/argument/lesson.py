"""The teaching chapter as a 50-minute lesson a teacher runs from its slides and its one-page handout.

:func:`write_materials` writes both for the teaching page, which calls it while it renders: the words from the
chapter's own MyST (``lesson_text``), the pictures from the page's figures, the slides as one reveal.js file
that opens offline (``slides``), the handout as a PDF printed by Chromium (``handout``). The page links the
two files (:func:`links`), so every build of the book, and the published site, carries them. ``make slides``
renders that page (``python -m entropic.argument.lesson``), again when either file is missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import paths
from .handout import write_handout
from .lesson_text import lesson_parts
from .slides import deck_notebook, figure_png, slide_count, write_deck

SLIDES, HANDOUT = "teaching-slides.html", "teaching-handout.pdf"


def write_materials(folder: Path, figures: dict, values: dict, source: Path | None = None,
                    browser=None) -> dict:
    """The lesson's slides and handout in ``folder`` (``SLIDES``, ``HANDOUT``), from the chapter's ``source``
    (default ``notebooks/teaching.md``), the page's ``figures`` (name → Matplotlib figure) and the ``values``
    its lesson text pastes. ``browser`` is the Chromium binary, or a function that returns it
    (``publish.pdf.chromium``, which raises ``RuntimeError`` when there is none); without one the handout is not
    printed and ``missing`` says why.

    Returns ``{"slides": path, "handout": path or None, "missing": reason or None, "slide_count": int}``."""
    parts = lesson_parts((source or paths.notebook_source("teaching")).read_text())
    notebook = deck_notebook(parts, {name: figure_png(figure) for name, figure in figures.items()}, values)
    slides = write_deck(notebook, folder / SLIDES)
    try:
        binary = browser() if callable(browser) else browser
    except RuntimeError as error:
        binary, missing = None, str(error)
    else:
        missing = None if binary else "no Chromium was given to print it"
    (folder / HANDOUT).unlink(missing_ok=True)
    handout = write_handout(parts, values, folder / HANDOUT, binary) if binary else None
    return {"slides": slides, "handout": handout, "missing": missing, "slide_count": slide_count(notebook)}


def links(materials: dict, page_folder: Path) -> str:
    """MyST for the chapter: download links to the slides and the handout, relative to the folder of the page
    (``page_folder``, like the materials under ``paths.BUILD``), or why the handout is missing, and the command
    that writes them again."""
    up = Path(*[".."] * len(page_folder.relative_to(paths.BUILD).parts))

    def relative(path: Path) -> str:
        return (up / path.relative_to(paths.BUILD)).as_posix()

    slides = (f"{{download}}`the slides <{relative(materials['slides'])}>` ({materials['slide_count']} reveal.js "
              f"slides, one HTML file, offline)")
    again = "`make slides` writes both again"
    if materials["handout"] is None:
        missing = f"the one-page handout is not printed on this machine: {materials['missing']}"
        return f"Download {slides}; {missing}. {again}."
    handout = f"{{download}}`the one-page handout <{relative(materials['handout'])}>`"
    return f"Download {slides} and {handout} (PDF); {again}."


def main(argv: list[str] | None = None) -> int:
    """``make slides``: render the teaching page at a profile (again if its slides or handout are missing),
    which writes the lesson's materials to ``build/lesson/``."""
    parser = argparse.ArgumentParser(prog="python -m entropic.argument.lesson", description=main.__doc__)
    parser.add_argument("--profile", default="paper", help="the profile the page shows (default: paper)")
    args = parser.parse_args(argv)
    from ..publish import build  # the command composes the page renderer, above this package, with the lesson

    folder = paths.BUILD / "lesson"
    written = [folder / name for name in (SLIDES, HANDOUT)]
    build.execute("teaching", args.profile, {}, force=not all(path.is_file() for path in written))
    for path in written:
        print(f"[entropic] {paths.shown(path)}" if path.is_file() else f"[entropic] not written: {paths.shown(path)}")
    return 0 if all(path.is_file() for path in written) else 1


if __name__ == "__main__":
    sys.exit(main())
