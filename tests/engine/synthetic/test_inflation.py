"""A small Marchenko–Pastur bulk inflates a spectral entropy rank as the first-order formula says, on simulated
spectra and on least-squares estimates, and bad input raises."""

import math

import numpy as np
import pytest

from entropic.engine import spectral
from entropic.engine.synthetic import inflation


def test_the_quarter_circle_law_has_mean_eight_over_three_pi_and_unit_second_moment():
    assert inflation.quarter_circle_moments(1)[0] == pytest.approx(8 / (3 * math.pi), rel=1e-6)
    assert inflation.quarter_circle_moments(2)[0] == pytest.approx(1.0, rel=1e-6)


def test_the_first_order_inflation_matches_a_simulated_bulk_at_small_noise():
    rng, signal, T = np.random.default_rng(0), np.array([2.0, 1.5, 1.0]), 16
    base = np.diag(np.concatenate([signal, np.zeros(T - 3)]))
    true = spectral.effective_rank(base)
    for eps in (3e-4, 1e-3):
        measured = np.mean([spectral.effective_rank(base + eps * rng.standard_normal((T, T))) - true
                            for _ in range(100)])
        assert measured == pytest.approx(inflation.bulk_inflation(signal, eps, T - 3), rel=0.05)
    assert inflation.bulk_inflation(signal, 0.0, T - 3) == 0.0
    assert inflation.bulk_inflation(signal, 1e-4, 13) < inflation.bulk_inflation(signal, 1e-3, 13)


def test_least_squares_spectra_follow_the_first_order_inflation_not_the_papers_one_over_n():
    check = inflation.mp_check(T=12, D=8, r_star=3, ns=(200, 1600), seeds=range(3))
    mean = check.groupby("n")[["simulated", "first_order", "paper"]].mean()
    assert np.allclose(mean["simulated"], mean["first_order"], rtol=0.15)
    assert (mean["paper"] < 0.5 * mean["simulated"]).all()


@pytest.mark.parametrize("call", [
    lambda: inflation.quarter_circle_moments(0),
    lambda: inflation.bulk_inflation([1.0, -1.0], 0.1, 3),
    lambda: inflation.bulk_inflation([1.0], 0.1, 3, power=3),
    lambda: inflation.mp_check(ns=(0, 10)),
])
def test_bad_input_raises_a_value_error(call):
    with pytest.raises(ValueError):
        call()
