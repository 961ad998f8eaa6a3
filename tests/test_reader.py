"""The reader's checks (tests/reader.py) fail on a doctored page that has each defect, and pass on the same page
without them: a browser check that cannot fail is no check."""

from pathlib import Path

import pytest

import reader
from test_browser import FLAGS, chromium

pytestmark = pytest.mark.integration

SVG = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 432 288" width="432pt" height="288pt">
<text style="font-size: {size}px">measured rank</text></svg>"""


def page_html(defective: bool) -> str:
    """A book page whose table, image, formula and text each carry one defect when ``defective``."""
    caption = "<caption>Table 1: our numbers beside the paper's</caption>"
    wide = " style='min-width: 900px'" if defective else ""
    table = (f"<figure class='entropic-table'>{'' if defective else '<figcaption>Table 1: ours</figcaption>'}"
             f"<div style='overflow-x: auto; max-width: 380px'><table{wide}>{caption if defective else ''}"
             f"<tr><th>{'kernel_rank' if defective else 'kernel rank'}</th><th>holds</th></tr>"
             f"<tr><td>4</td><td>{'False' if defective else '✗'}</td></tr></table></div></figure>")
    image = f"<img src='fig.svg' alt='{'fig.svg' if defective else 'the measured rank against r*'}' width='352'>"
    formula = ("<span class='math' style='display: inline-block; width: 40px; overflow: hidden'>"
               f"<mjx-math style='display: inline-block; width: {200 if defective else 30}px'>x</mjx-math></span>")
    log = "<p>[entropic] surrogate: 5 stale job(s) kept</p>" if defective else "<p>Stale results are flagged.</p>"
    return f"<html><body><article class='bd-article'>{table}{image}<p>{formula}</p>{log}</article></body></html>"


@pytest.mark.parametrize("defective", [True, False])
def test_each_check_finds_its_defect_on_a_doctored_page_and_nothing_on_a_clean_one(tmp_path, defective):
    from playwright.sync_api import sync_playwright

    (tmp_path / "page.html").write_text(page_html(defective))
    (tmp_path / "fig.svg").write_text(SVG.format(size=6 if defective else 16))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = browser.new_page(viewport={"width": 400, "height": 900})
        page.goto((tmp_path / "page.html").as_uri())
        found = reader.checks(page, Path("/"))
        browser.close()
    if not defective:
        assert found == []
        return
    expected = ["caption scrolls sideways with its table", "a table cell reads 'False'",
                "a column header is a code name: 'kernel_rank'", "an image's alt text is a path ('fig.svg')",
                "math clipped: 160 px cut off", "figure text below 9 px", "a runner log line in the page"]
    for words in expected:
        assert any(words in line for line in found), (words, found)
    assert len(found) == len(expected), found


def test_a_count_the_intro_quotes_is_checked_against_the_page_that_holds_it(tmp_path):
    pages = tmp_path / "build" / "sections"
    pages.mkdir(parents=True)
    (tmp_path / "book").mkdir()
    proof = "<div class='proof theorem'>…</div>"

    def write(intro_says: str, criteria_at: str) -> list[str]:
        (pages / "intro.html").write_text(f"<article>The theory page proves {intro_says}.</article>")
        (pages / "theory.html").write_text(f"<article>{proof * 4}</article>")
        (pages / "ledger.html").write_text("<table><caption>Claims by section</caption></table>"
                                           "<table><caption>The criterion of each kind</caption></table>")
        (tmp_path / "book" / "reproducing.html").write_text(
            f"<article>The criteria of every verdict are at the {criteria_at} of the claims ledger.</article>")
        return reader.counts_contradicted(tmp_path)

    assert write("4 theorems", "end") == []
    assert write("8 theorems", "head") == [
        "the intro says 8 theorem(s), the theory page has 4",
        "the reproducing page puts the criteria at the head of the ledger, whose first table is: Claims by section"]


def _ledger_row(says: str, verdict: str) -> str:
    return (f"<tr><td><span class='sd-badge'>{verdict}</span></td><td>a quantity</td><td>{says}</td><td>1</td></tr>")


def _verdict_table(*rows: str) -> str:
    return ("<table><thead><tr><th>verdict</th><th>quantity</th><th>paper says</th><th>ours</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def test_a_claim_given_two_verdicts_on_two_pages_is_found_and_one_verdict_everywhere_passes(tmp_path):
    claim = "saturates (17–23) (§6, Table 4)"
    (tmp_path / "ledger.html").write_text(f"<article>{_verdict_table(_ledger_row(claim, 'claim holds, value differs'))}"
                                          "</article>")
    (tmp_path / "intro.html").write_text("<article><li>§6 Table 4: \"saturates (17–23)\" (§6, Table 4), claim holds, "
                                         "value differs (Table R6.1)</li></article>")
    assert reader.verdicts_contradicted(tmp_path) == []
    (tmp_path / "predictability.html").write_text(
        f"<article>{_verdict_table(_ledger_row(claim, 'not reproduced'))}</article>")
    found = reader.verdicts_contradicted(tmp_path)
    assert len(found) == 1 and "saturates" in found[0] and "not reproduced on predictability.html" in found[0]


@pytest.mark.parametrize("defective", [True, False])
def test_a_page_too_tall_with_its_folds_closed_and_a_code_name_in_its_prose_are_found(tmp_path, defective):
    from playwright.sync_api import sync_playwright

    fold = "<details><summary>The evidence</summary><div style='height: 20000px'>tables</div></details>"
    body = (("<div style='height: 9000px'>a long page</div><p>the linear_qk teacher</p>" if defective else
             "<p>the linear teacher, and <code>r_star</code> typed as code</p>") + fold)
    (tmp_path / "page.html").write_text(f"<html><body><article class='bd-article'>{body}</article></body></html>")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((tmp_path / "page.html").as_uri())
        found = reader.too_tall(page) + reader.code_in_prose(page)
        browser.close()
    if defective:
        assert len(found) == 2 and "px tall" in found[0] and "'linear_qk'" in found[1], found
    else:
        assert found == []
