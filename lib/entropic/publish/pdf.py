"""The whole book as one PDF: the single-page build, printed by Chromium.

``make pdf`` renders the pages as ``make book`` does, builds the book as one HTML page (Jupyter Book's
``singlehtml`` builder, with this build's configuration: ``site.book_config``), opens it in Debian's
``chromium`` through Playwright (no browser download), waits for MathJax to typeset every equation, and
prints it on A4 with page numbers: ``_build/pdf/entropic-bound.pdf``. The print style
(``_assets/print.css``) starts every chapter on a new page and leaves out the site's navigation.

This module is also the Sphinx extension the single-page build loads (:func:`setup`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .. import paths
from . import build, site

FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


# On paper nothing can be clicked open: dropdowns (the parameter tables) and toggled blocks (exercises'
# solutions) are printed open, and images load at once.
OPEN_EVERYTHING = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; });
}"""


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


def print_pdf(index: Path, target: Path, timeout_ms: int = 120_000) -> Path:
    """Print the HTML page ``index`` to ``target`` with Chromium, after MathJax has typeset it."""
    from playwright.sync_api import sync_playwright

    if not index.is_file():
        raise ValueError(f"no HTML page at {index}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(index.resolve().as_uri(), wait_until="load", timeout=timeout_ms)
            page.evaluate(OPEN_EVERYTHING)
            page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=timeout_ms)
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=timeout_ms)
            page.evaluate("() => MathJax.startup.promise")
            page.emulate_media(media="print")
            page.pdf(path=str(target), format="A4", print_background=True, display_header_footer=True,
                     header_template="<span></span>", footer_template=FOOTER,
                     margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
        finally:
            browser.close()
    return target


def build_pdf(root: Path = paths.ROOT, log=print) -> Path:
    """Build the single-page book under ``root`` (its pages rendered already) and print it to
    ``root/_build/pdf/entropic-bound.pdf``."""
    import yaml

    index = build.build(root, log=log, builder="singlehtml")
    # The one page is written as the root document's file (build/sections/intro.html; index.html only redirects
    # to it), yet its links to _static/ and _images/ are relative to the build's top folder: print a copy placed there.
    first = yaml.safe_load((root / "_toc.yml").read_text())["root"]
    whole = index.parent / "whole-book.html"
    shutil.copy2(index.parent / f"{first}.html", whole)
    target = print_pdf(whole, root / "_build" / "pdf" / site.PDF_NAME)
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
