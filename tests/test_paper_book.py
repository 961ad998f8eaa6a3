"""The paper book and its PDF as a reader meets them, built from the committed results (``make check``, which
``.ci/run`` runs after ``make test``): every page at most ``reader.TALLEST`` px tall at 1280 px with its folds
closed, no code name in its prose, one verdict per claim across pages; the PDF a preprint (a title page with the
abstract, a contents page with page numbers, no page that holds only a caption, the main text before the
appendices at most ``MAIN_PAGES`` pages). Skipped unless ``ENTROPIC_PAPER_BOOK`` is set: the paper book takes
minutes to build, and ``make test`` builds the tiny one."""

import functools
import http.server
import os
import re
import threading
import unicodedata

import pytest

import reader
from entropic import paths
from entropic.publish import site
from test_browser import FLAGS, chromium, pages

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not os.environ.get("ENTROPIC_PAPER_BOOK"),
                                 reason="make check builds the paper book and runs these (ENTROPIC_PAPER_BOOK=1)")]
HTML = paths.ROOT / "_build" / "html"
PDF = paths.ROOT / "_build" / "pdf" / site.PDF_NAME
MAIN_PAGES = 60
CAPTION = re.compile(r"^(Table|Figure) R\d+(\.\d+)*\b")


@pytest.fixture(scope="module")
def served():
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no paper book at {HTML}: run make book first (make check does)")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(HTML)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_every_page_reads_in_minutes_with_no_code_name_in_its_prose(served):
    from playwright.sync_api import sync_playwright

    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name in pages(HTML):
            page.goto(f"{served}/{name}", wait_until="load")
            page.wait_for_timeout(300)
            problems += [f"{name}: {found}" for found in reader.too_tall(page) + reader.code_in_prose(page)]
        browser.close()
    assert not problems, "\n".join(problems)


def test_every_page_of_the_paper_book_gives_a_claim_one_verdict():
    said = reader.stated_verdicts(HTML)
    assert len(said) >= 40  # the paper's claims, read from the comparison tables, the ledger and the intro
    assert not reader.verdicts_contradicted(HTML)


@pytest.fixture(scope="module")
def printed() -> list[str]:
    from pypdf import PdfReader

    if not PDF.is_file():
        pytest.fail(f"no PDF at {PDF}: run make pdf first (make check does)")
    return [" ".join(unicodedata.normalize("NFKC", page.extract_text() or "").split()) for page in PdfReader(PDF).pages]


def test_the_pdf_opens_with_a_title_page_and_its_abstract_then_contents_with_page_numbers(printed):
    assert "The Entropic Bound for Transformers" in printed[0] and "executable reproduction" in printed[0]
    assert "Abstract" in printed[0] and "entropic" in printed[0]
    k, contents = next((k, text) for k, text in enumerate(printed[:3])
                       if text.startswith("Contents") or " Contents " in f" {text} ")
    contents = re.sub(rf"(^{k + 1}\s|\s{k + 1}$)", " ", contents)  # the page's own number, in its footer
    numbers = [int(n) for n in re.findall(r"\s(\d{1,3})(?=\s|$)", contents)]
    assert len(numbers) >= 10 and numbers == sorted(numbers) and numbers[-1] <= len(printed)


def test_no_page_of_the_pdf_holds_only_a_caption_and_the_main_text_fits_sixty_pages(printed):
    alone = [k + 1 for k, text in enumerate(printed)
             if CAPTION.match(re.sub(r"^\d+\s", "", text)) and len(text.split()) < 80]
    assert not alone, f"pages holding only a caption: {alone}"
    appendix = next(k for k, text in enumerate(printed) if re.match(r"(\d+\. )?Reproducing and re-running", text))
    assert appendix <= MAIN_PAGES, f"the main text runs to page {appendix}"
    assert any(text.startswith("Appendix: the evidence") for text in printed)
    assert not any("Show code cell" in text or "Hide code cell" in text for text in printed)  # no web controls
