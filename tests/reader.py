"""What a reader of the built book must never meet, as checks on one page open in a browser (Playwright) and
on the HTML files themselves. ``test_browser`` runs them on every page of the tiny book at 1280 and 400 px;
each returns the problems it finds as lines, an empty list when there are none.

- ``captions``: a table's caption that scrolls sideways with its table, or runs off the screen;
- ``raw_cells``: a table cell that reads ``False``, ``True``, ``None``, ``nan`` (a Python value, not a mark);
- ``code_headers``: a column header that is a code name (``kernel_rank``), not words;
- ``alt_texts``: an image whose alt text is missing or a file path;
- ``clipped_math``: rendered math cut off by an element that hides its overflow;
- ``figure_text``: figure text smaller than ``MIN_PX`` pixels as the page shows the figure (SVG figures,
  whose text is text: each ``<text>`` at the size its figure is drawn); a figure that is not SVG cannot be
  checked and is reported;
- ``log_lines``: a runner's ``[entropic]`` log line in the page;
- ``shrunk_figures``: a figure shown below 95 % of its size where the column had room for it (a half column);
- ``counts_contradicted`` (on the HTML files): the intro quoting counts of the theory page's results that the
  theory page does not have, and the reproducing page placing the criteria where the ledger does not.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from entropic.report.figures import MIN_PX  # the smallest figure text a reader should meet

OPEN_DROPDOWNS = """() => {  // dropdowns and toggled solutions open, as publish.pdf prints them
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
}"""

CAPTIONS = r"""() => {
  const width = document.documentElement.clientWidth, out = [];
  const scroller = el => { for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      if (getComputedStyle(e).overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1) return e; }
    return null; };
  for (const c of document.querySelectorAll('.bd-article caption, .bd-article figcaption')) {
    const r = c.getBoundingClientRect();
    if (!r.width || !c.closest('figure.entropic-table, table')) continue;  // hidden, or a figure's caption
    const text = c.innerText.trim().replace(/\s+/g, ' ').slice(0, 60);
    if (scroller(c)) out.push('caption scrolls sideways with its table: ' + text);
    else if (r.right > width + 1 || r.left < -1) out.push('caption runs off the screen: ' + text);
  }
  return out;
}"""
CELLS = r"""() => [...document.querySelectorAll('.bd-article td, .bd-article th')]
  .map(c => c.innerText.trim()).filter(t => /^(False|True|None|nan|NaN|NaT|<NA>|-?inf)$/.test(t))"""
HEADERS = r"""() => [...document.querySelectorAll('.bd-article th')]
  .map(c => c.innerText.trim()).filter(t => /(^|[\s(\[,])[a-z][a-z0-9]*_[a-z0-9_]+/.test(t))"""
IMAGES = r"""() => [...document.querySelectorAll('.bd-article img')]
  .map(i => [i.getAttribute('alt') || '', i.getAttribute('src') || '', i.getBoundingClientRect().width])"""
MATH = r"""() => {
  const out = [];
  for (const m of document.querySelectorAll('.bd-article .math, .bd-article mjx-container')) {
    const cs = getComputedStyle(m), r = m.getBoundingClientRect();
    const hidesX = ['hidden', 'clip'].includes(cs.overflowX), hidesY = ['hidden', 'clip'].includes(cs.overflowY);
    if (!r.width || !(hidesX || hidesY)) continue;
    for (const inner of m.querySelectorAll('mjx-math')) {
      const q = inner.getBoundingClientRect();
      if ((hidesX && (q.right > r.right + 1 || q.left < r.left - 1))
          || (hidesY && (q.bottom > r.bottom + 1 || q.top < r.top - 1))) {
        out.push(Math.round(Math.max(q.right - r.right, r.left - q.left, q.bottom - r.bottom, r.top - q.top))
                 + ' px cut off: ' + (m.innerText || '').replace(/\s+/g, ' ').slice(0, 50));
        break;
      }
    }
  }
  return out;
}"""
SIZE = re.compile(r"font-size:\s*([\d.]+)px")
PATH = re.compile(r"\S+\.(png|svg|jpe?g|gif|webp)|\S*/\S*", re.IGNORECASE)


def captions(page) -> list[str]:
    return page.evaluate(CAPTIONS)


def raw_cells(page) -> list[str]:
    return [f"a table cell reads {text!r}" for text in dict.fromkeys(page.evaluate(CELLS))]


def code_headers(page) -> list[str]:
    return [f"a column header is a code name: {text!r}" for text in dict.fromkeys(page.evaluate(HEADERS))]


def alt_texts(page) -> list[str]:
    return [f"an image's alt text is {f'a path ({alt!r})' if alt.strip() else 'missing'}: {src}"
            for alt, src, _ in page.evaluate(IMAGES) if not alt.strip() or PATH.fullmatch(alt.strip())]


def clipped_math(page) -> list[str]:
    return [f"math clipped: {found}" for found in page.evaluate(MATH)]


def svg_text_sizes(svg: Path) -> tuple[float, list[tuple[float, str]]]:
    """(the SVG's width in its own units, [(font size, text) per ``<text>`` element]): a text's size is the
    largest of its own and its spans' (a formula's sub- and superscripts are smaller by design)."""
    root = ET.parse(svg).getroot()
    width = float(root.get("viewBox").split()[2]) if root.get("viewBox") else float(re.sub(r"[a-z]+", "",
                                                                                          root.get("width")))
    found = []
    for element in root.iter("{http://www.w3.org/2000/svg}text"):
        sizes = [float(s) for e in element.iter() for s in SIZE.findall(e.get("style", ""))]
        text = " ".join("".join(element.itertext()).split())
        if sizes and text:
            found.append((max(sizes), text))
    return width, found


def figure_text(page, folder: Path) -> list[str]:
    """Figure text below ``MIN_PX`` at the width the page shows each figure."""
    problems = []
    for _, src, shown in page.evaluate(IMAGES):
        if not shown:
            continue
        path = folder / unquote(urlparse(urljoin(page.url, src)).path).lstrip("/")
        if path.suffix.lower() != ".svg":
            problems.append(f"a figure is not SVG, so its text size cannot be checked: {path.name}")
            continue
        width, texts = svg_text_sizes(path)
        small = sorted((size * shown / width, text) for size, text in texts if size * shown / width < MIN_PX)
        if small:
            problems.append(f"figure text below {MIN_PX} px at {shown:.0f} px wide: {len(small)} labels, the "
                            f"smallest {small[0][0]:.1f} px ({small[0][1][:30]!r}) in {path.name}")
    return problems


def log_lines(page) -> list[str]:
    return [f"a runner log line in the page: {line.strip()[:80]!r}"
            for line in page.inner_text("body").splitlines() if "[entropic]" in line]


def checks(page, folder: Path) -> list[str]:
    """Every check above that reads one open page (dropdowns and solutions opened first, so that their tables
    count)."""
    page.evaluate(OPEN_DROPDOWNS)
    page.wait_for_timeout(200)
    return (captions(page) + raw_cells(page) + code_headers(page) + alt_texts(page) + clipped_math(page)
            + figure_text(page, folder) + log_lines(page))


# --- counts a page quotes against the tables and pages that hold them ---------------------------------------

KINDS = {"theorem": "theorem", "proposition": "proposition", "corollar": "corollary", "lemma": "lemma"}
POSITIONS = {"head": 0, "first": 0, "last": -1, "end": -1}


def _soup(path: Path):
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(), "html.parser")


def counts_contradicted(folder: Path) -> list[str]:
    """The intro's count of the theory page's results, and the reproducing page's place for the criteria in
    the ledger, each against the page that holds them."""
    problems = []
    pages = folder / "build" / "sections"
    intro = " ".join(_soup(pages / "intro.html").select_one("article").get_text(" ").split())
    theory = _soup(pages / "theory.html")
    quoted = {KINDS[k]: int(n) for n, k in re.findall(r"(\d+) (theorem|proposition|corollar|lemma)", intro)}
    if not quoted:
        problems.append("the intro quotes no count of the theory page's results")
    for kind, n in quoted.items():
        held = len(theory.select(f"div.proof.{kind}"))
        if held != n:
            problems.append(f"the intro says {n} {kind}(s), the theory page has {held}")
    reproducing = " ".join(_soup(folder / "book" / "reproducing.html").select_one("article").get_text(" ").split())
    ledger = _soup(pages / "ledger.html")
    tables = [t.get_text(" ") for t in ledger.select("figure.entropic-table > figcaption, table caption")]
    for sentence in re.split(r"(?<=[.;])\s", reproducing):
        if "criteri" in sentence and "ledger" in sentence:
            for word, index in POSITIONS.items():
                if re.search(rf"\b{word}\b", sentence) and tables and "criterion" not in tables[index]:
                    table = " ".join(tables[index].split())[:60]
                    problems.append(f"the reproducing page puts the criteria at the {word} of the ledger, whose "
                                    f"{'first' if index == 0 else 'last'} table is: {table}")
    return problems


# --- one verdict per claim, across every page ---------------------------------------------------------------

VERDICT_WORDS = ("reproduced", "claim holds, value differs", "not reproduced", "not significant", "undecided",
                 "undefined", "not checked")
FINDING = re.compile(r"\"(?P<says>[^\"]+)\" \((?P<where>[^)]+)\),? (?P<verdict>" + "|".join(VERDICT_WORDS) + ")")


def _claim_key(text: str) -> str:
    """A claim as the paper's words and where, however a page brackets the place ("App. B.3 (iii)", "App. B.3 iii")."""
    return re.sub(r" \((\w+)\)\)$", r" \1)", " ".join(text.replace("\\*", "*").split()))


def stated_verdicts(folder: Path) -> dict[str, dict[str, set[str]]]:
    """Every verdict the built pages give a claim of the paper: ``{claim: {verdict: {pages}}}``. A claim is the
    paper's words and where it says them ("saturates (17–23) (§6, Table 4)"); a verdict is read from every table row
    whose verdict badge sits beside a "paper says" cell (the comparison tables and the ledger) and from every line
    that quotes a claim with its verdict (the intro's findings)."""
    found: dict[str, dict[str, set[str]]] = {}
    for path in sorted(folder.rglob("*.html")):
        if "_static" in path.parts or path.name in ("genindex.html", "search.html"):
            continue
        soup = _soup(path)
        article = soup.select_one("article") or soup
        name = str(path.relative_to(folder))
        for table in article.select("table"):
            headers = [" ".join(th.get_text(" ").split()) for th in table.select("thead th")]
            if "paper says" not in headers:
                continue
            says_at = headers.index("paper says")
            for row in table.select("tbody tr"):
                cells = row.find_all("td")
                badges = [" ".join(b.get_text(" ").split()) for b in row.select(".sd-badge")]
                verdict = next((b for b in badges if b in VERDICT_WORDS), None)
                if verdict and says_at < len(cells):
                    claim = _claim_key(cells[says_at].get_text(" "))
                    found.setdefault(claim, {}).setdefault(verdict, set()).add(name)
        text = " ".join(article.get_text(" ").split())
        for match in FINDING.finditer(text):
            claim = _claim_key(f"{match['says']} ({match['where']})")
            found.setdefault(claim, {}).setdefault(match["verdict"], set()).add(name)
    return found


def verdicts_contradicted(folder: Path) -> list[str]:
    """Claims to which two places of the book give different verdicts."""
    return [f"{claim!r}: " + "; ".join(f"{verdict} on {', '.join(sorted(pages))}" for verdict, pages in said.items())
            for claim, said in stated_verdicts(folder).items() if len(said) > 1]


# --- a page read in minutes -----------------------------------------------------------------------------------

TALLEST = 8000  # px at 1280 px wide, every fold closed
HEIGHT = "() => document.documentElement.scrollHeight"
PROSE_CODE = r"""() => {
  const out = [], skip = 'pre, code, .math, mjx-container, .provenance, .highlight, script, style, svg, .sd-badge';
  const walker = document.createTreeWalker(document.querySelector('.bd-article') || document.body,
                                           NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest(skip)) continue;
    for (const m of n.textContent.matchAll(/(^|[^\w\\$])([a-z]+_[a-z_]+)(?![\w(])/g)) out.push(m[2]);
  }
  return [...new Set(out)];
}"""


# Every explorable of a page drawn (the book's loader draws each as it first comes near the screen): each scrolled into
# view in turn until its Bokeh document is in its place, then the page back at its top.
DRAW_EXPLORABLES = """async () => {
  for (const live of document.querySelectorAll('.explorable-live')) {
    live.scrollIntoView();
    const target = live.querySelector('.explorable-target');
    for (let i = 0; i < 500 && !target.children.length; i++) await new Promise(r => setTimeout(r, 20));
    if (!target.children.length) return live.parentElement.id;
  }
  window.scrollTo(0, 0);
  return null;
}"""


def draw_explorables(page) -> None:
    """Draw every explorable of ``page`` (as a reader reaching each would); fails naming one that is not drawn."""
    undrawn = page.evaluate(DRAW_EXPLORABLES)
    assert undrawn is None, f"the explorable {undrawn} was not drawn within 10 s of coming into view"


def too_tall(page) -> list[str]:
    """The page, every fold closed and every explorable drawn, taller than ``TALLEST`` px (measure it at 1280 px
    wide)."""
    draw_explorables(page)
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = false; })")
    height = page.evaluate(HEIGHT)
    return [f"the page is {height} px tall with its folds closed (at most {TALLEST})"] if height > TALLEST else []


def code_in_prose(page) -> list[str]:
    """Code names (``linear_qk``, ``d_model``) in the page's text outside code, math and provenance."""
    return [f"a code name in the prose: {name!r}" for name in page.evaluate(PROSE_CODE)]


SHRUNK = r"""() => {
  const article = document.querySelector('.bd-article');
  if (!article) return [];  // a page without the book's article (the search page)
  const column = article.getBoundingClientRect().width;
  return [...document.querySelectorAll('.bd-article img')].filter(i => i.naturalWidth).map(i => {
    const shown = i.getBoundingClientRect().width;
    return {alt: i.alt.slice(0, 60), shown, room: Math.min(i.naturalWidth, column), natural: i.naturalWidth};
  }).filter(f => f.shown && f.shown < 0.95 * f.room)
    .map(f => `${f.alt}: shown at ${Math.round(100 * f.shown / f.natural)} % of its size`);
}"""


def shrunk_figures(page) -> list[str]:
    """Figures shown below 95 % of their size, or of the column's width, where the column had room for more (a
    figure in half a column shrinks its text below the size it was drawn for). Folds are opened first."""
    page.evaluate(OPEN_DROPDOWNS)
    return [f"a figure shrunk: {found}" for found in page.evaluate(SHRUNK)]
