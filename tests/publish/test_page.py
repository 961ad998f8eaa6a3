"""What a page shows: MyST tables with numbers, captions and labels; admonitions for what a reader must know."""

import math
import re

import numpy as np
import pandas as pd

from entropic import paths
from entropic.jobs import config, runner, store
from entropic.publish import page
from entropic.report import verdicts
from entropic.report.verdicts import Claim
from entropic.sections import surrogate


def test_cells_read_as_numbers_marks_and_dashes_never_nan_or_python_booleans():
    assert page.cell(True) == "✓" and page.cell(np.bool_(False)) == "✗"
    assert page.cell(float("nan")) == page.DASH and page.cell(None) == page.DASH
    assert page.cell(28.5123) == "28.5" and page.cell(3) == "3" and page.cell(0.0) == "0"
    assert page.cell(5.2e-4) == "5.20×10⁻⁴" and page.cell(-0.0) == "0"
    assert page.cell("a|b") == "a\\|b"



def test_a_glued_number_writes_the_digits_asked_for_and_keeps_its_exact_value():
    assert page.Number(1.118033988749895)._repr_markdown_() == "1.12"
    assert page.Number(1.118033988749895, 4)._repr_markdown_() == "1.118"
    assert repr(page.Number(1.118033988749895, 4)) == "1.118033988749895"  # what a test reads back


def test_a_star_after_a_letter_never_becomes_emphasis_and_long_calls_may_break():
    assert page.cell("at r = r*−1 … before r*)") == "at r = r\\*−1 … before r\\*)"
    assert page.cell("**bold** K* and V*") == "**bold** K\\* and V\\*"
    assert page.cell("Spearman(predicted, measured)") == "Spearman(<wbr>predicted, measured)"
    table = page.table_markdown(pd.DataFrame({"x": [math.nan]}), "Seed means at r*.", "tbl-x",
                                missing="no student of rank r*−1 exists when r* = 1")
    assert "Seed means at r\\*." in table and "rank r\\*−1 exists when r\\* = 1" in table


def test_a_claim_whose_sign_is_not_significant_reads_open_never_a_check_mark():
    assert page.claim_mark(True, verdicts.NOT_SIGNIFICANT) == page.OPEN == page.claim_mark(False, verdicts.UNDECIDED)
    assert page.claim_mark(False, verdicts.UNDEFINED) == page.DASH
    assert page.claim_mark(True, verdicts.REPRODUCED) == "✓" and page.claim_mark(False, verdicts.NOT_REPRODUCED) == "✗"
    rows = [verdicts.row("r(loss, rank)", -0.0056, Claim("r = −0.79", -0.79, "B.3"), "sign", True, p_value=0.993,
                         estimator="trained models, measured")]
    text = page.comparison_markdown(verdicts.table(rows), "Cap.", "tbl-s")
    assert "| −0.0056 (p = 0.993) | ○ |" in text and "| ✓ |" not in text


def test_a_bound_or_a_range_agrees_only_at_the_papers_rounding_whatever_our_seeds_spread():
    claim = Claim("≤ 0.003", 0.003, "§6")
    assert verdicts.value_check(0.00499, claim, se=0.0012, upper_bound=True) == (False, "≤ 0.003 (its rounding)")
    assert verdicts.value_check(0.0034, claim, se=0.0012, upper_bound=True)[0]  # 0.003 stands for up to 0.0035
    ranged = Claim("saturates (17–23)", None, "§6", range=(17, 23))
    assert verdicts.value_check(20.0, ranged, spread=(17.2, 23.4)) == (True, "within 17–23")
    assert verdicts.value_check(32.0, ranged, spread=(32, 32))[0] is False


def test_a_wide_table_is_shown_in_numbered_parts_each_with_its_index(monkeypatch):
    shown = []
    monkeypatch.setattr(page, "show_table", lambda frame, caption, name, **kw: shown.append((list(frame), name)))
    frame = pd.DataFrame({c: [1.0] for c in "abcde"}, index=pd.Index(["x"], name="row"))
    page.show_parts(frame, "Wide", "tbl-w")
    assert shown == [(["a", "b", "c"], "tbl-w"), (["d", "e"], "tbl-w-2")]


def test_a_table_is_numbered_captioned_and_explains_its_dashes():
    frame = pd.DataFrame({"x": [1.0, math.nan], "holds": [True, False]}, index=pd.Index(["a", "b"], name="row"))
    text = page.table_markdown(frame, "A caption.", "tbl-test", missing="b has no x")
    assert text.startswith("```{table} A caption.\n:name: tbl-test\n")
    assert "| row | x | holds |" in text and "| a | 1 | ✓ |" in text and "| b | — | ✗ |" in text
    assert "—: b has no x." in text and "nan" not in text.lower().replace("name", "")
    assert page.table_markdown(frame.iloc[:0], "Nothing.", "tbl-empty") == "*Nothing.* No rows at this profile.\n"


def test_the_comparison_puts_the_verdict_first_and_shows_each_values_tolerance():
    rows = [verdicts.row("excess at r = 1", 37.8, Claim("28.5", 28.5, "§4, Table 1"), "deficiency", True, se=0.5,
                         estimator="training"),
            verdicts.row("max |excess|", 1e-3, Claim("≈ 0", None, "§6"), "achievability", True, estimator="training")]
    text = page.comparison_markdown(verdicts.table(rows), "Cap.", "tbl-c")
    header = next(line for line in text.splitlines() if line.startswith("| verdict"))
    assert header.split("|")[1].strip() == "verdict"
    assert "{bdg-warning}`claim holds, value differs`" in text and "{bdg-success}`reproduced`" in text
    assert "✗ ±1.4" in text  # 2√2 × 0.5, the tolerance beside the agreement
    assert verdicts.CRITERIA["deficiency"] in text and verdicts.VALUE_RULE not in text  # the rule, stated once…
    assert "{ref}`value rule <value-rule>`" in text  # …is linked


def test_the_value_rule_is_stated_once_in_the_reproducing_chapter_as_the_code_states_it():
    chapter = " ".join((paths.BOOK_SOURCES / "reproducing.md").read_text().split())
    assert "(value-rule)=" in chapter and verdicts.VALUE_RULE in chapter
    pages = [" ".join(p.read_text().split()) for p in (paths.ROOT / "notebooks").glob("*.md")]
    assert not any(verdicts.VALUE_RULE[:60] in page for page in pages)


def _results(**problems):
    cfg = config.resolve(surrogate.Config, "surrogate", "tiny")
    entry = store.Entry("seed0-sweep-abc", {}, "k1", {}, {"device": "CPU (x86_64)"})
    fields = {"stale": [], "missing": [], "corrupt": []} | problems
    return runner.Results("surrogate", "paper", {}, "paper", cfg, {"sweep": "k2"}, {}, [entry], **fields)


def test_the_banner_names_the_profile_and_turns_every_problem_into_an_admonition():
    clean = page.banner_markdown(_results())
    assert "**Shown: profile `paper`.**" in clean and "Computed on: CPU (x86_64)" in clean and "```{" not in clean
    assert clean.startswith("::::{container} web-only\n") and clean.endswith("\n::::")  # the PDF leaves it out
    missing = page.banner_markdown(_results(missing=["a", "b"]))
    assert "```{warning}\n**Partial results:** 2 of 3 jobs" in missing
    assert "python -m entropic run surrogate --profile paper --no-book" in missing
    stale = page.banner_markdown(_results(stale=["seed0-sweep-abc"]))
    assert "```{warning}\n**Stale results:**" in stale and "--refresh" in stale
    corrupt = page.banner_markdown(_results(corrupt=[("x", "x.json fails its checksum")], missing=["x"]))
    assert "**Unreadable results:** the stored entries of 1 of 2 jobs are corrupt" in corrupt
    assert "x.json fails its checksum" in corrupt and "--force" not in corrupt
    assert "Partial results" not in corrupt and "not computed yet" not in corrupt  # corrupt, not missing
    both = page.banner_markdown(_results(corrupt=[("x", "x.json fails its checksum")], missing=["x", "y"]))
    assert "**Partial results:** 1 of 3 jobs" in both and "**Unreadable results:**" in both
    shown_instead = page.banner_markdown(_results(), requested="larger")
    assert "```{note}\nThis book is built at the `larger` profile" in shown_instead


def test_the_configuration_sits_in_a_dropdown_and_counts_what_differs():
    text = page.configuration_markdown(_results(), "tbl-cfg")
    assert text.startswith("::::{dropdown} All ") and ":name: tbl-cfg" in text
    assert re.search(r"\((none differs|1 differs|[02-9]\d* differ)\)", text)
    assert "| False |" not in text and "| True |" not in text and "| None |" not in text
