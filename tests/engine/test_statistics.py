import itertools

import numpy as np
import pytest

from entropic.engine import statistics


def test_correlations_and_the_coefficient_of_variation():
    x = np.array([1.0, 2, 3, 4, 5])
    assert statistics.pearson(x, 2 * x + 1) == pytest.approx(1.0)
    assert statistics.spearman(x, x**3) == pytest.approx(1.0)
    assert statistics.spearman(x, -np.exp(x)) == pytest.approx(-1.0)
    assert statistics.spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)  # ties averaged
    assert statistics.coefficient_of_variation([2.0, 2.0, 2.0]) == 0.0
    assert statistics.coefficient_of_variation([1.0, 3.0]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="constant"):
        statistics.pearson([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="length"):
        statistics.pearson([1, 2, 3], [1, 2])


def test_the_permutation_threshold_separates_a_strong_from_no_correlation():
    x = np.arange(6.0)
    limit = statistics.permutation_threshold(x, x**2)
    assert 0.6 < limit < 0.95 and statistics.pearson(x, x**2) > limit
    assert limit == statistics.permutation_threshold(x, x**2)  # exact enumeration: deterministic
    with pytest.raises(ValueError, match="≥ 3"):
        statistics.permutation_threshold([1, 2], [2, 1])


def test_the_rowwise_statistics_are_the_statistic_of_each_row_and_the_permutation_p_counts_every_order():
    rng = np.random.default_rng(1)
    x, rows = rng.normal(size=6), rng.normal(size=(50, 6))
    rows[3] = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0]  # ties, averaged as spearman averages them
    for statistic in (statistics.pearson, statistics.spearman):
        assert np.allclose(statistics.rowwise(statistic, x, rows), [statistic(x, row) for row in rows], atol=1e-13)
        y = rows[0]
        by_hand = np.mean([abs(statistic(x, y[list(o)])) >= abs(statistic(x, y)) - 1e-12
                           for o in itertools.permutations(range(6))])
        assert statistics.permutation_p(x, y, statistic) == pytest.approx(by_hand, abs=1e-12)
    with pytest.raises(ValueError, match="constant"):
        statistics.rowwise(statistics.pearson, x, np.ones((2, 6)))
    with pytest.raises(ValueError, match="rows of 6"):
        statistics.rowwise(statistics.pearson, x, np.ones((2, 5)))


def test_robust_outliers_flag_only_the_value_that_stands_apart():
    flags = statistics.robust_outliers([10.0, 10.5, 9.8, 10.2, 30.0, 10.1])
    assert list(flags) == [False, False, False, False, True, False]
    assert not statistics.robust_outliers([1.0, 2.0, 3.0, 4.0]).any()
    assert list(statistics.robust_outliers([5.0, 5.0, 5.0, 7.0])) == [False, False, False, True]


def test_the_decreasing_fit_pools_every_rise_into_its_weighted_mean_and_leaves_a_decreasing_curve_alone():
    assert np.allclose(statistics.decreasing_fit([3.0, 2.0, 1.0]), [3.0, 2.0, 1.0])
    assert np.allclose(statistics.decreasing_fit([1.0, 2.0, 3.0]), [2.0, 2.0, 2.0])
    assert np.allclose(statistics.decreasing_fit([3.0, 1.0, 2.0], [1, 1, 3]), [3.0, 1.75, 1.75])
    rng = np.random.default_rng(0)
    y = rng.normal(size=12)
    fit = statistics.decreasing_fit(y)
    assert np.all(np.diff(fit) <= 1e-12) and np.isclose(fit.sum(), y.sum())  # pooling keeps the total
    with pytest.raises(ValueError, match="positive weights"):
        statistics.decreasing_fit([1.0, 2.0], [1.0, 0.0])
