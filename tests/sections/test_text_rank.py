"""The capacity sweep's rules (sections/text_rank), on doctored students: τ and r̂ as declared, the power check,
the budget check, and the three outcomes; and the section at the tiny profile through the store."""

import math

import numpy as np
import pandas as pd
import pytest

from entropic.jobs import runner
from entropic.sections import text_rank
from entropic.sections.text_rank import analysis


def _students(curves: dict, tokens=(3_840_000, 7_680_000), seeds=(0, 1, 2), spread=0.002) -> pd.DataFrame:
    """Every corpus's mean loss per width (``curves``: corpus → {rank: loss}), the seeds around it ±spread."""
    rows = []
    for corpus, curve in curves.items():
        for budget in tokens:
            for rank, loss in curve.items():
                for k, seed in enumerate(seeds):
                    rows.append({"corpus": corpus, "rank": rank, "seed": seed, "step": budget // 1024,
                                 "tokens": budget, "val_loss": loss + spread * (k - 1), "kernel_rank": float(rank),
                                 "kernel_energy_rank": float(rank), "source": "doctored"})
    return pd.DataFrame(rows)


RANKS = (1, 2, 4, 8, 16, 32)
KNEE_AT_8 = {1: 2.9, 2: 2.8, 4: 2.75, 8: 2.7005, 16: 2.7002, 32: 2.7}
FLAT = {r: 1.25 for r in RANKS}
FULL = {1: 1.6, 2: 1.5, 4: 1.4, 8: 1.3, 16: 1.27, 32: 1.25}


def test_tau_is_two_standard_errors_of_a_difference_and_r_hat_the_narrowest_width_within_it():
    table = analysis.ranks(_students({"a": KNEE_AT_8, "b": FLAT, "c": FULL}), RANKS).set_index(["corpus", "tokens"])
    s = 0.002  # the seeds are mean ± 0.002: a sample standard deviation of 0.002 at every width
    assert table.loc[("a", 7_680_000), "s"] == pytest.approx(s)
    assert table.loc[("a", 7_680_000), "tau"] == pytest.approx(2 * s * math.sqrt(2 / 3))
    assert [table.loc[(c, 7_680_000), "r_hat"] for c in "abc"] == [8, 1, 32]
    assert table.loc[("a", 7_680_000), "gap_below"] == pytest.approx(0.05)
    incomplete = analysis.ranks(_students({"a": {r: v for r, v in KNEE_AT_8.items() if r != 16}}), RANKS)
    assert incomplete["r_hat"].isna().all()  # a missing width: no r̂


class _Results:
    """What ``compare`` reads of a section's results, doctored: the students of ``rows`` behind the routing corpus
    and the real corpora."""

    def __init__(self, students: pd.DataFrame, corpora: tuple):
        self.cfg = text_rank.Config(corpora=corpora, reuse=False, check_corpus=None)
        self.tables = {"models": students[["corpus", "rank", "seed", "step", "tokens", "val_loss"]],
                       "kernels": students.assign(layer=0, head=0)[["corpus", "rank", "seed", "step", "layer", "head",
                                                                    "kernel_rank", "kernel_energy_rank"]]}
        self.entries, self.missing = [], []

    def __getitem__(self, name):
        return self.tables[name]


def _outcomes(routing: dict, corpora: dict, before: dict | None = None) -> pd.DataFrame:
    students = _students({"routing": routing, **corpora}, tokens=(7_680_000,))
    if before is not None:
        students = pd.concat([students, _students(before, tokens=(3_840_000,))])
    found = analysis.compare(_Results(students, tuple(corpora)))
    return found.set_index("quantity")


def test_each_corpus_is_supported_or_contradicted_only_when_the_power_check_reads_the_routing_rank():
    corpora = {"english": KNEE_AT_8, "json": FULL, "linux": FLAT}
    found = _outcomes(KNEE_AT_8, corpora)
    low = found[found["key"] == "low_rank"]["outcome"].tolist()
    assert low == ["supported", "contradicted", "supported"]
    blind = _outcomes(FLAT, corpora)  # the routing corpus reads r̂ = 1, not its rank 8: nothing is decided
    assert set(blind.loc[blind["key"] == "low_rank", "outcome"]) == {"undecided"}
    assert all("power" in why for why in blind.loc[blind["key"] == "low_rank", "why"])


def test_an_outcome_that_differs_at_the_budget_before_is_undecided():
    found = _outcomes(KNEE_AT_8, {"english": KNEE_AT_8, "json": FULL, "linux": FLAT},
                      before={"english": FULL, "json": FULL, "linux": FLAT})
    english = found[found.index.str.startswith("english")].iloc[0]
    assert english["outcome"] == "undecided" and english["why"].startswith("budget")


def test_separation_is_a_cv_of_r_hat_above_020_and_the_predictor_needs_a_significant_correlation(monkeypatch):
    corpora = {"english": KNEE_AT_8, "json": FULL, "linux": FLAT}
    found = _outcomes(KNEE_AT_8, corpora)
    separates = found[found["key"] == "separates"].iloc[0]
    assert separates["ours"] == pytest.approx(np.std([8, 32, 1]) / np.mean([8, 32, 1]))
    assert separates["outcome"] == "supported"
    same = _outcomes(KNEE_AT_8, {"english": FLAT, "json": FLAT, "linux": FLAT})
    assert same[same["key"] == "separates"]["outcome"].iloc[0] == "contradicted"  # CV 0: r̂ the same everywhere
    monkeypatch.setattr(analysis, "predictor", lambda _, corpora: pd.Series([3.0, 9.0, 1.0], index=list(corpora)))
    found = _outcomes(KNEE_AT_8, corpora)
    predicts = found[found["key"] == "predicts"].iloc[0]
    assert predicts["ours"] == pytest.approx(np.corrcoef([3, 9, 1], [8, 32, 1])[0, 1])
    assert predicts["outcome"] == "not significant" and predicts["why"] == ""  # 3 corpora: p ≥ 0.05, the rule's word


def _knee(at: int) -> dict:
    """A corpus whose r̂ is ``at``: every narrower width 0.1 nats above the full width's loss."""
    return {r: 1.25 + (0.1 if r < at else 0.0) for r in RANKS}


def test_six_corpora_decide_the_predictor_by_its_permutation_p_and_show_spearman_and_appendix_b_beside(monkeypatch):
    corpora = {name: _knee(at) for name, at in zip(text_rank.Config().corpora, RANKS, strict=True)}
    monkeypatch.setattr(analysis, "predictor", lambda _, names: pd.Series([1.5, 2.0, 9.0, 3.0, 20.0, 40.0],
                                                                          index=list(names)))
    monkeypatch.setattr(analysis, "variation", lambda cfg, _: {"measures": pd.Series([0.05, 0.08]),
                                                               "predictor": 0.66})
    found = _outcomes(KNEE_AT_8, corpora)
    hats = [1, 2, 4, 8, 16, 32]
    predicts = found[found["key"] == "predicts"].iloc[0]
    r = np.corrcoef([1.5, 2.0, 9.0, 3.0, 20.0, 40.0], hats)[0, 1]
    assert predicts["ours"] == pytest.approx(r) and predicts["outcome"] == "supported"  # r ≈ 0.97, p < 0.05
    assert "Spearman ρ = 0.94)" in predicts.name  # one swapped pair of six: ρ = 1 − 6·2/210 = 0.943
    separates = found[found["key"] == "separates"].iloc[0]
    assert separates["ours"] == pytest.approx(np.std(hats) / np.mean(hats)) and separates["outcome"] == "supported"
    assert "App. B's measures at d_model = 128: 0.05–0.08, its predictor: 0.66" in separates.name


def test_the_section_runs_at_the_tiny_profile_and_reads_its_own_students():
    results = runner.run("text_rank", "tiny", progress=False)
    students = analysis.rows(results)
    assert set(students["corpus"]) == {"routing", "english"} and set(students["rank"]) == {1, 4}
    assert students["kernel_energy_rank"].le(students["rank"] + 1e-6).all()  # a rank-r kernel: R̃_eff ≤ r
    found = text_rank.compare(results)
    assert set(found["key"]) == {"low_rank", "separates", "predicts"}
    facts = text_rank.facts(results)
    assert all(isinstance(v, (int, float, str)) for v in facts.values())


def test_the_outcomes_table_leads_with_the_outcome_and_the_tolerance_readings_say_what_they_would_move(monkeypatch):
    monkeypatch.setattr(analysis, "predictor", lambda _, names: pd.Series([3.0, 9.0, 1.0], index=list(names)))
    corpora = {"english": KNEE_AT_8, "json": FULL, "linux": {**FULL, 16: 1.252}}  # linux: 16 is 0.002 above 32
    results = _Results(_students({"routing": KNEE_AT_8, **corpora}, tokens=(7_680_000,)), tuple(corpora))
    table = text_rank.outcomes(text_rank.compare(results))
    assert list(table.columns) == ["outcome", "claim", "measured", "ours"]  # the outcome first; nothing open
    table = table.set_index("claim")
    assert table.loc["(c) across corpora", "outcome"] == "not significant"  # three corpora: p ≥ 0.05
    assert list(table.index) == ["(a) english", "(a) json", "(a) linux", "(b) across corpora", "(c) across corpora"]
    assert table.loc["(a) linux", "outcome"] == "supported" and table.loc["(a) linux", "ours"] == 16
    assert table.loc["(a) json", "measured"].startswith("r̂ = 32 of 32")
    # τ = 0.00327: at τ/2 linux's 16 is outside (r̂ = 32, the outcome flips), at 2τ its 8 is still 0.05 above
    sentence = text_rank.facts(results)["tolerance_sentence"]
    assert "r̂ moves in 1 of 3 corpora (linux 32 and 16)" in sentence
    assert "(a)'s outcome differs under one of them for linux," in sentence
    assert f"the CV of r̂ is {np.std([8, 32, 32]) / np.mean([8, 32, 32]):.2f} and" in sentence
