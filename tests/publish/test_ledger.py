"""The claims ledger is built from the sections' claims and comparison tables, never typed."""

import pandas as pd
import pytest

from entropic import registry
from entropic.jobs import runner
from entropic.publish import build as book
from entropic.publish import ledger
from entropic.report import verdicts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")  # session: built once per process, however its tests interleave with others
def claims():
    for name in book.toc_sections():  # the tiny results every section's page would read
        runner.run(name, "tiny", progress=False)
    return ledger.frame("tiny")


def test_every_decided_claim_is_a_row_of_its_sections_table_with_the_same_verdict(claims):
    for name in book.toc_sections():
        if not registry.module(name).CLAIMS:  # a section judging hypotheses of its own has no row in the ledger
            assert claims[claims["section"] == name].empty
            continue
        table = registry.module(name).compare(runner.run(name, "tiny", compute=False, progress=False))
        decided = claims[(claims["section"] == name) & (claims["verdict"] != verdicts.NOT_CHECKED)]
        assert list(decided["quantity"]) == list(table.index)
        assert list(decided["verdict"]) == list(table["verdict"])
        assert set(decided["table"]) <= {registry.module(name).TABLE}


def test_claims_no_table_decides_are_listed_as_not_checked_with_why(claims):
    for name in book.toc_sections():
        module = registry.module(name)
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


def test_every_decided_row_names_the_kind_of_its_estimator_and_the_sentence_counts_them(claims):
    decided = claims[claims["verdict"] != verdicts.NOT_CHECKED]
    assert decided["estimator"].notna().all() and (decided["estimator"] != "").all()
    for kind in decided["estimator"]:
        verdicts.estimator_kinds(kind)  # every kind is a known one
    table = ledger.by_estimator(claims)
    for kind, group in decided.groupby("estimator"):
        assert table.loc[kind, "claims"] == len(group)
        assert all(table.loc[kind].get(v, 0) == (group["verdict"] == v).sum() for v in verdicts.VERDICTS)


def _doctored(rows):
    base = {"title": "T", "where": "§x", "paper value": None, "ours": 1.0, "kind": "range", "criterion": "c",
            "claim holds": False, "value agrees": None, "note": "", "undecided": "", "profile": "paper"}
    return pd.DataFrame([{**base, **row} for row in rows], columns=ledger.COLUMNS)


def test_the_findings_list_is_regenerated_from_the_ledger_with_one_reason_class_each():
    frame = _doctored([
        {"section": "surrogate", "table": "tbl-a", "quantity": "q1", "paper says": "fails here",
         "estimator": "training", "verdict": verdicts.NOT_REPRODUCED},
        {"section": "real_corpora", "table": "tbl-b", "quantity": "q2", "paper says": "a sign",
         "estimator": "data statistic", "verdict": verdicts.NOT_SIGNIFICANT},
        {"section": "real_corpora", "table": "tbl-b", "quantity": "q3", "paper says": "a layer range",
         "estimator": "trained models, measured", "verdict": verdicts.UNDECIDED, "undecided": "budget"},
        {"section": "frontier", "table": "tbl-c", "quantity": "q4", "paper says": "no estimator is exact",
         "estimator": "closed form + convex regression on recovered attention", "verdict": verdicts.NOT_REPRODUCED},
        {"section": "frontier", "table": "tbl-c", "quantity": "q5", "paper says": "saturates",
         "estimator": "alternation of closed forms", "verdict": verdicts.NOT_REPRODUCED},
        {"section": "ladder", "table": "tbl-d", "quantity": "q6", "paper says": "holds",
         "estimator": "training", "verdict": verdicts.REPRODUCED},
    ])
    parts = {"surrogate": "Evidence", "real_corpora": "Evidence", "frontier": ledger.BEYOND, "ladder": "Evidence"}
    found = ledger.findings(frame, parts)
    assert list(found["quantity"]) == ["q1", "q2", "q3", "q4", "q5"]  # reproduced claims are not findings
    assert list(found["reason"]) == [
        ledger.FAILS, ledger.POWER, ledger.BUDGET,
        f"{ledger.BEYOND_LIMIT} (of kind: convex regression on recovered attention)",
        ledger.FAILS]  # the paper's own estimator failing is a failure, even beyond the paper
    text = ledger.findings_markdown(found)
    assert text.count("{numref}`tbl-b`") == 2 and "**Fails on our data** (2)" in text
    flipped = frame.assign(verdict=verdicts.REPRODUCED)
    assert ledger.findings(flipped, parts).empty
    assert "Every claim the book decides is reproduced" in ledger.findings_markdown(ledger.findings(flipped, parts))


def test_a_page_reads_the_rows_of_the_sections_it_names_and_only_sections_of_the_book(claims):
    own = ledger.frame("tiny", ["real_corpora"])
    assert len(own) and own["section"].nunique() == 1  # App. B's rows, as the whole ledger has them
    whole = claims[claims["section"] == own["section"].iloc[0]]
    pd.testing.assert_frame_equal(own.reset_index(drop=True).astype(object).fillna("missing"), check_dtype=False,
                                  right=whole.reset_index(drop=True).astype(object).fillna("missing"))
    with pytest.raises(ValueError, match="no section 'appendix_b'"):
        ledger.frame("tiny", ["appendix_b"])


def test_a_sections_rows_are_computed_once_per_state_of_its_page(claims, tmp_path, monkeypatch):
    from entropic import paths

    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")  # stored here, not where the other tests' rows are
    module, calls = registry.module("ablation"), []
    compare = module.compare
    monkeypatch.setattr(module, "compare", lambda results: calls.append(1) or compare(results))
    first = pd.DataFrame(ledger.section_rows("ablation", "tiny"), columns=ledger.COLUMNS)
    again = pd.DataFrame(ledger.section_rows("ablation", "tiny"), columns=ledger.COLUMNS)  # the ledger's, the intro's
    assert len(calls) == 1 and again.equals(first)
    pd.testing.assert_frame_equal(first.astype(object).fillna("missing"), check_dtype=False,
                                  right=claims[claims["section"] == "ablation"].reset_index(drop=True)
                                  .astype(object).fillna("missing"))
    monkeypatch.setattr(book, "fingerprint", lambda *args, **kwargs: "another state of the page")  # an entry changed
    ledger.section_rows("ablation", "tiny")
    assert len(calls) == 2


def test_every_row_names_its_claim_and_a_reference_shows_each_verdict_its_rows_give(claims):
    from entropic.publish import page

    for name, own in claims.groupby("section", sort=False):
        keys = {ledger.claim_id(name, key) for key in registry.module(name).CLAIMS}
        # every claim by its name; a row says its claim in other words only where the profile's task is not the
        # paper's (the tiny ladder's "B1 already fails"), and names none
        assert set(own["claim"].dropna()) == keys, name
        reworded = own[own["claim"].isna()]
        stated = {(c.says, c.where) for c in registry.module(name).CLAIMS.values()}
        assert not any(pair in stated for pair in zip(reworded["paper says"], reworded["where"], strict=True))
    table = page.ledger_markdown(claims, "c", "tbl-c")
    for claim in claims["claim"].dropna().unique():  # one anchor per claim in the ledger, which its references link
        assert table.count(f'<span id="{page.claim_anchor(claim)}"></span>') == 1
    reference = page.claim_reference("ladder.B1", [verdicts.REPRODUCED, verdicts.REPRODUCED, verdicts.UNDECIDED])
    assert reference.count("sd-badge") == 2 and 'href="ledger.html#claim-ladder-b1"' in reference
    assert 'data-claim="ladder.B1"' in reference
    assert '<span class="claim-label">B1:</span>' in reference  # beside another, a reference names its claim
    assert page.claim_label("attention_native.deficiency_softmax_qk") == "deficiency, softmax"
    assert page.claim_label("real_corpora.pearson") == "Pearson r"
    assert page.claim_label("predictability.softmax_small") == "softmax, log inversion at r* = 1"  # no name twice
