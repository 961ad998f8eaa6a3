import numpy as np
import pytest
import torch

from entropic.engine import charlm, lm_measures
from entropic.engine.spectral import effective_rank

T = 6


def _uniform_causal(T):
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def test_identity_attention_has_full_mean_and_per_input_rank():
    A = np.broadcast_to(np.eye(T), (5, 2, T, T))  # (N, H, T, T)
    np.testing.assert_allclose(lm_measures.mean_attention_rank(A), [T, T])
    np.testing.assert_allclose(lm_measures.per_input_attention_rank(A), [T, T])
    np.testing.assert_allclose(lm_measures.attention_participation_ratio(A), [T, T])


def test_attention_to_the_first_token_only_has_rank_one_and_uniform_causal_lies_between():
    sink = np.zeros((3, T, T))
    sink[:, :, 0] = 1.0
    assert lm_measures.mean_attention_rank(sink) == pytest.approx(1.0)
    assert lm_measures.attention_participation_ratio(sink) == pytest.approx(1.0)
    uniform = np.broadcast_to(_uniform_causal(T), (3, T, T))
    assert 1.0 < lm_measures.mean_attention_rank(uniform) < T
    assert lm_measures.per_input_attention_rank(uniform) == pytest.approx(effective_rank(_uniform_causal(T)))


def test_averaging_distinct_permutations_lowers_the_mean_rank_below_the_per_input_rank():
    shifts = np.stack([np.roll(np.eye(T), k, axis=1) for k in range(T)])  # (N = T, T, T), average = J/T
    assert lm_measures.per_input_attention_rank(shifts) == pytest.approx(T)
    assert lm_measures.mean_attention_rank(shifts) == pytest.approx(1.0)


def test_a_rank_one_kernel_has_static_rank_one_and_whitening_by_identity_changes_nothing():
    rng = np.random.default_rng(0)
    u, v = rng.normal(size=(8, 1)), rng.normal(size=(8, 1))
    assert lm_measures.static_kernel_rank(u @ v.T) == pytest.approx(1.0)
    K = rng.normal(size=(3, 8, 8))
    static = lm_measures.static_kernel_rank(K)
    np.testing.assert_allclose(lm_measures.whitened_kernel_rank(K, np.eye(8)), static)
    np.testing.assert_allclose(lm_measures.whitened_kernel_rank(K, 4 * np.eye(8), side="both"), static)
    projector = np.diag([1.0, 1, 0, 0, 0, 0, 0, 0])  # inputs live in 2 dimensions
    assert np.all(lm_measures.whitened_kernel_rank(K, projector) <= 2 + 1e-9)
    with pytest.raises(ValueError, match="side"):
        lm_measures.whitened_kernel_rank(K, np.eye(8), side="left")
    with pytest.raises(ValueError, match="symmetric"):
        lm_measures.whitened_kernel_rank(K, np.triu(np.ones((8, 8))))


def test_input_covariance_of_isotropic_states_is_near_identity():
    X = np.random.default_rng(1).normal(size=(200, 10, 4))
    np.testing.assert_allclose(lm_measures.input_covariance(X), np.eye(4), atol=0.1)
    with pytest.raises(ValueError, match="two rows"):
        lm_measures.input_covariance(np.ones((1, 4)))


def test_ffn_stable_ranks_are_between_one_and_the_rank():
    W1, W2 = np.random.default_rng(2).normal(size=(2, 8, 32)), np.ones((2, 32, 8))
    s1, s2 = lm_measures.ffn_stable_ranks(W1, W2)
    assert np.all((s1 >= 1) & (s1 <= 8)) and np.allclose(s2, 1.0)


def test_a_random_text_has_a_higher_predicted_rank_than_a_constant_one_and_it_is_deterministic():
    rng = np.random.default_rng(3)
    random_text = rng.integers(0, 12, 20_000)
    constant = np.zeros(20_000, dtype=np.int64)
    assert lm_measures.lag_operator_rank(constant) == 0.0
    r = lm_measures.lag_operator_rank(random_text, lags=4)
    assert r > 5.0 and r == lm_measures.lag_operator_rank(random_text, lags=4)


def test_a_cyclic_text_over_k_symbols_has_predicted_rank_k_minus_one():
    cyclic = np.tile(np.arange(5), 4000)
    op = lm_measures.lag_operator(cyclic, lags=3)
    assert op.effective_rank == pytest.approx(4.0, abs=1e-3)
    assert op.chi2 == pytest.approx([4.0, 4.0, 4.0], abs=1e-2)  # χ² = K − 1 for a deterministic successor


def test_rare_symbols_are_pooled_before_whitening():
    rng = np.random.default_rng(4)
    text = np.append(rng.integers(0, 3, 5000), [7, 8, 9])
    op = lm_measures.lag_operator(text, lags=2, min_count=20)
    assert list(op.symbols) == [0, 1, 2, -1] and op.matrix.shape == (4, 8)


def test_the_ridge_operator_is_causal_and_the_repeat_operator_counts_repeats():
    rng = np.random.default_rng(5)
    text = rng.integers(0, 20, 3000)
    A = lm_measures.ridge_operator(text, context=8, width=16, seed=0)
    assert A.shape == (8, 8) and np.all(np.triu(A, 1) == 0)
    np.testing.assert_array_equal(A, lm_measures.ridge_operator(text, context=8, width=16, seed=0))
    R = lm_measures.repeat_operator(np.tile([0, 1], 500), context=6)
    np.testing.assert_allclose(R[4, :4], [1, 0, 1, 0])  # period-2 text repeats at even lags
    assert np.all(np.triu(R) == 0)
    assert lm_measures.repeat_operator_rank(text, context=8) > 1


def test_correlations_and_the_coefficient_of_variation():
    x = np.array([1.0, 2, 3, 4, 5])
    assert lm_measures.pearson(x, 2 * x + 1) == pytest.approx(1.0)
    assert lm_measures.spearman(x, x**3) == pytest.approx(1.0)
    assert lm_measures.spearman(x, -np.exp(x)) == pytest.approx(-1.0)
    assert lm_measures.spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)  # ties averaged
    assert lm_measures.coefficient_of_variation([2.0, 2.0, 2.0]) == 0.0
    assert lm_measures.coefficient_of_variation([1.0, 3.0]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="constant"):
        lm_measures.pearson([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="length"):
        lm_measures.pearson([1, 2, 3], [1, 2])


def test_measure_charlm_returns_one_row_per_model_layer_and_head():
    model = charlm.CharLM([0, 1], vocab_size=7, context=8, d_model=16)
    tokens = np.random.default_rng(6).integers(0, 7, 400)
    rows = lm_measures.measure_charlm(model, tokens, max_windows=10)
    assert len(rows) == 2 * 2 * 4
    for row in rows:
        assert 1 <= row["static_kernel_rank"] <= 4 + 1e-6  # rank ≤ d_head
        assert 1 <= row["mean_attention_rank"] <= 8 and 1 <= row["per_input_attention_rank"] <= 8
    kernel = model.qk_kernels()[1, 0, 2].double().numpy()
    row = next(r for r in rows if (r["model"], r["layer"], r["head"]) == (1, 0, 2))
    assert row["static_kernel_rank"] == pytest.approx(effective_rank(kernel))
    with torch.no_grad():
        assert lm_measures.measure_charlm(model, tokens, max_windows=10) == rows  # deterministic


def test_a_common_symbol_budget_bounds_every_corpus_by_the_same_rank():
    rng = np.random.default_rng(7)
    small, large = rng.integers(0, 10, 30_000), rng.integers(0, 80, 30_000)
    uncapped = [lm_measures.lag_operator(t, lags=2, symbols=None) for t in (small, large)]
    capped = [lm_measures.lag_operator(t, lags=2, symbols=8) for t in (small, large)]
    assert uncapped[1].effective_rank > 4 * uncapped[0].effective_rank  # noise fills the alphabet
    assert [op.max_rank for op in capped] == [8, 8] and [op.vocab_size for op in capped] == [10, 80]
    assert all(op.effective_rank <= 8 + 1e-9 and 0 < op.normalized_rank <= 1 for op in capped)
    assert capped[1].effective_rank == pytest.approx(capped[0].effective_rank, rel=0.1)


def test_the_budget_keeps_the_most_frequent_symbols_and_pools_the_rest():
    text = np.array([3] * 500 + [1] * 300 + [0] * 200 + [2] * 100)
    np.random.default_rng(8).shuffle(text)
    op = lm_measures.lag_operator(text, lags=1, min_count=1, symbols=2)
    assert list(op.symbols) == [3, 1, -1] and op.matrix.shape == (3, 3)
    with pytest.raises(ValueError, match="symbols"):
        lm_measures.lag_operator(text, symbols=0)


def test_unigram_entropy_is_log_k_for_a_uniform_text_and_zero_for_a_constant_one():
    assert lm_measures.unigram_entropy(np.tile(np.arange(4), 100)) == pytest.approx(np.log(4))
    assert lm_measures.unigram_entropy(np.zeros(50, dtype=np.int64)) == 0.0


def test_the_permutation_threshold_separates_a_strong_from_no_correlation():
    x = np.arange(6.0)
    limit = lm_measures.permutation_threshold(x, x**2)
    assert 0.6 < limit < 0.95 and lm_measures.pearson(x, x**2) > limit
    assert limit == lm_measures.permutation_threshold(x, x**2)  # exact enumeration: deterministic
    with pytest.raises(ValueError, match="≥ 3"):
        lm_measures.permutation_threshold([1, 2], [2, 1])


def test_robust_outliers_flag_only_the_value_that_stands_apart():
    flags = lm_measures.robust_outliers([10.0, 10.5, 9.8, 10.2, 30.0, 10.1])
    assert list(flags) == [False, False, False, False, True, False]
    assert not lm_measures.robust_outliers([1.0, 2.0, 3.0, 4.0]).any()
    assert list(lm_measures.robust_outliers([5.0, 5.0, 5.0, 7.0])) == [False, False, False, True]
