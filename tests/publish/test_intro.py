"""The intro's abstract and findings (publish/intro.py): counts and names read from the ledger and the checks,
within the abstract's word limit, one sentence per finding linked to its evidence."""

import pandas as pd

from entropic.publish import intro, ledger
from entropic.report import verdicts


def _ledger(verdict_of: dict[str, list[str]]) -> pd.DataFrame:
    rows = []
    for section, found in verdict_of.items():
        for k, verdict in enumerate(found):
            rows.append({"section": section, "title": section, "table": f"tbl-{section}", "quantity": f"q{k}",
                         "paper says": f"{section} claim {k}", "where": "§x", "paper value": None, "ours": 1.0,
                         "kind": "range", "estimator": "training", "criterion": "c", "claim holds": True,
                         "value agrees": None, "verdict": verdict, "note": "", "undecided": "", "profile": "paper"})
    return pd.DataFrame(rows, columns=ledger.COLUMNS)


FOUND = {"shear_factor": 34.0, "inflation_n": 3000, "inflation_share": 3.71, "goal_met": 118, "goal_tasks": 120,
         "misses_at_t_equal_d": True, "exceeding": ["V-known logistic", "V-unknown logistic"],
         "long_best_tokens": 7_680_000, "long_last_tokens": 61_440_000, "long_rises": True,
         "sweep_decided": 0, "sweep_supported": 0, "sweep_corpora": 6, "sweep_done": 6, "sweep_asked": 109}
R, H, F, S, U = verdicts.REPRODUCED, verdicts.CLAIM_HOLDS, verdicts.NOT_REPRODUCED, verdicts.NOT_SIGNIFICANT, \
    verdicts.UNDECIDED


def test_the_abstract_counts_what_the_ledger_holds_and_names_what_holds_within_250_words():
    claims = _ledger({"surrogate": [R, H], "attention_native": [R, R, H], "real_corpora": [S, S, U, F, R]})
    text = intro.abstract(claims, FOUND)
    assert intro.words(text) <= intro.ABSTRACT_WORDS
    assert "judged each of its 10 quantitative claims" in text
    assert "4 reproduce and 2 hold with a different value" in text
    assert "1 fails on our data, all on App. B's data side" in text
    assert "2 correlations across six corpora cannot be decided" in text and "1 claim still moves" in text
    assert intro.ESTABLISHES["surrogate"] in text
    assert intro.ESTABLISHES["real_corpora"] not in text  # App. B has open claims
    assert "118 of 120 tasks, missing only where T = d" in text and "factor of 34" in text and "3.7 %" in text
    assert "has 6 of 109 students trained and decides no corpus yet" in text
    one = intro.abstract(claims, {**FOUND, "sweep_decided": 1, "sweep_supported": 1, "sweep_done": 42})
    assert "in 1 of 1 corpus decided so far (5 of 6 still training: 42 of 109 students stored)" in one
    assert intro.words(one) <= intro.ABSTRACT_WORDS
    done = intro.abstract(claims, {**FOUND, "sweep_decided": 6, "sweep_supported": 4, "sweep_done": 109})
    assert "real text in 4 of 6 corpora." in done  # the sweep complete: no "so far", nothing still training
    across = {"sweep_separates": {"value": 0.788, "outcome": "supported", "p": float("nan")},
              "sweep_predicts": {"value": -0.287, "outcome": "not significant", "p": 0.55},
              "sweep_measures": "0.047–0.334"}
    complete = {**FOUND, "sweep_decided": 6, "sweep_supported": 4, "sweep_done": 109, **across}
    text = intro.abstract(claims, complete)
    assert text.endswith("real text in 4 of 6 corpora; the rank it reads separates the corpora (CV 0.79, where "
                         "App. B's model-side measures give 0.047–0.334).")
    assert intro.words(text) <= intro.ABSTRACT_WORDS
    finding = intro.findings(claims, complete)[-1]
    assert "App. B's lag-MI predictor's correlation with it is not significant (Pearson r = −0.29, p = 0.55)" in finding
    flat = {**complete, "sweep_separates": {**across["sweep_separates"], "value": 0.1, "outcome": "contradicted"}}
    assert "the rank it reads does not separate the corpora (CV 0.1," in intro.abstract(claims, flat)
    everything_holds = intro.abstract(_ledger({"surrogate": [R, R]}), FOUND)
    assert "fail" not in everything_holds.split("Beyond")[0]


def test_each_finding_is_one_sentence_that_quotes_every_open_claim_with_its_verdict_and_links_its_evidence():
    claims = _ledger({"ladder": [R, H], "real_corpora": [S, F]})
    found = intro.findings(claims, FOUND)
    assert all(line.endswith(").") and ("{numref}`" in line or "{doc}`" in line) for line in found)
    app = next(line for line in found if line.startswith("The real-corpus diagnostics"))
    assert "0 of 2 claims hold, 1 is not significant" in app
    assert "\"real_corpora claim 1\" (§x), not reproduced" in app  # quoted as the consistency check reads it
    assert any("118 of 120" in line and "T = d" in line for line in found)
