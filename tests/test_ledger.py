"""The claims ledger is built from the sections' claims and comparison tables, never typed."""

import pytest

from entropic import sections
from entropic.pipeline import book, ledger, runner, verdicts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def claims():
    for name in book.toc_sections():  # the tiny results every section's page would read
        runner.run(name, "tiny", progress=False)
    return ledger.frame("tiny")


def test_every_decided_claim_is_a_row_of_its_sections_table_with_the_same_verdict(claims):
    for name in book.toc_sections():
        table = sections.module(name).compare(runner.run(name, "tiny", compute=False, progress=False))
        decided = claims[(claims["section"] == name) & (claims["verdict"] != verdicts.NOT_CHECKED)]
        assert list(decided["quantity"]) == list(table.index)
        assert list(decided["verdict"]) == list(table["verdict"])
        assert set(decided["table"]) <= {sections.module(name).TABLE}


def test_claims_no_table_decides_are_listed_as_not_checked_with_why(claims):
    for name in book.toc_sections():
        module = sections.module(name)
        listed = set(zip(claims.loc[claims["section"] == name, "paper says"],
                         claims.loc[claims["section"] == name, "where"], strict=True))
        assert {(c.says, c.where) for c in module.CLAIMS.values()} <= listed  # none omitted
    unchecked = claims[claims["verdict"] == verdicts.NOT_CHECKED]
    assert unchecked["quantity"].str.startswith("not checked: ").all()


def test_the_summary_counts_match_the_rows(claims):
    counts = ledger.summary(claims)
    assert counts.loc["total", "claims"] == len(claims)
    for name, row in counts.drop(index="total").iterrows():
        own = claims[claims["section"] == name]
        assert row["claims"] == len(own)
        assert all(row[v] == (own["verdict"] == v).sum() for v in verdicts.VERDICTS)
    sentence = ledger.summary_sentence(claims)
    assert f"Of **{len(claims)}** verdicts on the paper's quantitative claims" in sentence
    beyond = claims["section"].map(book.toc_parts()).eq(ledger.BEYOND).sum()
    assert (f"({beyond} of them on the part beyond the paper" in sentence) == bool(beyond)
