"""The book's sources (``book/references.bib``, listed on ``book/bibliography.md``, which lists the entries the text
cites): every entry is cited where the book uses it, every work the bibliography page promises is an entry the text
cites, and the paper's entry says that it names no authors."""

import re

from entropic import paths

BIB = (paths.BOOK_SOURCES / "references.bib").read_text()
PAGE = (paths.BOOK_SOURCES / "bibliography.md").read_text()
CITE = re.compile(r"\{cite(?::[pt])?\}`([^`]+)`")
# What the bibliography page's opening promises, and a word of the entry that holds it
PROMISED = {"Eckart–Young–Mirsky theorem": "Eckart", "implicit bias of gradient descent": "Gunasekar",
            "Marchenko–Pastur law": "Marchenko", "effective rank": "Vetterli", "singular-value threshold": "Gavish"}


def entries() -> dict[str, str]:
    """Each entry of the .bib file, by key: its text."""
    return {m[1]: m[0] for m in re.finditer(r"@\w+\{(\w+),.*?\n\}", BIB, re.S)}


def cited() -> set[str]:
    """The keys the book's pages cite (the notebooks and the prose pages)."""
    sources = [*paths.ROOT.glob("notebooks/*.md"), *paths.BOOK_SOURCES.glob("*.md")]
    return {key.strip() for path in sources for m in CITE.finditer(path.read_text()) for key in m[1].split(",")}


def test_every_source_is_cited_where_the_book_uses_it():
    assert len(entries()) >= 7
    assert set(entries()) - cited() == set()
    assert cited() - set(entries()) == set()


def test_every_work_the_bibliography_promises_is_an_entry_the_text_cites():
    opening = " ".join(PAGE.split("```{bibliography}")[0].split())
    for work, author in PROMISED.items():
        assert work in opening, work
        keys = [key for key, text in entries().items() if author in text]
        assert keys and set(keys) & cited(), work


def test_the_papers_entry_names_no_author_and_says_so():
    paper = entries()["entropic_bound"]
    assert not re.search(r"^\s*author\s*=", paper, re.M)
    assert re.search(r"note\s*=\s*\{[^}]*names no authors", paper)
