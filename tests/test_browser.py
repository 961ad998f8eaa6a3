"""The built book in a real browser: every page at desktop (1280 px) and phone (400 px) width.

Zero console errors and failed requests, no code name in the prose, one verdict per claim across pages, every
image loaded, math rendered by MathJax with no raw TeX left, every internal link resolving, nothing wider than a
phone screen outside a box that scrolls sideways, and no Python object reprs or ``nan`` in the text. What a reader
must never meet (``reader``): a table caption that scrolls away with its table or runs off a phone's screen, a raw
``False``/``True``/``None``/``nan`` cell, a code name as a column header, an image whose alt text is a path,
clipped math, figure text under 9 px on a phone, a runner's ``[entropic]`` line; on a desktop, no table needs a
sideways scroll. Across pages, no count a page quotes is contradicted by the page that holds it. A page with a
problem is screenshot into ``_build/screens/`` of the book built for the tests
(``../shared/tools/look-at-book`` screenshots every page).

Chromium: Debian's ``chromium`` package, driven by Playwright's Python package pointed at that binary (no
browser download). ``.ci/run`` installs it; on a machine without it this test installs it with apt-get
when it can, and otherwise fails saying how (``ENTROPIC_SKIP_BROWSER=1`` skips it explicitly).
"""

import functools
import http.server
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

import reader
from entropic.publish.site import PDF_NAME

pytestmark = pytest.mark.integration
WIDTHS = {"desktop": 1280, "phone": 400}
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run("apt-get update -qq && apt-get install -y -qq chromium", shell=True, capture_output=True)
        found = shutil.which("chromium")
    if found is None:
        if os.environ.get("ENTROPIC_SKIP_BROWSER"):
            pytest.skip("ENTROPIC_SKIP_BROWSER is set")
        pytest.fail("the browser test needs Debian's chromium: apt-get install chromium "
                    "(or set ENTROPIC_SKIP_BROWSER=1 to skip it)")
    return found


@pytest.fixture(scope="module")
def site(tiny_html):
    """The built book served on localhost: (base URL, HTML folder)."""
    folder = tiny_html.parent
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()


def pages(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.html")
                  if "_static" not in p.parts and p.name not in ("genindex.html", "search.html"))


SCROLLING_TABLES = """() => [...document.querySelectorAll('.bd-article .pst-scrollable-table-container')]
  .filter(c => c.scrollWidth > c.clientWidth + 1)
  .map(c => (c.closest('figure')?.querySelector('figcaption')?.innerText || c.innerText).trim().slice(0, 60))"""
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = el => { for (let e = el.parentElement; e; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; }
    return false; };
  const out = [];
  for (const el of document.querySelectorAll('.bd-article *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && !scrolls(el)) out.push(el.tagName + '.' + el.className);
  }
  return out.slice(0, 5);
}"""


def test_every_page_renders_cleanly_in_a_real_browser(site):
    from playwright.sync_api import sync_playwright

    base, folder = site
    screens = folder.parent / "screens"
    screens.mkdir(exist_ok=True)
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        for name in pages(folder):
            for label, width in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": 900})
                errors, failed = [], []
                page.on("console", lambda m, e=errors: e.append(f"{m.text} ({m.location.get('url')})")
                            if m.type == "error" else None)
                page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
                page.on("requestfailed", lambda r, f=failed: f.append(r.url))
                page.on("response", lambda r, f=failed: f.append(f"{r.status} {r.url}") if r.status >= 400 else None)
                page.goto(f"{base}/{name}", wait_until="networkidle")
                page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
                page.wait_for_timeout(300)
                where = f"{name} @{width}px"
                before = len(problems)
                problems += [f"{where}: console: {e}" for e in errors]
                problems += [f"{where}: request failed: {f}" for f in failed]
                widths = page.eval_on_selector_all("img", "els => els.map(e => [e.src, e.naturalWidth])")
                problems += [f"{where}: image not loaded: {src}" for src, w in widths if not w]
                text = page.inner_text("body")
                if page.query_selector(".math, .amsmath"):
                    if not page.query_selector("mjx-container"):
                        problems.append(f"{where}: math not rendered")
                if "$$" in text or re.search(r"\\\(|\\\[", text):
                    problems.append(f"{where}: raw TeX left in the text")
                if "IPython.core.display" in text or re.search(r"\bnan\b", text, re.IGNORECASE):
                    problems.append(f"{where}: a Python repr or nan in the text")
                problems += [f"{where}: {found}" for found in reader.checks(page, folder)]
                if label == "phone":
                    problems += [f"{where}: wider than the screen: {el}" for el in page.evaluate(OVERFLOW)]
                else:
                    problems += [f"{where}: a table needs a sideways scroll on a desktop: {caption}"
                                 for caption in page.evaluate(SCROLLING_TABLES)]
                    problems += [f"{where}: {found}" for found in reader.code_in_prose(page)]
                    for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
                        target, fragment = urldefrag(href)
                        if not target.startswith(base):
                            continue
                        path = folder / urlparse(target).path.lstrip("/")
                        path = path / "index.html" if path.is_dir() else path
                        if path.name == PDF_NAME and path.parent == folder:
                            continue  # the PDF at the site's root is made by make pdf, not make book
                        if not path.is_file():
                            problems.append(f"{where}: broken link {href}")
                        elif fragment and f'id="{fragment}"' not in path.read_text(errors="ignore"):
                            problems.append(f"{where}: missing anchor {href}")
                if len(problems) > before:
                    page.screenshot(path=str(screens / f"{name.replace('/', '_')}.{label}.png"), full_page=True)
                page.close()
        browser.close()
    assert not problems, "\n".join(sorted(set(problems))[:40]) + f"\n(screenshots of these pages: {screens})"


def test_no_page_quotes_a_count_that_the_page_holding_it_contradicts(tiny_html):
    assert not reader.counts_contradicted(tiny_html.parent)


def test_every_page_gives_a_claim_the_verdict_its_ledger_row_gives(tiny_html):
    said = reader.stated_verdicts(tiny_html.parent)
    assert len(said) >= 10  # the comparison tables, the ledger and the intro were read
    assert not reader.verdicts_contradicted(tiny_html.parent)
