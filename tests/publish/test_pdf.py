"""The whole book as one PDF (publish/pdf.py), as the README's `make pdf` prints it (conftest.readme_book: in the
tests' sandbox, every profile tiny, or of the paper book that make check built): every chapter on a page of its own,
every table and figure number of the HTML book (`make book`'s) in its text, math typeset; a document, not a web page
(``printed``): no web control, the abstract once, no nearly empty page, no heading at a page's foot, and an appendix of
the folds' proofs, tables and figures that is at most half of it."""

import re
import unicodedata

import pytest
import yaml

import printed
from entropic.publish import build as book

pytestmark = pytest.mark.integration
NUMBER = re.compile(r"(?:Table|Figure) R\d+\.\d+")


@pytest.fixture(scope="session")
def printed_book(readme_book):
    """The PDF ``make pdf`` printed and its text, page by page (``printed.page_texts``)."""
    status, said = readme_book.ran.get("make pdf", (None, "make pdf did not run: make book failed"))
    assert status == 0, said
    return readme_book.pdf, printed.page_texts(readme_book.pdf)


def test_every_chapter_starts_a_page_of_its_own(printed_book, readme_book):
    _, pages = printed_book
    titles = printed.chapter_titles(readme_book.single_page)
    toc = yaml.safe_load((readme_book.root / "_toc.yml").read_text())
    assert len(titles) == sum(len(part["chapters"]) for part in toc["parts"])
    openings = [re.sub(r"^(\[[^\]]+\] )*", "", " ".join(unicodedata.normalize("NFKC", text).split()))
                for text in pages]  # a page's text, less the labels a bibliography's text starts with
    bare = [opening.replace(" ", "") for opening in openings]  # a title wrapped at its hyphen reads "50- minute"
    for title in titles:
        assert any(opening.startswith(title.replace(" ", "")) for opening in bare), title
    assert len(titles) < len(pages) < 60 * len(titles)  # and nothing ran away (a table printed one cell a page)


def test_every_table_and_figure_number_of_the_html_book_is_in_the_pdf(printed_book, readme_book):
    _, pages = printed_book
    html = {n for page in readme_book.html.rglob("*.html") if "_static" not in page.parts
            for n in NUMBER.findall(page.read_text())}
    assert len(html) >= 20 and any(n.startswith("Figure") for n in html) and any(n.startswith("Table") for n in html)
    text = "\n".join(pages)
    assert html <= set(NUMBER.findall(text)), sorted(html - set(NUMBER.findall(text)))


def test_the_pdf_opens_with_the_books_title_and_shows_typeset_math(printed_book):
    path, pages = printed_book
    assert path.read_bytes().startswith(b"%PDF")
    assert "Entropic Bound" in pages[0]
    assert not any("\\frac" in text or "$$" in text for text in pages)  # MathJax typeset every equation


def test_only_the_html_and_single_page_builders_exist():
    with pytest.raises(ValueError, match="builder"):
        book.build(builder="latex")


def test_the_pdf_prints_no_web_control_and_the_abstract_once(printed_book):
    pages = printed_book[1]
    assert not printed.web_controls(pages)
    abstract = re.search(r"Abstract\. (.{60})", pages[0])[1]  # its opening words, on the title page
    assert sum(text.count(abstract) for text in pages) == 1


def test_no_page_is_nearly_empty_no_heading_ends_a_page_and_no_caption_opens_one(printed_book, readme_book):
    path, pages = printed_book
    single_page = readme_book.single_page
    assert not printed.short_pages(pages, printed.chapter_titles(single_page))
    assert not printed.orphaned_headings(path, single_page)
    assert not printed.captions_apart(path, single_page)


def test_the_appendix_prints_proofs_tables_and_figures_not_every_fold_and_is_at_most_half_the_book(printed_book):
    pages = printed_book[1]
    start = printed.appendix_start(pages)
    assert len(pages) - start + 1 <= len(pages) / 2
    appendix = " ".join(pages[start - 1:])
    assert "Proof." in appendix and "Table R" in appendix and "Figure R" in appendix
    whole = " ".join(pages)  # provenance and re-run commands stay on the web pages
    assert "Where the numbers of" not in whole and "Re-run this section" not in whole


def test_every_link_of_the_pdf_leads_inside_it_or_to_the_published_site(printed_book):
    from entropic.publish import site

    found = printed.links(printed_book[0])
    inside = [target for _, target in found if target.startswith("#")]
    assert len(inside) > 10, found[:20]  # the contents, the references to numbered tables and figures, the ledger's
    assert not printed.stray_links(printed_book[0], site.published_url()), printed.stray_links(printed_book[0], None)


def test_the_link_check_flags_a_file_of_the_printing_machine_a_relative_address_and_a_page_off_the_site(tmp_path):
    from pypdf import PdfWriter
    from pypdf.annotations import Link

    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    for k, url in enumerate(["file:///home/me/_build/singlehtml/ledger.html#row", "ledger.html#row",
                             "https://elsewhere.example/build/sections/ledger.html", "https://arxiv.org/abs/2607.23050",
                             "https://me.github.io/book/build/sections/ledger.html#row"]):
        writer.add_annotation(0, Link(rect=(10, 10 + 20 * k, 50, 25 + 20 * k), url=url))
    path = tmp_path / "links.pdf"
    writer.write(path)
    assert [target for _, target in printed.links(path)][:2] == ["file:///home/me/_build/singlehtml/ledger.html#row",
                                                                "ledger.html#row"]
    stray = printed.stray_links(path, "https://me.github.io/book/")
    assert len(stray) == 3 and "elsewhere.example" in stray[2]
    assert len(printed.stray_links(path, None)) == 4  # without a site, a link to a page of the book is stray too


def test_the_printed_teaching_chapter_holds_the_whole_class_before_the_appendix(printed_book):
    """A teacher who prints the teaching chapter gets the plan, the exercises with their solutions, the key formulas
    and the discussion questions, in the chapter itself, and none of the web book's download links."""
    pages = printed_book[1]
    start = printed.appendix_start(pages)
    chapter = " ".join(text for text in pages[:start - 1])
    for said in ("The path of the class", "Key formulas", "Questions for the discussion", "What it shows",
                 "What remains open"):
        assert said in chapter, said
    assert chapter.count("What it shows") >= 6  # the exercises' solutions, printed in place
    assert "Details Key formulas" not in chapter and "Details Questions" not in chapter  # a fold: its title alone
    assert "Download the slides" not in " ".join(pages)
