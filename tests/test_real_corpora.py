"""App. B at tiny sizes, through the runner and the results store (redirected by conftest)."""

import math
import shutil

import pandas as pd
import pytest

from entropic import sections
from entropic.engine import corpora
from entropic.pipeline import runner, verdicts

section = sections.module("real_corpora")
THREE = {"corpora": ["english", "python", "json"]}


@pytest.fixture(scope="module")
def tiny():
    return runner.run("real_corpora", "tiny", progress=False)


@pytest.fixture(scope="module")
def three():
    return runner.run("real_corpora", "tiny", THREE, progress=False)


def _check_verdicts(table: pd.DataFrame):
    """Each verdict follows from the row's own numbers: the range (or criterion) and the value agreement."""
    for quantity, row in table.iterrows():
        assert row["criterion"] == verdicts.CRITERIA[row["kind"]]
        if row["verdict"] == verdicts.UNDEFINED:
            assert "undefined" in quantity and math.isnan(row["ours"]) and not row["claim holds"]
            continue
        if row["kind"] == "range":
            low, high, ours = row["low"], row["high"], row["ours"]
            assert row["claim holds"] == (low <= ours <= high if row["closed"] else low < ours < high), quantity
        elif row["kind"] == "seed stability":
            assert row["claim holds"] == (row["ours"] <= verdicts.CV_THRESHOLD)
        claim = verdicts.Claim(row["paper says"], None if pd.isna(row["paper value"]) else row["paper value"], "")
        agrees = verdicts.value_agrees(row["ours"], claim, row["rtol"], row["atol"], row["upper bound"])
        assert row["verdict"] == verdicts.verdict(row["claim holds"], agrees), quantity


def test_with_two_corpora_the_correlations_are_reported_undefined_not_crashed(tiny):
    table = section.compare(tiny)
    _check_verdicts(table)
    undefined = table[table["verdict"] == verdicts.UNDEFINED]
    assert any(q.startswith("Pearson(predicted") for q in undefined.index)
    assert all("2 corpora" in q for q in undefined.index if "Pearson" in q)
    assert table.loc[next(q for q in table.index if q.startswith("max CV_seed")), "verdict"] != verdicts.UNDEFINED


def test_with_three_corpora_every_row_has_a_verdict_derived_from_its_numbers(three):
    table = section.compare(three)
    _check_verdicts(table)
    assert (table["verdict"] != verdicts.UNDEFINED).all()
    assert len(table) == len(section.CLAIMS)
    pearson = table.loc[next(q for q in table.index if q.startswith("Pearson(predicted"))]
    cells = section.cells(three)
    pred = three["predictor"].set_index("corpus")
    expected = section.lm.pearson(pred.loc[cells.index.get_level_values("corpus"), "predicted_rank"],
                                  cells["static_kernel_rank"])
    assert pearson["ours"] == pytest.approx(expected) and pearson["paper says"] == section.CLAIMS["pearson"].says


def test_every_corpus_has_its_provenance_in_the_rows(three):
    pred, models = three["predictor"], three["models"]
    assert sorted(pred["corpus"]) == sorted(THREE["corpora"])
    for frame in (pred, models):
        for column in ("source", "location", "bytes", "sha256", "matches_pin"):
            assert frame[column].notna().all(), column
    for _, row in pred.iterrows():
        assert row["sha256"] == corpora.PINS[row["corpus"]].sha256 and row["matches_pin"]
    assert len(models) == 3 * 2  # three corpora × two seeds at one size
    facts = section.facts(three)
    assert facts["n_found"] == 3 and facts["missing"] == "none" and facts["models"] == 6


def test_the_predictor_is_measured_on_a_common_symbol_budget(three):
    pred = three["predictor"]
    assert (pred["predicted_max_rank"] == three.cfg.symbols).all()  # K kept + 1 pooled: rank ≤ K
    assert (pred["uncapped_max_rank"] > pred["predicted_max_rank"]).all()


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"\xff\xfe\x00abc", "UTF-8")])
def test_an_empty_or_binary_corpus_file_stops_the_run_before_any_training(tmp_path, content, message):
    (tmp_path / "python.txt").write_bytes(content)
    with pytest.raises(ValueError, match=rf"python\.txt.*{message}"):
        runner.run("real_corpora", "tiny", {"corpus_dir": str(tmp_path)}, progress=False)


def test_a_missing_corpus_is_reported_with_where_to_put_it(tmp_path):
    shutil.copy(corpora.shared_corpora_dir() / "english.txt", tmp_path / "english.txt")
    overrides = {"corpus_dir": str(tmp_path), "sources": ["user_dir"]}
    results = runner.run("real_corpora", "tiny", overrides, progress=False)
    found = section.availability(results.cfg)
    assert list(found["status"]) == ["found", "missing"]
    assert str(tmp_path / "python.txt") in found.loc["python", "location"]
    assert corpora.PINS["python"].sha256 in found.loc["python", "location"]
    assert list(results["predictor"]["corpus"]) == ["english"]
    facts = section.facts(results)
    assert facts["missing"] == "`python`" and str(tmp_path) in facts["put_missing"]
    table = section.compare(results)
    _check_verdicts(table)


def test_when_no_corpus_is_found_the_run_stops_saying_where_to_put_them(tmp_path):
    with pytest.raises(ValueError, match=r"no corpus found.*english\.txt.*python\.txt"):
        runner.plan("real_corpora", "tiny", {"corpus_dir": str(tmp_path), "sources": ["user_dir"]})


def test_bad_parameters_fail_before_any_work():
    with pytest.raises(ValueError, match="heads"):
        runner.plan("real_corpora", "tiny", {"d_models": [18]})
    with pytest.raises(ValueError, match="klingon"):
        runner.plan("real_corpora", "tiny", {"corpora": ["klingon"]})
    with pytest.raises(ValueError, match="val_fraction"):
        runner.plan("real_corpora", "tiny", {"val_fraction": 1.5})
