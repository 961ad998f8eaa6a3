"""The whole book as one PDF (publish/pdf.py, `make pdf`), printed from the tiny book: every chapter on
a page of its own, every table and figure number of the HTML book in its text, math typeset."""

import html
import re
import unicodedata

import pytest
import yaml

from entropic.publish import build as book
from entropic.publish import pdf

pytestmark = pytest.mark.integration
NUMBER = re.compile(r"(?:Table|Figure) R\d+\.\d+")


@pytest.fixture(scope="session")  # session: built once per process, however its tests interleave with others
def printed(tiny_book, tiny_html):
    """The tiny book's PDF (built after the HTML, which shares its doctrees) and its text, page by page."""
    from pypdf import PdfReader

    try:
        pdf.chromium()
    except RuntimeError as missing:
        pytest.fail(str(missing))
    path = pdf.build_pdf(root=tiny_book, log=lambda *_: None)
    return path, [page.extract_text() for page in PdfReader(path).pages]


def test_every_chapter_starts_a_page_of_its_own(printed, tiny_book):
    _, pages = printed
    whole = (tiny_book / "_build" / "singlehtml" / "whole-book.html").read_text()
    titles = [re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", title))).replace("#", "").strip()
              for title in re.findall(r'<span id="document-[^"]+"></span><section[^>]*>\s*<h\d[^>]*>(.*?)</h\d>',
                                      whole, re.S)]
    toc = yaml.safe_load((tiny_book / "_toc.yml").read_text())
    assert len(titles) == sum(len(part["chapters"]) for part in toc["parts"])
    openings = [re.sub(r"^(\[[^\]]+\] )*", "", " ".join(unicodedata.normalize("NFKC", text).split()))
                for text in pages]  # a page's text, less the labels a bibliography's text starts with
    bare = [opening.replace(" ", "") for opening in openings]  # a title wrapped at its hyphen reads "50- minute"
    for title in titles:
        assert any(opening.startswith(title.replace(" ", "")) for opening in bare), title
    assert len(titles) < len(pages) < 60 * len(titles)  # and nothing ran away (a table printed one cell a page)


def test_every_table_and_figure_number_of_the_html_book_is_in_the_pdf(printed, tiny_html):
    _, pages = printed
    html = {n for page in tiny_html.parent.rglob("*.html") if "_static" not in page.parts
            for n in NUMBER.findall(page.read_text())}
    assert len(html) >= 20 and any(n.startswith("Figure") for n in html) and any(n.startswith("Table") for n in html)
    text = "\n".join(pages)
    assert html <= set(NUMBER.findall(text)), sorted(html - set(NUMBER.findall(text)))


def test_the_pdf_opens_with_the_books_title_and_shows_typeset_math(printed, tiny_book):
    path, pages = printed
    assert path.read_bytes().startswith(b"%PDF")
    assert "Entropic Bound" in pages[0]
    assert not any("\\frac" in text or "$$" in text for text in pages)  # MathJax typeset every equation


def test_only_the_html_and_single_page_builders_exist():
    with pytest.raises(ValueError, match="builder"):
        book.build(builder="latex")
