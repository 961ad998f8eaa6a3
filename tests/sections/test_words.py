"""App. B's tables in words: no code name as a header or a row label (sections/real_corpora/words.py)."""

import re

import pandas as pd

from entropic.sections.real_corpora import words
from entropic.sections.real_corpora.readings import ALTERNATIVES, MEASURES

CODE = re.compile(r"(^|[\s(])[a-z][a-z0-9]*_[a-z0-9_]+")


def test_every_measure_predictor_and_reading_has_words():
    names = [*MEASURES, *words.NAMES, *(f"{group}: {choice}" for group, cs in ALTERNATIVES.items() for choice in cs)]
    assert not [n for n in names if CODE.search(words.reading_words(str(n)))]


def test_the_specification_table_splits_into_a_summary_and_two_halves_in_words():
    spec = pd.DataFrame({"flips on": ["budget, width", "fails under every reading"], "main": [True, False],
                         "budget: 1.536M at 10%": [False, False], "full_rank: R_eff ≥ 0.9 T": [True, None]},
                        index=pd.Index(["layers", "ridge"], name="claim"))
    summary, halves = words.specification_tables(spec)
    assert list(summary.index) == [words.CLAIMS["layers"], words.CLAIMS["ridge"]]
    assert list(summary["holds under"]) == ["2 of 3 readings", "0 of 2 readings"]
    assert [len(h.columns) for h in halves] == [1, 1] and "full rank: R_eff ≥ 0.9 T" in halves[0].index
    assert not any(CODE.search(str(c)) for h in halves for c in [*h.columns, *h.index])


def test_budgets_are_named_as_the_page_names_them():
    frame = pd.DataFrame({"budget": [1536000, 15360000], "x": [1, 2]})
    assert list(words.with_budgets(frame)["budget"]) == ["1.536M", "15.36M"]
    indexed = pd.DataFrame({"x": [1]}, index=pd.Index([1536000], name="budget"))
    assert list(words.with_budgets(indexed).index) == ["1.536M"]
