"""App. B's tables in words: no code name as a header or a row label (sections/real_corpora/words.py)."""

import re

import pandas as pd

from entropic.sections.real_corpora import words
from entropic.sections.real_corpora.readings import ALTERNATIVES, FAILS, HOLDS, MEASURES, OPEN

CODE = re.compile(r"(^|[\s(])[a-z][a-z0-9]*_[a-z0-9_]+")


def test_every_measure_predictor_and_reading_has_words():
    names = [*MEASURES, *words.NAMES, *(f"{group}: {choice}" for group, cs in ALTERNATIVES.items() for choice in cs)]
    assert not [n for n in names if CODE.search(words.reading_words(str(n)))]


def test_the_specification_table_splits_into_a_summary_of_marks_and_two_halves_in_words():
    spec = pd.DataFrame({"flips on": ["budget, width", "the same under every reading", "predictor"],
                         "main": [HOLDS, FAILS, OPEN], "budget: 1.536M at 10%": [FAILS, FAILS, OPEN],
                         "full_rank: R_eff ≥ 0.9 T": [HOLDS, None, FAILS]},
                        index=pd.Index(["layers", "ridge", "pearson"], name="claim"))
    summary, halves = words.specification_tables(spec)
    assert list(summary.index) == [words.CLAIMS[k] for k in ("layers", "ridge", "pearson")]
    assert "main reading" not in summary.columns  # the main reading's mark is the main table's verdict: not repeated
    assert list(summary["readings"]) == [3, 2, 3]
    assert list(summary["✓ holds"]) == [2, 0, 0] and list(summary["✗ fails"]) == [1, 2, 1]
    assert list(summary["○ not decided"]) == [0, 0, 2]
    assert list(summary["the mark changes with"]) == ["budget and width", "the same under every reading", "predictor"]
    assert [len(h.columns) for h in halves] == [2, 1] and "meaning of 'full rank': R_eff ≥ 0.9 T" in halves[0].index
    assert not any(CODE.search(str(c)) for h in halves for c in [*h.columns, *h.index])
    first, second = (words.part_caption(h) for h in halves)  # each half captioned by its own claims
    assert first != second and words.CLAIMS["layers"] in first and words.CLAIMS["pearson"] in second


def test_the_long_run_table_writes_tokens_and_changes_as_the_prose_does():
    frame = pd.DataFrame([{"layer": 0, "paper says": "R_eff ≈ 13–19", "tokens": 61_440_000, "ours": 19.93,
                           "change over the last doubling": -0.0577, "outcome": "undecided: still moving"}])
    shown = words.long_run_table(frame)
    assert shown.loc[0, "tokens"] == "61.44M" and shown.loc[0, "change over the last doubling"] == "−5.77 %"
    assert words.long_run_table(frame.iloc[:0]).empty


def test_budgets_are_named_as_the_page_names_them():
    frame = pd.DataFrame({"budget": [1536000, 15360000], "x": [1, 2]})
    assert list(words.with_budgets(frame)["budget"]) == ["1.536M", "15.36M"]
    indexed = pd.DataFrame({"x": [1]}, index=pd.Index([1536000], name="budget"))
    assert list(words.with_budgets(indexed).index) == ["1.536M"]
