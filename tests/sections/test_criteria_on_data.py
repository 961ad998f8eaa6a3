"""Every criterion, applied by the sections to doctored results on each side of its threshold: the claim
must hold on one side and fail on the other (a criterion that cannot fail is a defect)."""

import dataclasses

import numpy as np
import pytest

from entropic import registry
from entropic.jobs import runner
from entropic.report import verdicts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tiny():
    """Every section's tiny results (computed once per test session, shared through the store)."""
    return {name: runner.run(name, "tiny", progress=False) for name in
            ("surrogate", "ladder", "attention_native", "predictability", "ablation", "real_corpora")}


def _holds(name, results, kind, **tables) -> list[bool]:
    """Whether the claims of ``kind`` hold once ``tables`` replace the stored ones."""
    doctored = dataclasses.replace(results, tables={**results.tables, **tables})
    table = registry.module(name).compare(doctored)
    return list(table.loc[table["kind"] == kind, "claim holds"].astype(bool))


def _scaled(frame, where, column, value):
    out = frame.copy()
    out.loc[where(out), column] = value
    return out


def test_achievability_and_deficiency_flip_at_five_percent_of_the_floor(tiny):
    results = tiny["surrogate"]
    sweep, r_star = results["sweep"], results.cfg.r_star
    band = verdicts.FLOOR_BAND * sweep["noise_floor"].iloc[0]
    above = lambda s: s["r"] >= r_star  # noqa: E731
    below = lambda s: s["r"] < r_star  # noqa: E731
    def holds(kind, where, value):
        return set(_holds("surrogate", results, kind, sweep=_scaled(sweep, where, "excess", value)))

    assert holds("achievability", above, 0.99 * band) == {True}
    assert holds("achievability", above, 1.01 * band) == {False}
    assert holds("deficiency", below, 1.01 * band) == {True}
    assert holds("deficiency", below, 0.99 * band) == {False}


def test_recovery_and_predictability_flip_on_the_energy_rank_and_the_count(tiny):
    results = tiny["surrogate"]
    rec = results["recovery"]
    teacher = rec["teacher_energy_effective_rank"]
    for factor, expected in ((1.09, [True]), (1.11, [False])):
        assert _holds("surrogate", results, "recovery", recovery=rec.assign(energy_effective_rank=teacher * factor)) \
            == expected
    data = results["data_only"]
    r_star = results.cfg.r_star
    assert _holds("surrogate", results, "predictability", data_only=data.assign(numerical_rank=r_star)) == [True]
    assert _holds("surrogate", results, "predictability", data_only=data.assign(numerical_rank=r_star + 1)) == [False]


def test_the_papers_recovery_reading_and_seed_stability_flip(tiny):
    results = tiny["attention_native"]
    rec = results["recovery"]
    exact = rec.assign(effective_rank=rec["r_star"] + 0.4)
    off = rec.assign(effective_rank=rec["r_star"] + 0.6)
    assert set(_holds("attention_native", results, "recovery (paper's reading)", recovery=exact)) == {True}
    assert set(_holds("attention_native", results, "recovery (paper's reading)", recovery=off)) == {False}
    spread = rec.assign(effective_rank=rec["r_star"] * np.where(rec["seed"] == rec["seed"].min(), 1.0, 1.19))
    too_wide = rec.assign(effective_rank=rec["r_star"] * np.where(rec["seed"] == rec["seed"].min(), 1.0, 1.24))
    assert set(_holds("attention_native", results, "seed stability", recovery=spread)) == {True}  # CV 0.087
    assert set(_holds("attention_native", results, "seed stability", recovery=too_wide)) == {False}  # CV 0.107


def test_the_predictability_criteria_flip(tiny):
    results = tiny["predictability"]
    est, paper = results["estimates"], results["paper"]  # the softmax statements judge the paper's own inversion
    saturated = paper.assign(paper_numerical_rank=paper["r_star"] * 1.5 + 1)
    unsaturated = paper.assign(paper_numerical_rank=paper["r_star"])
    assert _holds("predictability", results, "saturation", paper=saturated)[-1] is True
    assert _holds("predictability", results, "saturation", paper=unsaturated)[-1] is False
    assert _holds("predictability", results, "over-estimate", paper=paper.assign(
        paper_energy_rank=paper["teacher_energy_rank"] * 1.11)) == [True]
    assert _holds("predictability", results, "over-estimate", paper=paper.assign(
        paper_energy_rank=paper["teacher_energy_rank"] * 1.09)) == [False]
    exact = unsaturated.assign(paper_energy_rank=paper["teacher_energy_rank"])
    assert _holds("predictability", results, "exactness", paper=exact) == [False]
    assert _holds("predictability", results, "exactness", paper=saturated) == [True]
    teacher = est["teacher_energy_rank"]
    over = est.assign(v_known_energy_rank=teacher * 1.11)
    close = est.assign(v_known_energy_rank=teacher * 1.09)
    assert set(_holds("predictability", results, "energy prediction", estimates=close.assign(
        v_unknown_energy_rank=teacher))) == {True}
    assert set(_holds("predictability", results, "energy prediction", estimates=over.assign(
        v_unknown_energy_rank=teacher * 1.11))) == {False}
    rising = est.assign(realized_mixer_energy_rank=est["r_star"].astype(float))
    flat = est.assign(realized_mixer_energy_rank=1.0)
    assert set(_holds("predictability", results, "monotone", estimates=rising)) == {True}
    assert set(_holds("predictability", results, "monotone", estimates=flat)) == {False}


def test_near_one_flips_at_ten_percent(tiny):
    results = tiny["ladder"]
    runs = results["runs"]
    r_star = results.cfg.r_star
    b1 = runs.loc[(runs["rung"] == "B1") & (runs["r"] == r_star), "excess"].mean()
    at = (runs["rung"] == "B2") & (runs["r"] == r_star)
    assert _holds("ladder", results, "near one", runs=runs.assign(excess=np.where(at, 1.09 * b1, runs["excess"]))) \
        == [True]
    assert _holds("ladder", results, "near one", runs=runs.assign(excess=np.where(at, 1.11 * b1, runs["excess"]))) \
        == [False]


def test_the_knee_statistic_orders_the_spectra():
    results = runner.run("ablation", "tiny", {"r_star": 3}, progress=False)  # a deficient rank between 1 and r*
    sweep = results["sweep"]

    def knees(sharp, power_law, flat):  # the share of the r = 1 excess left at r = r* − 1, per spectrum
        share = {"sharp": sharp, "power_law": power_law, "flat": flat}
        at = sweep["r"] == results.cfg.r_star - 1
        return sweep.assign(excess=np.where(at, sweep["excess"] * 0 + sweep["spectrum"].map(share), sweep["excess"])
                            ).pipe(lambda s: s.assign(excess=np.where(s["r"] == 1, 1.0, s["excess"])))

    assert _holds("ablation", results, "knee", sweep=knees(0.18, 0.15, 0.33)) == [True]
    assert _holds("ablation", results, "knee", sweep=knees(0.18, 0.19, 0.33)) == [False]


def test_sign_claims_need_a_significant_correlation_of_the_papers_sign():
    results = runner.run("real_corpora", "tiny", {"corpora": ["english", "python", "json", "music", "linux"]},
                         progress=False)
    measured = section_cells = registry.module("real_corpora").cells(results)
    widest = measured.index.get_level_values("d_model").max()
    rank = section_cells.xs(widest, level="d_model")["static_kernel_rank"]
    pred, column = results["predictor"].set_index("corpus"), registry.module("real_corpora").readings.MAIN.predictor
    opposite = pred.assign(**{column: -rank.reindex(pred.index) * 10}).reset_index()
    same = pred.assign(**{column: rank.reindex(pred.index) * 10}).reset_index()
    table = registry.module("real_corpora").compare(dataclasses.replace(results, tables={**results.tables,
                                                                                          "predictor": opposite}))
    pearson = table[table.index.str.startswith("Pearson(predicted")].iloc[0]
    assert pearson["claim holds"] and pearson["p"] < 0.05 and pearson["verdict"] != verdicts.NOT_SIGNIFICANT
    table = registry.module("real_corpora").compare(dataclasses.replace(results, tables={**results.tables,
                                                                                          "predictor": same}))
    pearson = table[table.index.str.startswith("Pearson(predicted")].iloc[0]
    assert not pearson["claim holds"] and pearson["verdict"] == verdicts.NOT_REPRODUCED
