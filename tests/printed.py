"""What a reader of the printed book (``publish.pdf``) must never meet, read from the PDF itself and, for its
headings, from the single page it was printed from. ``test_pdf`` runs these on the tiny book's PDF,
``test_paper_book`` on the paper book's; each returns the problems it finds, an empty list when there are none.

- ``web_controls``: a web page's control or a sentence about clicking, printed ("Hide the figure", "click");
- ``short_pages``: a page under ``LEAST`` characters, the title page excepted (a line or two that spilled over);
- ``thin_pages``: a page filled less than ``THIRD`` of its height, unless it ends a chapter;
- ``orphaned_headings``: a heading that is the last thing on its page (what it heads starts on the next);
- ``captions_apart``: a figure's caption at the head of a page (its figure, above it, on the page before);
- ``appendix_start``: the page the evidence appendix starts on;
- ``stray_links``: a link to a file of the machine that printed it, to a relative address, or to a place inside the
  PDF that it does not hold, and a link to the web outside ``site`` where it names the book's own pages.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

LEAST = 150  # characters: a page with less holds a line or two that spilled over
WEB_WORDS = re.compile(r"\b(?:Hide|Show) (?:the |code|cell|output|recovery)|\bclick|\bToggle\b|Copy to clipboard"
                       r"|whole book as one PDF|Download the slides|Shown: profile")
APPENDIX = "Appendix: the evidence"
FOOTER_PT = 30  # the page number stands below this height (points from the page's foot); the text above it
THIRD = 1 / 3  # of a page's height above its footer: a page filled less, not ending a chapter, is a page half blank


def _words(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def page_texts(pdf: Path) -> list[str]:
    """Each page's text, its whitespace collapsed and its ligatures undone."""
    return list(_page_texts(pdf, _stamp(pdf)))


# A PDF's text is read once per process and file version (several tests read the same PDF, which takes seconds).
def _stamp(pdf: Path) -> tuple[int, int]:
    return pdf.stat().st_mtime_ns, pdf.stat().st_size


@functools.lru_cache(maxsize=4)
def _page_texts(pdf: Path, stamp: tuple[int, int]) -> tuple[str, ...]:
    from pypdf import PdfReader

    return tuple(_words(page.extract_text() or "") for page in PdfReader(pdf).pages)


@functools.lru_cache(maxsize=4)
def _tops_to_bottoms(pdf: Path, stamp: tuple[int, int]) -> tuple[str, ...]:
    """Each page's :func:`_text_top_to_bottom`, without spaces."""
    from pypdf import PdfReader

    return tuple(_text_top_to_bottom(page).replace(" ", "") for page in PdfReader(pdf).pages)


def web_controls(texts: list[str]) -> list[str]:
    return [f"page {k}: {text[max(0, m.start() - 40):m.end() + 40]!r}" for k, text in enumerate(texts, start=1)
            for m in WEB_WORDS.finditer(text)]


def chapter_ends(texts: list[str], titles: list[str] | None = None) -> set[int]:
    """The pages (from 1) that end a chapter: the next page opens with one of the chapters' ``titles``, or it is the
    last."""
    bare = [re.sub(r"^(\[[^\]]+\] )*", "", text).replace(" ", "") for text in texts]  # less a bibliography's labels
    return {k for k in range(1, len(texts) + 1)
            if k == len(texts) or any(bare[k].startswith(t.replace(" ", "")) for t in titles or [])}


def short_pages(texts: list[str], titles: list[str] | None = None) -> list[str]:
    """Pages (the title page excepted) with less than ``LEAST`` characters, their footer's page number included; a page
    that ends a chapter (``chapter_ends``) is not one."""
    ends = chapter_ends(texts, titles)
    return [f"page {k}: {len(text)} characters: {text!r}" for k, text in enumerate(texts, start=1)
            if k > 1 and len(text) < LEAST and k not in ends]


def filled(pdf: Path) -> list[float]:
    """How far down each page its content reaches: from the top of the page to its lowest line of text above the
    footer, as a share of the height above the footer (a figure's caption stands below it, so a figure counts)."""
    return list(_filled(pdf, _stamp(pdf)))


@functools.lru_cache(maxsize=4)
def _filled(pdf: Path, stamp: tuple[int, int]) -> tuple[float, ...]:
    from pypdf import PdfReader

    shares = []
    for page in PdfReader(pdf).pages:
        lowest = min((y for y, _ in _lines(page)), default=None)
        top = float(page.mediabox.top)
        shares.append(0.0 if lowest is None else (top - lowest) / (top - FOOTER_PT))
    return tuple(shares)


def thin_pages(pdf: Path, titles: list[str]) -> list[str]:
    """Pages (the title page excepted) filled less than ``THIRD`` of their height (``filled``) that end no chapter."""
    ends = chapter_ends(page_texts(pdf), titles)
    return [f"page {k}: filled to {share:.0%} of its height" for k, share in enumerate(filled(pdf), start=1)
            if k > 1 and share < THIRD and k not in ends]


def chapter_titles(single_page: Path) -> list[str]:
    """The chapters' titles as the single-page build gives them (each chapter's first heading), in order."""
    import html

    whole = single_page.read_text()
    return [re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", title))).replace("#", "").strip()
            for title in re.findall(r'<span id="document-[^"]+"></span><section[^>]*>\s*<h\d[^>]*>(.*?)</h\d>', whole,
                                    re.S)]


def headings(single_page: Path) -> set[str]:
    """The headings the book can print, without spaces (a PDF's text breaks and joins words freely): every heading and
    fold title of the single-page build, and the appendix's "Evidence for" headings of the chapters."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(single_page.read_text(), "html.parser")
    found = {_words(h.get_text(" ")).rstrip("#").strip() for h in soup.select("h1, h2, h3, h4, h5, h6, summary")}
    found |= {f"Evidence for {h}" for h in found}
    return {h.replace(" ", "") for h in found if len(h) > 3}


def _lines(page) -> list[tuple[float, str]]:
    """A page's pieces of text above its footer, each with its height on the page (points from the foot)."""
    pieces = []

    def visit(text, cm, tm, font, size):
        if text.strip() and (y := cm[5] + tm[5] * cm[3]) > FOOTER_PT:
            pieces.append((y, text))

    page.extract_text(visitor_text=visit)
    return pieces


def _text_top_to_bottom(page) -> str:
    """A page's text in reading order from its top to its foot (figures' text included), without its footer."""
    return _words("".join(text for _, text in sorted(_lines(page), key=lambda p: -p[0])))


def orphaned_headings(pdf: Path, single_page: Path) -> list[str]:
    """Pages whose last text (lowest on the page, above the footer) is a heading of the book."""
    known = headings(single_page)
    problems = []
    for k, text in enumerate(_tops_to_bottoms(pdf, _stamp(pdf)), start=1):
        problems += [f"page {k} ends on the heading {h!r}" for h in known if text and text.endswith(h)]
    return problems


def captions_apart(pdf: Path, single_page: Path) -> list[str]:
    """Pages whose first text (from the top) is a figure's caption: the figure stands above its caption, so it was
    printed on the page before. Captions are known by their opening words in the single-page build."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(single_page.read_text(), "html.parser")
    openings = {_words(c.get_text(" "))[:30].replace(" ", "") for c in soup.select("figure > figcaption")
                if not c.find_parent("figure", class_="entropic-table")}
    problems = []
    for k, text in enumerate(_tops_to_bottoms(pdf, _stamp(pdf)), start=1):
        problems += [f"page {k} opens on the caption {text[:40]!r}" for o in openings if o and text.startswith(o)]
    return problems


def appendix_start(texts: list[str]) -> int:
    """The page (1-based) the evidence appendix starts on (the contents name it too: the first page after them)."""
    return next(k for k, text in enumerate(texts, start=1) if text.startswith(APPENDIX))


def links(pdf: Path) -> list[tuple[int, str]]:
    """Every link annotation of the PDF, as (page, target): ``#name`` for a link inside the PDF (a named or explicit
    destination), else its URI."""
    from pypdf import PdfReader

    out = []
    for k, page in enumerate(PdfReader(pdf).pages, start=1):
        for ref in page.get("/Annots") or []:
            annotation = ref.get_object()
            if annotation.get("/Subtype") != "/Link":
                continue
            action = annotation.get("/A")
            action = action.get_object() if action is not None else {}
            if "/URI" in action:
                out.append((k, str(action["/URI"])))
            elif "/Dest" in annotation or action.get("/S") == "/GoTo":
                dest = annotation.get("/Dest", action.get("/D"))
                out.append((k, "#" + (str(dest) if not isinstance(dest, list) else "page")))
    return out


def stray_links(pdf: Path, site: str | None) -> list[str]:
    """Links that lead nowhere a reader of the PDF can follow: to a file (``file:``) or a relative address, or to the
    book's own pages anywhere but the published ``site`` (None: a book with no site, whose links to its own pages
    must all stay inside the PDF)."""
    bad = []
    for page, target in links(pdf):
        if target.startswith("#"):
            continue
        if not target.startswith(("https://", "http://", "mailto:")):
            bad.append(f"page {page}: {target}")
        elif re.search(r"\.html(#|$)", target) and not (site and target.startswith(site)):
            bad.append(f"page {page}: {target} (a page of the book, not on its site)")
    return bad

