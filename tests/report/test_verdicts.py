"""One criterion per kind of claim, one rule for values: each can fail, on either side of its threshold."""

import math

import numpy as np
import pandas as pd
import pytest

from entropic.engine.statistics import coefficient_of_variation
from entropic.report import verdicts
from entropic.report.verdicts import Claim

FLOOR = 1.28
BAND = verdicts.FLOOR_BAND * FLOOR


@pytest.mark.parametrize("criterion, inside, outside", [
    (lambda v: verdicts.at_floor(v, FLOOR), [0.99 * BAND, -0.99 * BAND], [1.01 * BAND, 0.0]),
    (lambda v: verdicts.clearly_above_floor(v, FLOOR), [1.01 * BAND, 50.0], [0.99 * BAND, 50.0]),
    (lambda v: verdicts.tracks_teacher(v, [3.0, 3.0]), [3.29, 2.71], [3.31, 3.0]),
    (lambda v: verdicts.over_estimates(v, [2.0, 2.0]), [2.21, 3.0], [2.19, 3.0]),
    (lambda v: verdicts.saturates(v, [2, 4]), [3.01, 6.01], [2.99, 6.01]),
    (lambda v: verdicts.increasing(v), [1.0, 1.1, 5.0], [1.0, 1.0, 5.0]),
    (lambda v: verdicts.seed_stable(coefficient_of_variation(v)), [1.0, 1.2], [1.0, 1.25]),
])
def test_every_criterion_holds_just_inside_its_threshold_and_fails_just_outside(criterion, inside, outside):
    assert criterion(inside) is True
    assert criterion(outside) is False


def test_a_value_agrees_within_two_root_two_standard_errors_and_not_beyond():
    claim = Claim("28.5", 28.5, "§4")
    margin = verdicts.VALUE_Z * 1.0
    assert verdicts.value_check(28.5 + 0.99 * margin, claim, se=1.0)[0] is True
    assert verdicts.value_check(28.5 + 1.01 * margin, claim, se=1.0)[0] is False
    assert verdicts.value_check(28.5 - 1.01 * margin, claim, se=1.0)[0] is False


def test_the_value_margin_is_never_tighter_than_the_papers_rounding():
    claim = Claim("3.57 → 3.57", 3.57, "App. D")
    assert claim.resolution == pytest.approx(0.005)
    assert verdicts.value_check(3.5749, claim, se=0.0)[0] is True
    assert verdicts.value_check(3.5751, claim, se=0.0)[0] is False
    assert Claim("saturates at ≈ 16", 16.0, "§6").resolution == 0.5
    assert Claim("≈ 2×10⁻⁴", 2e-4, "§4").resolution == pytest.approx(5e-5)


def test_a_bound_agrees_below_it_plus_the_margin_and_counts_must_be_equal():
    bound = Claim("≤ 0.003", 0.003, "§6")
    assert verdicts.value_check(0.0031, bound, se=0.0001, upper_bound=True)[0] is True
    assert verdicts.value_check(0.0040, bound, se=0.0001, upper_bound=True)[0] is False
    count = Claim("exactly 3", 3, "§4")
    assert verdicts.value_check(3.0, count, exact=True) == (True, "equal")
    assert verdicts.value_check(2.8, count, se=1.0, exact=True)[0] is False


def test_a_claim_without_a_number_is_judged_on_the_claim_alone():
    claim = Claim("≈ 0", None, "§6")
    assert verdicts.value_check(0.5, claim, se=0.0) == (None, "—")
    assert verdicts.row("q", 0.5, claim, "achievability", True, estimator="training")["verdict"] == verdicts.REPRODUCED
    failing = verdicts.row("q", 0.5, claim, "achievability", False, estimator="training")
    assert failing["verdict"] == verdicts.NOT_REPRODUCED


def test_verdicts_combine_claim_value_and_significance():
    claim = Claim("r = −0.27", -0.27, "B.2")
    holds = verdicts.row("q", -0.27, claim, "sign", True, se=0.01, p_value=0.01, estimator="training")
    differs = verdicts.row("q", -0.9, claim, "sign", True, se=0.01, p_value=0.01, estimator="training")
    weak = verdicts.row("q", -0.27, claim, "sign", True, se=0.01, p_value=0.2, estimator="training")
    wrong = verdicts.row("q", 0.9, claim, "sign", False, se=0.01, p_value=0.01, estimator="training")
    assert [r["verdict"] for r in (holds, differs, weak, wrong)] == [
        verdicts.REPRODUCED, verdicts.CLAIM_HOLDS, verdicts.NOT_SIGNIFICANT, verdicts.NOT_REPRODUCED]
    other_kind = verdicts.row("q", 0.1, Claim("no relationship", None, "B.3"), "no relationship", True, p_value=0.5,
                              estimator="training")
    assert other_kind["verdict"] == verdicts.REPRODUCED  # a p-value decides significance for sign claims only


def test_the_seed_standard_error_comes_from_resampling_whole_seeds():
    frame = pd.DataFrame({"seed": np.repeat([0, 1, 2, 3, 4], 3), "x": np.repeat([1.0, 2.0, 3.0, 4.0, 5.0], 3)})
    se = verdicts.mean_se(frame, "x")
    assert se == pytest.approx(np.std([1, 2, 3, 4, 5]) / math.sqrt(5), rel=0.2)  # the seed means' spread
    assert verdicts.mean_se(frame.assign(x=2.0), "x") == 0.0
    assert verdicts.mean_se(frame[frame["seed"] == 0], "x") == 0.0  # one seed: no spread to measure


def test_every_criterion_is_stated_and_every_verdict_is_counted():
    assert all(isinstance(text, str) and text for text in verdicts.CRITERIA.values())
    table = verdicts.table([verdicts.row("a", 1.0, Claim("1", 1.0, ""), "range", True, estimator="training"),
                            verdicts.undefined("b", Claim("x", None, ""), "range", "too few", estimator="training")])
    assert verdicts.counts(table) == {v: int(v in (verdicts.REPRODUCED, verdicts.UNDEFINED))
                                      for v in verdicts.VERDICTS}


def test_every_row_names_a_known_estimator_kind_and_the_pre_training_ones_are_marked():
    claim = verdicts.Claim("≈ 0", None, "§6")
    with pytest.raises(TypeError):
        verdicts.row("q", 0.5, claim, "achievability", True)  # no estimator kind: refused
    with pytest.raises(ValueError, match="unknown estimator kind"):
        verdicts.row("q", 0.5, claim, "achievability", True, estimator="magic")
    row = verdicts.row("q", 0.5, claim, "achievability", True, estimator="closed form + alternation of closed forms")
    assert row["estimator"] == "closed form + alternation of closed forms" and verdicts.pre_training(row["estimator"])
    assert not verdicts.pre_training("maximum likelihood (= training)")
    assert not verdicts.pre_training("closed form + maximum likelihood (= training)")


def test_what_differs_is_said_from_the_verdicts_per_kind_with_each_rows_subject():
    rows = [verdicts.row("B0: max |excess| at r = r*", 0.0, Claim("≈ 0", 0.0, "§5"), "achievability", True,
                         estimator="training"),
            verdicts.row("B1: mean excess at r = r*", 60.9, Claim("69.4", 69.4, "§5"), "deficiency", True,
                         estimator="training", se=0.1),
            verdicts.row("linear_qk: max CV_seed of R_eff(K)", 0.2, Claim("≤ 0.003", 0.003, "§6"), "seed stability",
                         False, upper_bound=True, estimator="training")]
    table = verdicts.table(rows)
    assert verdicts.differing(table) == ("What differs: the claim holds with another value for deficiency (B1) and "
                                         "the claim fails for seed stability (linear).")
    assert verdicts.differing(verdicts.table(rows[:1])) == "Nothing differs: every row reproduces the paper's value."
