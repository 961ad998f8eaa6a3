import numpy as np
import pytest

from entropic.engine.corpus import operators as corpus_operators


def test_a_random_text_has_a_higher_predicted_rank_than_a_constant_one_and_it_is_deterministic():
    rng = np.random.default_rng(3)
    random_text = rng.integers(0, 12, 20_000)
    constant = np.zeros(20_000, dtype=np.int64)
    assert corpus_operators.lag_operator_rank(constant) == 0.0
    r = corpus_operators.lag_operator_rank(random_text, lags=4)
    assert r > 5.0 and r == corpus_operators.lag_operator_rank(random_text, lags=4)


def test_a_cyclic_text_over_k_symbols_has_predicted_rank_k_minus_one():
    cyclic = np.tile(np.arange(5), 4000)
    op = corpus_operators.lag_operator(cyclic, lags=3)
    assert op.effective_rank == pytest.approx(4.0, abs=1e-3)
    assert op.chi2 == pytest.approx([4.0, 4.0, 4.0], abs=1e-2)  # χ² = K − 1 for a deterministic successor


def test_rare_symbols_are_pooled_before_whitening():
    rng = np.random.default_rng(4)
    text = np.append(rng.integers(0, 3, 5000), [7, 8, 9])
    op = corpus_operators.lag_operator(text, lags=2, min_count=20)
    assert list(op.symbols) == [0, 1, 2, -1] and op.matrix.shape == (4, 8)


def test_the_ridge_operator_is_causal_and_the_repeat_operator_counts_repeats():
    rng = np.random.default_rng(5)
    text = rng.integers(0, 20, 3000)
    A = corpus_operators.ridge_operator(text, context=8, width=16, seed=0)
    assert A.shape == (8, 8) and np.all(np.triu(A, 1) == 0)
    np.testing.assert_array_equal(A, corpus_operators.ridge_operator(text, context=8, width=16, seed=0))
    R = corpus_operators.repeat_operator(np.tile([0, 1], 500), context=6)
    np.testing.assert_allclose(R[4, :4], [1, 0, 1, 0])  # period-2 text repeats at even lags
    assert np.all(np.triu(R) == 0)
    assert corpus_operators.repeat_operator_rank(text, context=8) > 1


def test_a_common_symbol_budget_bounds_every_corpus_by_the_same_rank():
    rng = np.random.default_rng(7)
    small, large = rng.integers(0, 10, 30_000), rng.integers(0, 80, 30_000)
    uncapped = [corpus_operators.lag_operator(t, lags=2, symbols=None) for t in (small, large)]
    capped = [corpus_operators.lag_operator(t, lags=2, symbols=8) for t in (small, large)]
    assert uncapped[1].effective_rank > 4 * uncapped[0].effective_rank  # noise fills the alphabet
    assert [op.max_rank for op in capped] == [8, 8] and [op.vocab_size for op in capped] == [10, 80]
    assert all(op.effective_rank <= 8 + 1e-9 and 0 < op.normalized_rank <= 1 for op in capped)
    assert capped[1].effective_rank == pytest.approx(capped[0].effective_rank, rel=0.1)


def test_the_budget_keeps_the_most_frequent_symbols_and_pools_the_rest():
    text = np.array([3] * 500 + [1] * 300 + [0] * 200 + [2] * 100)
    np.random.default_rng(8).shuffle(text)
    op = corpus_operators.lag_operator(text, lags=1, min_count=1, symbols=2)
    assert list(op.symbols) == [3, 1, -1] and op.matrix.shape == (3, 3)
    with pytest.raises(ValueError, match="symbols"):
        corpus_operators.lag_operator(text, symbols=0)
