"""The paper book and its PDF as a reader meets them, built from the committed results (``make check``; ``.ci/run``
runs them in ``make test``, ENTROPIC_PAPER_BOOK set), the PDF printed by ``make pdf`` as printed (conftest.readme_book):
every page at most ``reader.TALLEST`` px tall at 1280 px with its folds
closed, no code name in its prose, one verdict per claim across pages; the PDF a preprint (a title page with the
abstract, a contents page with page numbers, no page that holds only a caption, the main text before the
appendices at most ``MAIN_PAGES`` pages; no web control, the abstract once, no page under ``printed.LEAST``
characters but the title page, no heading at a page's foot, the evidence appendix at most half of it). Skipped
unless ``ENTROPIC_PAPER_BOOK`` is set: the paper book takes minutes to build, and ``make test`` builds the tiny
one."""

import functools
import http.server
import os
import re
import threading

import pytest

import printed as printed_book
import reader
import sentences
from entropic import paths
from entropic.publish import page, site
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


# What each test reads off every page of the served book at 1280 px wide: one walk for both (a page's folds closed to
# measure its height, then opened to measure its figures).
CHECKS_AT_1280 = {"height and prose": lambda page: reader.too_tall(page) + reader.code_in_prose(page),
                  "figures": reader.shrunk_figures}


@pytest.fixture(scope="module")
def at_1280(served) -> dict[str, list[str]]:
    """Each of ``CHECKS_AT_1280``'s findings on every page of the served book, each named by its page."""
    from playwright.sync_api import sync_playwright

    problems = {name: [] for name in CHECKS_AT_1280}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name in pages(HTML):
            page.goto(f"{served}/{name}", wait_until="load")
            page.wait_for_timeout(300)
            for check, read in CHECKS_AT_1280.items():
                problems[check] += [f"{name}: {found}" for found in read(page)]
        browser.close()
    return problems


def test_every_page_reads_in_minutes_with_no_code_name_in_its_prose(at_1280):
    assert not at_1280["height and prose"], "\n".join(at_1280["height and prose"])


def test_every_figure_is_shown_at_its_size_where_the_column_has_room(at_1280):
    assert not at_1280["figures"], "\n".join(at_1280["figures"])


def test_every_page_of_the_paper_book_gives_a_claim_one_verdict():
    said = reader.stated_verdicts(HTML)
    assert len(said) >= 40  # the paper's claims, read from the comparison tables, the ledger and the intro
    assert not reader.verdicts_contradicted(HTML)


def test_every_sentence_of_the_paper_book_agrees_with_its_tables():
    problems = (sentences.typed_results(HTML) + sentences.marks_contradicted(HTML)
                + sentences.abstract_contradicted(HTML) + sentences.configuration_contradicted(HTML)
                + sentences.grammar(HTML) + sentences.claims_unreferenced(HTML)
                + sentences.claim_references_contradicted(HTML))
    assert not problems, "\n".join(problems)


def _doctored(tmp_path, page: str, edit):
    """A copy of the built book's ``page`` (and the pages the checks read beside it), edited by ``edit``."""
    import shutil

    copy = tmp_path / "html"
    for name in {page, "build/sections/ledger.html", "build/sections/intro.html", "build/sections/real_corpora.html"}:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(HTML / name, copy / name)
    target = copy / page
    edited = edit(target.read_text())
    assert edited != target.read_text(), f"the doctoring of {page} changed nothing"
    target.write_text(edited)
    return copy


def _typed(paragraph: str):
    """An edit that adds ``paragraph`` to a page's article, typed by hand."""
    return lambda html: html.replace("</article>", f"<p>{paragraph}</p></article>", 1)


def _first_open_main_mark_failed(html: str) -> str:
    """App. B's readings table with the first ○ of its main row turned into ✗, as the layer ranges' once was."""
    row = re.search(r"<tr[^>]*>\s*<td[^>]*>\s*(?:<p>)?main(?:</p>)?\s*</td>.*?</tr>", html, re.S)
    return html[:row.start()] + row[0].replace("○", "✗", 1) + html[row.end():] if row else html


@pytest.mark.parametrize("page, edit, check, found", [
    ("build/sections/real_corpora.html", _typed("App. B's layer ranges are not reproduced on our data."),
     sentences.typed_results, "a verdict typed by hand"),
    ("build/sections/teaching.html", _typed("App. B finds text models' kernel ranks anti-correlated with corpus "
                                            "complexity (<a class='reference internal' href='real_corpora.html'>"
                                            "App. B</a>)."), sentences.typed_results, "anti-correlated"),
    ("build/sections/teaching.html", _typed("<strong>Take-away.</strong> Data reveal r* exactly for linear attention, "
                                            "only in part under softmax."), sentences.typed_results, "only in part"),
    ("build/sections/frontier.html", _typed("On the Table 4 softmax grid alone, 4 pre-training estimators of ours "
                                            "read r* exactly in every task: each exceeds the limit the paper stated "
                                            "there."), sentences.typed_results, "a result's direction"),
    ("build/sections/real_corpora.html", _typed("At width 256 layer 0 reads 25–31, not 13–19."),
     sentences.typed_results, "'25–31'"),
    ("build/sections/real_corpora.html", _typed("The predictor's coefficient of variation is 0.67."),
     sentences.typed_results, "'0.67'"),
    ("build/sections/text_rank.html", _typed("The sweep took 7.77 h of training."), sentences.typed_results,
     "'7.77 h'"),
    ("build/sections/intro.html", lambda html: re.sub(r"fail on our data \([^)]*\)",
                                                      "fail on our data, all on App. B's data side", html, count=1),
     sentences.abstract_contradicted, "one side"),
    ("build/sections/real_corpora.html", _first_open_main_mark_failed, sentences.marks_contradicted,
     "under the main reading"),
    # Table R6.2's paper values for the two parameters the paper does not state: the banner's count no longer holds
    ("build/sections/predictability.html", lambda html: html.replace("not stated", "50", 1),
     sentences.configuration_contradicted, "parameters, the table"),
    ("build/sections/text_rank.html", lambda html: re.sub(r"where it states them \(\d+ of \d+\)[^.]*", "", html,
                                                          count=1), sentences.configuration_contradicted,
     "calls every parameter the paper's"),
    ("build/sections/text_rank.html", _typed("These tables and the figures of this page reads 190 stored entries."),
     sentences.grammar, "a plural subject"),
    # results typed on the pages whose results are the data's: a rank on the sweep's page, a direction in the intro
    # with no pointer, a claim said as ours beside its correct reference, a comparison in a verb of its own
    ("build/sections/text_rank.html", _typed("The amended rule reads json at width 16."), sentences.typed_results,
     "a count or a rank typed by hand ('16')"),
    ("build/sections/intro.html", _typed("Attention-native rank tracks the teacher's rank."), sentences.typed_results,
     "a result's direction typed by hand ('tracks')"),
    ("build/sections/ablation.html", _typed("The paper states that on our spectra recovery fails "
                                            + page.claim_reference("ablation.flat", ["reproduced"]) + "."),
     sentences.typed_results, "a result's direction typed by hand ('fails')"),
    ("build/sections/surrogate.html", _typed("Our deficits agree with the paper's."), sentences.typed_results,
     "a result typed by hand in other words ('agree with')"),
    # the claim references of the real pages: a badge turned to another verdict, a claim said without its reference
    ("build/sections/ladder.html", lambda html: re.sub(r'(data-claim="ladder\.B1".*?class="[^"]*sd-badge[^"]*">)[^<]+',
                                                       r"\1not reproduced", html, count=1, flags=re.S),
     sentences.claim_references_contradicted, "the reference to 'ladder.B1' shows not reproduced"),
    ("build/sections/real_corpora.html", _typed("On our data the measured rank does not track corpus complexity."),
     sentences.claims_unreferenced, "negates a result"),
])
def test_the_sentence_check_fails_on_each_contradiction_reintroduced_into_a_real_page(tmp_path, page, edit, check,
                                                                                       found):
    problems = check(_doctored(tmp_path, page, edit))
    assert any(found in p for p in problems), problems


# The PDF's tests run in the process that prints the PDF (conftest.readme_book, under ENTROPIC_PAPER_BOOK: make pdf in
# this checkout) and runs the tests of it (tests/publish/test_pdf.py): that process reads its text once
# (printed.page_texts).
SAME_PDF = pytest.mark.xdist_group("readme book")


@pytest.fixture(scope="module")
def printed(readme_book) -> list[str]:
    """The pages' text of the PDF ``make pdf`` printed of the paper book (conftest.readme_book)."""
    status, said = readme_book.ran.get("make pdf", (None, "make pdf did not run"))
    assert status == 0 and readme_book.pdf == PDF, said
    return printed_book.page_texts(PDF)


@SAME_PDF
def test_the_pdf_opens_with_a_title_page_and_its_abstract_then_contents_with_page_numbers(printed):
    assert "The Entropic Bound for Transformers" in printed[0] and "executable reproduction" in printed[0]
    assert "Abstract" in printed[0] and "entropic" in printed[0]
    k, contents = next((k, text) for k, text in enumerate(printed[:3])
                       if text.startswith("Contents") or " Contents " in f" {text} ")
    contents = re.sub(rf"(^{k + 1}\s|\s{k + 1}$)", " ", contents)  # the page's own number, in its footer
    numbers = [int(n) for n in re.findall(r"\s(\d{1,3})(?=\s|$)", contents)]
    assert len(numbers) >= 10 and numbers == sorted(numbers) and numbers[-1] <= len(printed)


@SAME_PDF
def test_no_page_of_the_pdf_holds_only_a_caption_and_the_main_text_fits_sixty_pages(printed):
    alone = [k + 1 for k, text in enumerate(printed)
             if CAPTION.match(re.sub(r"^\d+\s", "", text)) and len(text.split()) < 80]
    assert not alone, f"pages holding only a caption: {alone}"
    appendix = next(k for k, text in enumerate(printed) if re.match(r"(\d+\. )?Reproducing and re-running", text))
    assert appendix <= MAIN_PAGES, f"the main text runs to page {appendix}"
    assert any(text.startswith("Appendix: the evidence") for text in printed)
    assert not any("Show code cell" in text or "Hide code cell" in text for text in printed)  # no web controls


@SAME_PDF
def test_the_pdf_is_a_document_the_abstract_once_no_web_control_no_nearly_empty_page_no_heading_at_a_foot(printed):
    assert not printed_book.web_controls(printed)
    abstract = re.search(r"Abstract\. (.{60})", printed[0])[1]  # its opening words, on the title page
    assert sum(text.count(abstract) for text in printed) == 1
    single_page = paths.ROOT / "_build" / "singlehtml" / "whole-book.html"
    assert not printed_book.short_pages(printed, printed_book.chapter_titles(single_page))
    assert not printed_book.thin_pages(PDF, printed_book.chapter_titles(single_page))  # none under a third full
    assert not printed_book.orphaned_headings(PDF, single_page)
    assert not printed_book.captions_apart(PDF, single_page)  # a figure's caption printed apart from it


@SAME_PDF
def test_every_link_of_the_paper_pdf_leads_inside_it_or_to_the_published_site(printed):
    found = printed_book.links(PDF)
    assert sum(target.startswith("#") for _, target in found) > 100  # verdict badges and claim references included
    assert not printed_book.stray_links(PDF, site.published_url())


@SAME_PDF
def test_the_evidence_appendix_holds_proofs_tables_and_figures_and_is_at_most_half_the_pdf(printed):
    start = printed_book.appendix_start(printed)
    assert len(printed) - start + 1 <= len(printed) / 2, f"the appendix runs from page {start} of {len(printed)}"
    appendix = " ".join(printed[start - 1:])
    assert "Proof." in appendix and "Table R" in appendix and "Figure R" in appendix
    whole = " ".join(printed)
    assert "Where the numbers of" not in whole and "Re-run this section" not in whole


def test_a_book_built_where_no_repository_is_named_names_no_repository_address():
    if site.repository_url() is not None:
        pytest.skip("this build names the repository it is published from")
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no paper book at {HTML}: run make book first (make check does)")
    found = [f"{path.relative_to(HTML)}: {m[0]}" for path in HTML.rglob("*")
             if path.suffix in (".html", ".ipynb") and not {"_static", "_downloads"} & set(path.parts)
             for m in re.finditer(r"https://github\.com/[\w.-]+/[\w.-]+|git\+https://[^\s\"']+", path.read_text())]
    assert not found, "\n".join(found[:20])
