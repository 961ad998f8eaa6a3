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
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from .. import paths
from . import build, site

FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555">'
          '<span class="pageNumber"></span></div>')

# The printed book is a preprint: the site's controls leave, the chapters are numbered as the contents number
# them, and what the web page folds (evidence blocks, provenance, folded outputs, the exercises' solutions) moves,
# open, into an appendix part at the end, one section per chapter, each chapter saying where its evidence went.
# A title page with the
# abstract and a contents page with page numbers come first (``preprint``). Run in the printed page before
# printing; it returns the chapters' titles in order.
PREPRINT = r"""(front) => {
  const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
  $$('.headerlink, .copybtn, .toggle-button, button, .sd-summary-state-marker, .sd-summary-chevron-right, '
     + '.sd-summary-chevron-down, .dropdown-launch-buttons, .article-header-buttons, .onlyprint, script')
    .forEach(e => e.remove());  // .onlyprint: the theme's printed title and page contents (the preprint has its own)
  $$('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));  // solutions print (in the appendix)
  const body = document.querySelector('.bd-article') || document.body;
  const chapters = $$('span[id^="document-"] + section', body);
  const appendix = document.createElement('section');
  appendix.className = 'evidence-appendix';
  appendix.innerHTML = '<h1 class="preprint-part">Appendix: the evidence</h1><p>What each web page folds beneath its '
    + 'findings (configuration, specification tables, further figures, trajectories, provenance, re-run commands, '
    + 'the solutions of the exercises), printed here in the order of the chapters.</p>';
  const titles = [];
  chapters.forEach((chapter, k) => {
    const heading = [...chapter.children].find(e => /^H[1-6]$/.test(e.tagName));  // its title, at any depth
    const title = heading ? heading.textContent.replace(/#$/, '').trim() : `Chapter ${k + 1}`;
    titles.push(title);
    if (heading) {
      const mark = document.createElement('span');
      mark.className = 'preprint-marker'; mark.textContent = `@@chapter-${k + 1}@@`;
      heading.prepend(mark);
    }
    const FOLDS = 'details.evidence, details.provenance, div.evidence, div.provenance, details.hide, div.solution';
    const folded = $$(FOLDS, chapter).filter(e => !e.parentElement.closest(FOLDS));
    if (!folded.length) return;
    const part = document.createElement('section');
    part.className = 'evidence-chapter';
    part.innerHTML = `<h2>Evidence for ${title}</h2>`;
    folded.forEach(e => {
      $$('details', e).concat(e.matches('details') ? [e] : []).forEach(d => { d.open = true; });
      part.appendChild(e);
    });
    const note = document.createElement('p');
    note.className = 'evidence-note';
    note.textContent = `The evidence of this chapter (${folded.length} blocks the web page folds) is printed in the `
      + `appendix, under "Evidence for ${title}".`;
    chapter.appendChild(note);
    appendix.appendChild(part);
  });
  body.appendChild(appendix);
  const page = document.createElement('section');
  page.className = 'preprint-front';
  const abstract = document.querySelector('.abstract');
  page.innerHTML = `<div class="title-page"><h1>${front.title}</h1><p class="subtitle">${front.subtitle}</p>`
    + `<p class="meta">${front.meta}</p>` + (abstract ? `<h2>Abstract</h2>${abstract.innerHTML}` : '') + '</div>'
    + '<div class="contents-page"><h2>Contents</h2><ol class="contents">'
    + titles.map((t, k) => `<li><span class="entry">${t}</span>`
                           + `<span class="page" data-chapter="${k + 1}">000</span></li>`).join('')
    + '<li><span class="entry">Appendix: the evidence</span><span class="page" data-chapter="evidence">000</span></li>'
    + '</ol></div>';
  const marker = document.createElement('span');
  marker.className = 'preprint-marker'; marker.textContent = '@@chapter-evidence@@';
  appendix.querySelector('h1').prepend(marker);
  body.prepend(page);
  document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; });
  return titles;
}"""
# The second pass: the contents get the page numbers the first pass found, and the markers leave.
NUMBER_PAGES = r"""(pages) => {
  document.querySelectorAll('.contents .page').forEach(e => { e.textContent = pages[e.dataset.chapter] ?? ''; });
  document.querySelectorAll('.preprint-marker').forEach(e => e.remove());
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


def print_pdf(index: Path, target: Path, front: dict[str, str] | None = None, timeout_ms: int = 120_000) -> Path:
    """Print the HTML page ``index`` to ``target`` with Chromium, after MathJax has typeset it, as a preprint
    (``PREPRINT``): ``front`` holds the title page's title, subtitle and metadata line. Printed twice: the first
    print finds the page each chapter starts on, the second prints the contents with those numbers."""
    from playwright.sync_api import sync_playwright

    if not index.is_file():
        raise ValueError(f"no HTML page at {index}")
    target.parent.mkdir(parents=True, exist_ok=True)
    front = front or {"title": "", "subtitle": "", "meta": ""}
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(index.resolve().as_uri(), wait_until="load", timeout=timeout_ms)
            page.evaluate(PREPRINT, front)
            page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=timeout_ms)
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=timeout_ms)
            page.evaluate("() => MathJax.startup.promise")
            page.emulate_media(media="print")
            options = dict(format="A4", print_background=True, display_header_footer=True,
                           header_template="<span></span>", footer_template=FOOTER,
                           margin={"top": "18mm", "bottom": "18mm", "left": "20mm", "right": "20mm"})
            page.pdf(path=str(target), **options)
            page.evaluate(NUMBER_PAGES, chapter_pages(target))
            page.pdf(path=str(target), **options)
        finally:
            browser.close()
    return target


def chapter_pages(path: Path) -> dict[str, int]:
    """The page (1-based) each chapter marker of a first print (``PREPRINT``) stands on."""
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
                    + (f" · commit {sha[:7]}" if sha else "")}


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
