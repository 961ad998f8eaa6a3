"""The lesson's one-page handout: the learning goals, the key formulas and the exercises' prompts (no solution),
printed on one A4 page by Chromium driven by Playwright, as the book's PDF is printed (used by
``argument.lesson``). The words come from the chapter (``lesson_text``); MathJax 3 typesets the formulas, and a
formula wider than what is left of its column's line is set smaller until it fits (``FIT``, run in the page at the
width it prints at); one that would need less than ``LEAST_SCALE`` of its size is refused.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from .. import paths
from .lesson_text import exercises, plain
from .slides import marked_math, mathjax_script

MARGIN_MM = (11, 12)  # the printed page's margins, top and bottom, left and right
PRINTED_PX = round((210 - 2 * MARGIN_MM[1]) / 25.4 * 96)  # the width the page's text is laid out in (A4, CSS px)
LEAST_SCALE = 0.6  # a formula is set no smaller than this share of its size to fit its column
CSS = f"""
@page {{ size: A4; margin: {MARGIN_MM[0]}mm {MARGIN_MM[1]}mm; }}
body {{ font-family: "DejaVu Sans", Arial, sans-serif; font-size: 9.2pt; line-height: 1.32; margin: 0; }}
h1 {{ font-size: 13pt; margin: 0 0 1mm 0; }} .sub {{ margin: 0 0 2mm 0; color: #444; }}
h2 {{ font-size: 10.4pt; margin: 2mm 0 1mm 0; break-after: avoid; }}
.columns {{ column-count: 2; column-gap: 7mm; }}
ol, ul {{ margin: 0; padding-left: 4.5mm; }} li {{ margin-bottom: 1mm; }} p {{ margin: 0 0 1mm 0; }}
.exercise {{ break-inside: avoid; margin-bottom: 1.4mm; }}
"""

# In the page, once MathJax has typeset it: every formula that runs past the right edge of its column is set smaller,
# to the room its line leaves it (or, on a line of its own, to the column's width), until none does; the formulas
# that still do (they would need less than LEAST_SCALE of their size) are listed in window.formulasOutside.
FIT = """() => {
  const box = document.querySelector('.columns'), style = getComputedStyle(box);
  const gap = parseFloat(style.columnGap), count = parseInt(style.columnCount);
  const outside = () => {
    const b = box.getBoundingClientRect(), width = (b.width - gap * (count - 1)) / count;
    return [...box.querySelectorAll('mjx-container')].map(m => {
      const r = (m.querySelector('svg') || m).getBoundingClientRect();  // the formula, not its box
      const k = Math.max(0, Math.min(count - 1, Math.floor((r.left - b.left + gap / 2) / (width + gap))));
      const end = b.left + k * (width + gap) + width;
      return {m, over: r.right - end, room: end - r.left, width: r.width, column: width};
    }).filter(o => o.over > 0.5);
  };
  for (let pass = 0; pass < 4; pass++) {
    outside().forEach(({m, room, width, column}) => {
      if (room < LEAST * width) { m.style.display = 'block'; room = column; }  // a line of its own
      const scale = Math.max(room / width, LEAST);
      m.style.fontSize = `${parseFloat(getComputedStyle(m).fontSize) * scale}px`;
    });
  }
  window.formulasOutside = outside().map(o => `${o.m.querySelector('mjx-assistive-mml')?.textContent || 'a formula'}`
                                              + ` (${o.over.toFixed(1)} px past its column)`);
}""".replace("LEAST", str(LEAST_SCALE))
MATHJAX = ("window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']]}, svg: {fontCache: 'global'}, "
           "startup: {pageReady: () => MathJax.startup.defaultPageReady().then(" + FIT + ")}};")


def _inline(markdown: str) -> str:
    """One line of Markdown as HTML without its paragraph."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    return re.sub(r"^<p>(.*)</p>\s*$", r"\1", markdown2html_mistune(markdown).strip(), flags=re.S)


def handout_html(parts: dict, values: dict, mathjax: Path) -> str:
    """The handout as one HTML page (MathJax from the file ``mathjax``)."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune as html

    prompts = "".join(f'<div class="exercise"><b>Exercise {k}: {_inline(plain(e["title"], values))}.</b> '
                      f'{html(plain(e["prompt"], values))}</div>' for k, e in enumerate(exercises(parts), start=1))
    body = marked_math(f"<h1>{_inline(plain(parts['title'], values))}</h1>"
                       f'<p class="sub">Handout of a 50-minute lesson: predict before you compute; each solution is '
                       f"computed on the book's page.</p><div class=\"columns\">"
                       f"<h2>Learning goals</h2>{html(plain(parts['goals'], values))}"
                       f"<h2>Key formulas</h2>{html(plain(parts['formulas'], values))}"
                       f"<h2>Exercises</h2>{prompts}</div>")  # formulas marked for MathJax, as the slides mark theirs
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Handout</title>'
            f"<style>{CSS}</style><script>{MATHJAX}</script>"
            f'<script src="{mathjax.as_uri()}"></script></head><body>{body}</body></html>')


def pdf_pages(path: Path) -> int:
    """The number of pages of a PDF."""
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


def _print(html: str, target: Path, browser: str) -> list[str]:
    """Print ``html`` to ``target``, laid out at the printed width in print media from the start (so that ``FIT``
    measures the columns the page prints); returns the formulas that still run past their column."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "handout.html"
        page_file.write_text(html)
        with sync_playwright() as driver:
            chromium = driver.chromium.launch(executable_path=browser, args=["--no-sandbox", "--disable-gpu"])
            try:
                page = chromium.new_page(viewport={"width": PRINTED_PX, "height": 1000})
                page.emulate_media(media="print")
                page.goto(page_file.as_uri(), wait_until="load")
                page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
                page.evaluate("() => MathJax.startup.promise")
                page.pdf(path=str(target), format="A4", print_background=True, prefer_css_page_size=True)
                outside = page.evaluate("() => window.formulasOutside")
                if outside is None:
                    raise ValueError("the handout's formulas were not measured against their columns (FIT did not run)")
                return outside
            finally:
                chromium.close()


def write_handout(parts: dict, values: dict, target: Path, browser: str) -> Path:
    """Print the handout to the PDF ``target`` with the Chromium binary ``browser``; a handout longer than one
    page, or with a formula wider than its column at ``LEAST_SCALE`` of its size, raises ``ValueError``.
    Playwright's synchronous driver runs in a thread of its own (a notebook's kernel
    runs an event loop, which that driver refuses to share). A handout printed before from the same page, by the same
    Chromium and this module's code, is copied from ``build/computed/handouts/`` instead of printed again (the
    teaching page renders again whenever the results it reads change; its handout seldom does)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    html = handout_html(parts, values, mathjax_script())
    printed = _printed(html, browser)
    if printed.is_file():
        shutil.copy2(printed, target)
        try:
            whole = pdf_pages(target) == 1
        except Exception:  # pypdf's errors of a truncated or foreign file
            whole = False
        if not whole:
            raise ValueError(f"{printed} is not the one-page handout it was stored as: delete it, and the handout is "
                             "printed again")
        return target
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        outside = pool.submit(_print, html, target, browser).result()
    if outside:
        raise ValueError(f"the handout's formulas run past their column: {'; '.join(outside)}; shorten them")
    if (pages := pdf_pages(target)) != 1:
        raise ValueError(f"the handout runs to {pages} pages; it must fit one: shorten the goals, prompts or formulas")
    printed.parent.mkdir(parents=True, exist_ok=True)
    staged = printed.with_name(f"{printed.name}.{os.getpid()}.partial")  # two processes may print the same handout
    shutil.copy2(target, staged)
    staged.replace(printed)  # whole, or not there
    for old in sorted(printed.parent.glob("*.pdf"), key=lambda p: p.stat().st_mtime, reverse=True)[KEPT:]:
        old.unlink(missing_ok=True)
    return target


KEPT = 8  # the handouts kept in build/computed/handouts/, the newest


def _printed(html: str, browser: str) -> Path:
    """Where the handout of ``html`` printed by ``browser`` is kept: named by a digest of the page, of the binary
    (its path, size and time) and of this module's code (its layout checks)."""
    binary = Path(browser).resolve()
    status = binary.stat()
    digest = hashlib.sha256(html.encode())
    digest.update(f"{binary}:{status.st_size}:{status.st_mtime_ns}".encode())
    digest.update(Path(__file__).read_bytes())
    return paths.BUILD / "computed" / "handouts" / f"{digest.hexdigest()[:16]}.pdf"
