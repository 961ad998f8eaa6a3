"""The whole book as one PDF: the single-page build, printed by Chromium.

``make pdf`` renders the pages as ``make book`` does, builds the book as one HTML page (Jupyter Book's
``singlehtml`` builder, with this build's configuration: ``site.book_config``), opens it in Debian's
``chromium`` through Playwright (no browser download), waits for MathJax to typeset every equation, and
prints it on A4 with page numbers: ``_build/pdf/entropic-bound.pdf``. Before it prints, ``preprint`` turns the page
into a preprint (a title page with the abstract, contents with page numbers, the chapters without their folds, and
an appendix with the folds' proofs, tables and figures); the print style (``_assets/print.css``) starts every chapter
on a new page and leaves out the site's navigation.

This module is also the Sphinx extension the single-page build loads (:func:`setup`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from .. import paths
from . import build, preprint, site

FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555">'
          '<span class="pageNumber"></span></div>')


def chromium(install: bool = True) -> str:
    """The Chromium binary: on ``PATH``, or installed from Debian's archive when missing (as root with
    apt-get, ``install=True``); otherwise a ``RuntimeError`` that says how to install it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and install and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run("apt-get update -qq && apt-get install -y -qq chromium", shell=True, capture_output=True)
        found = shutil.which("chromium")
    if found is None:
        raise RuntimeError("printing the book needs Chromium: apt-get install chromium (Debian's package)")
    return found


def print_pdf(index: Path, target: Path, front: dict[str, str] | None = None, timeout_ms: int = 120_000) -> Path:
    """Print the HTML page ``index`` to ``target`` with Chromium, after MathJax has typeset it, as a preprint
    (``preprint``): ``front`` holds the title page's title, subtitle and metadata line. Printed twice: the first
    print finds the page each chapter starts on, the second prints the contents with those numbers."""
    from playwright.sync_api import sync_playwright

    if not index.is_file():
        raise ValueError(f"no HTML page at {index}")
    target.parent.mkdir(parents=True, exist_ok=True)
    build.record("print", str(target))
    front = front or {"title": "", "subtitle": "", "meta": "", "site": ""}
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(index.resolve().as_uri(), wait_until="load", timeout=timeout_ms)
            page.evaluate(preprint.PREPRINT, preprint.arguments(front))
            page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=timeout_ms)
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=timeout_ms)
            page.evaluate("() => MathJax.startup.promise")
            page.emulate_media(media="print")
            options = dict(format="A4", print_background=True, display_header_footer=True,
                           header_template="<span></span>", footer_template=FOOTER,
                           margin={"top": "18mm", "bottom": "18mm", "left": "20mm", "right": "20mm"})
            page.pdf(path=str(target), **options)
            page.evaluate(preprint.NUMBER_PAGES, chapter_pages(target))
            page.pdf(path=str(target), **options)
        finally:
            browser.close()
    return target


def chapter_pages(path: Path) -> dict[str, int]:
    """The page (1-based) each chapter marker of a first print (``preprint.PREPRINT``) stands on."""
    from pypdf import PdfReader

    found = {}
    for number, page in enumerate(PdfReader(path).pages, start=1):
        for key in re.findall(r"@@chapter-([\w]+)@@", page.extract_text() or ""):
            found.setdefault(key, number)
    return found


def front_matter(root: Path) -> dict[str, str]:
    """The title page's lines: the book's title, what it is, and its version, date and commit."""
    from .. import __version__

    sha = site.commit()
    config = yaml.safe_load((root / "_config.yml").read_text()) or {}
    return {"title": "The Entropic Bound for Transformers, re-run",
            "subtitle": "An executable reproduction of <i>The Entropic Bound for Transformers: Why Static Rank Fails "
                        "and Attention-Native Rank Recovers</i> (arXiv:2607.23050)",
            "meta": f"{config.get('author', '')} · entropic {__version__} · {site.build_date()}"
                    + (f" · commit {sha[:7]}" if sha else ""),
            "site": site.published_url(root) or ""}


def build_pdf(root: Path = paths.ROOT, log=print) -> Path:
    """Build the single-page book under ``root`` (its pages rendered already) and print it to
    ``root/_build/pdf/entropic-bound.pdf``."""
    index = build.build(root, log=log, builder="singlehtml")
    # The one page is written as the root document's file (build/sections/intro.html; index.html only redirects
    # to it), yet its links to _static/ and _images/ are relative to the build's top folder: print a copy placed there.
    first = yaml.safe_load((root / "_toc.yml").read_text())["root"]
    whole = index.parent / "whole-book.html"
    shutil.copy2(index.parent / f"{first}.html", whole)
    target = print_pdf(whole, root / "_build" / "pdf" / site.PDF_NAME, front_matter(root))
    html = root / "_build" / "html"
    if html.is_dir():  # the HTML book links the PDF at its root, as the published site holds it
        shutil.copy2(target, html / site.PDF_NAME)
    log(f"[entropic] the PDF is at {target}")
    return target


def setup(app):
    """Sphinx extension of the single-page build: extensions that teach the ``html`` writer their nodes
    (sphinx-proof's theorems, sphinx-exercise's exercises, Jupyter Book's hidden table-of-contents node)
    leave ``singlehtml``'s untaught, so the single page takes the ``html`` writer's handlers it lacks."""
    app.connect("builder-inited", _html_handlers_for_single_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def _html_handlers_for_single_page(app) -> None:
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, pair in handlers.get("html", {}).items():
        single.setdefault(node, pair)


if __name__ == "__main__":
    try:
        build_pdf()
    except (RuntimeError, ValueError, subprocess.CalledProcessError) as error:
        sys.exit(f"error: {error}")
