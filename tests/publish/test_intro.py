"""The intro's abstract and findings (publish/intro.py): counts and names read from the ledger and the checks,
within the abstract's word limit, one sentence per finding linked to its evidence."""

import re

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


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.])\s+(?=[A-Z0-9\"])", text.replace("App. ", "App\u00a0")) if s]


def test_the_abstract_counts_what_the_ledger_holds_and_names_what_holds_within_250_words():
    claims = _ledger({"surrogate": [R, H], "attention_native": [R, R, H], "real_corpora": [S, S, U, F, F, R]})
    claims.loc[claims.index[-2], "estimator"] = "data statistic"  # one failure on App. B's data, one on its models
    text = intro.abstract(claims, FOUND)
    assert intro.words(text) <= intro.ABSTRACT_WORDS
    assert all(len(s.split()) <= intro.SENTENCE_WORDS for s in _sentences(text))
    assert "judged each of its 11 quantitative claims" in text
    assert "4 reproduce and 2 hold with a different value" in text
    # where the failures lie is read from each claim's row, not from its section
    assert "2 fail on our data (1 on statistics of App. B's corpora, 1 on its trained models)" in text
    assert "For 2 correlations six corpora are too few to decide the sign" in text and "1 claim still moves" in text
    assert intro.ESTABLISHES["surrogate"] in text
    assert intro.ESTABLISHES["real_corpora"] not in text  # App. B has open claims
    assert "118 of 120 tasks, missing only where T = d" in text and "factor of 34" in text and "3.7 %" in text
    assert "not a normal matrix" in text and "non-normal" not in text and "CV" not in text  # terms said in words
    assert "decides no corpus yet (6 of 109 students trained)" in text
    one = intro.abstract(claims, {**FOUND, "sweep_decided": 1, "sweep_supported": 1, "sweep_done": 42,
                                  "sweep_missing": 5, "sweep_open": 0})
    assert "in 1 of the 1 corpus it decides (5 still training)" in one
    assert intro.words(one) <= intro.ABSTRACT_WORDS
    done = intro.abstract(claims, {**FOUND, "sweep_decided": 3, "sweep_supported": 2, "sweep_done": 190,
                                   "sweep_open": 3, "sweep_missing": 0, "sweep_range": (2, 16)})
    assert ("calibrated at known ranks 2–16, finds a low-rank attention-native description of real text in 2 of the "
            "3 corpora it decides (3 within the seeds' spread).") in done
    across = {"sweep_separates": {"value": 0.788, "outcome": "supported", "p": float("nan"),
                                  "interval": (0.43, 0.84), "bar": 0.334},
              "sweep_predicts": {"value": -0.287, "outcome": "undecided", "p": 0.55}}
    complete = {**FOUND, "sweep_decided": 6, "sweep_supported": 4, "sweep_done": 190, "sweep_open": 0,
                "sweep_missing": 0, **across}
    text = intro.abstract(claims, complete)
    assert text.endswith("real text in 4 of the 6 corpora it decides; the rank it reads separates the corpora "
                         "(coefficient of variation 0.79, 90 % interval 0.43–0.84).")
    assert intro.words(text) <= intro.ABSTRACT_WORDS
    finding = intro.findings(claims, complete)[-1]
    assert "App. B's lag-MI predictor's correlation with it is undecided (Pearson r = −0.29, p = 0.55)" in finding
    flat = {**complete, "sweep_separates": {**across["sweep_separates"], "value": 0.1, "outcome": "contradicted"}}
    assert "the rank it reads does not separate the corpora (coefficient of variation 0.1," in intro.abstract(claims,
                                                                                                              flat)
    everything_holds = intro.abstract(_ledger({"surrogate": [R, R]}), FOUND)
    assert "fail" not in everything_holds.split("Beyond")[0]


def test_each_finding_quotes_every_open_claim_with_its_verdict_links_its_evidence_and_stays_short():
    claims = _ledger({"ladder": [R, H], "real_corpora": [S, F]})
    found = intro.findings(claims, FOUND)
    assert all(line.endswith(".") and ("{numref}`" in line or "{doc}`" in line) for line in found)
    assert all(len(s.split()) <= intro.SENTENCE_WORDS for line in found for s in _sentences(line))
    app = next(line for line in found if line.startswith("The real-corpus diagnostics"))
    assert "0 of 2 claims hold; 1 is not significant" in app
    assert "\"real_corpora claim 1\" (§x), not reproduced" in app  # quoted as the consistency check reads it
    assert any("118 of 120" in line and "T = d" in line for line in found)
