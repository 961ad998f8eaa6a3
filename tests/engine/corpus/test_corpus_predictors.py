import numpy as np
import pytest

from entropic.engine.corpus import predictors as corpus_predictors


def test_unigram_entropy_is_log_k_for_a_uniform_text_and_zero_for_a_constant_one():
    assert corpus_predictors.unigram_entropy(np.tile(np.arange(4), 100)) == pytest.approx(np.log(4))
    assert corpus_predictors.unigram_entropy(np.zeros(50, dtype=np.int64)) == 0.0


def _markov(order: int, n: int = 60_000, symbols: int = 6, noise: float = 0.5, seed: int = 0) -> np.ndarray:
    """With probability 1 − ``noise`` x_t copies one of x_{t−1} … x_{t−order} (chosen uniformly), else it is
    a fresh random symbol: a chain whose dependence reaches exactly ``order`` characters back."""
    rng = np.random.default_rng(seed)
    x = list(rng.integers(0, symbols, order))
    for _ in range(n - order):
        x.append(int(rng.integers(0, symbols)) if rng.random() < noise else x[-int(rng.integers(1, order + 1))])
    return np.array(x)


def test_lag_mi_finds_no_informative_lag_in_iid_text_and_more_lags_for_longer_dependence():
    iid = corpus_predictors.lag_mi(np.random.default_rng(1).integers(0, 6, 60_000), max_lag=12,
                                   null_permutations=20)
    assert iid.informative_lags <= 1 and iid.effective_lags <= 1 and iid.total < 1e-3
    chains = [corpus_predictors.lag_mi(_markov(order), max_lag=16) for order in (1, 2, 4, 8)]
    counts = [chain.effective_lags for chain in chains]
    assert counts == sorted(counts) and counts[0] < 3 < 8 < counts[-1]
    first = chains[0]
    assert first.mi[0] > first.mi[1] > first.mi[2]  # an order-1 chain forgets geometrically


def test_the_lag_mi_operator_is_causal_toeplitz_and_its_rank_is_zero_without_dependence():
    mi = corpus_predictors.lag_mi(_markov(2), max_lag=5)
    A = corpus_predictors.lag_mi_operator(mi, 8)
    assert np.all(np.triu(A) == 0) and A[3, 2] == mi.excess[0] and A[7, 2] == mi.excess[4] and A[7, 1] == 0
    flat = corpus_predictors.lag_mi(np.random.default_rng(2).integers(0, 6, 40_000), max_lag=5)
    if flat.total == 0:
        assert corpus_predictors.lag_mi_operator_rank(flat, 8) == 0.0
    with pytest.raises(ValueError, match="max_lag"):
        corpus_predictors.lag_mi(np.arange(10) % 3, max_lag=10)
    with pytest.raises(ValueError, match="size"):
        corpus_predictors.lag_mi_operator(mi, 1)


def test_lag_mi_is_deterministic_for_a_seed():
    text = _markov(3, n=20_000)
    a, b = corpus_predictors.lag_mi(text, 8, seed=3), corpus_predictors.lag_mi(text, 8, seed=3)
    np.testing.assert_array_equal(a.mi, b.mi)
    assert (a.null_q95, a.effective_lags) == (b.null_q95, b.effective_lags)


def _english(chars: int = 60_000) -> np.ndarray:
    from entropic.engine.corpus import corpora

    return corpora.load_corpus("english", max_chars=chars).tokens


@pytest.mark.parametrize("stream", ["iid", "shuffled english"])
def test_the_max_over_lags_null_reads_no_structure_where_there_is_none_in_95_percent_of_draws(stream):
    english = _english() if stream == "shuffled english" else None
    clean = 0
    draws = 200  # the rule's false-positive rate is 1/40: 5 expected, 10 allowed
    for draw in range(draws):
        rng = np.random.default_rng(1000 + draw)
        tokens = rng.integers(0, 16, 6_000) if english is None else rng.permutation(english)[:6_000]
        mi = corpus_predictors.lag_mi(tokens, max_lag=12, null_permutations=39, seed=draw)  # the shift null
        clean += mi.informative_lags == 0 and mi.effective_lags == 0 and \
            corpus_predictors.lag_mi_operator_rank(mi, 12) == 0
    assert clean >= 0.95 * draws


def test_the_lag1_rule_counts_noise_as_structure_where_the_max_rule_does_not():
    tokens = np.random.default_rng(7).integers(0, 16, 200_000)
    old = corpus_predictors.lag_mi(tokens, max_lag=64, null_permutations=20, rule="lag1")
    new = corpus_predictors.lag_mi(tokens, max_lag=64, null_permutations=20, rule="max")
    assert old.informative_lags > 0 and old.effective_lags > 1  # the uncorrected rule passes noise lags
    assert new.informative_lags == 0 and new.effective_lags == 0


def _copy_chain(n: int = 200_000, copy: float = 0.6, symbols: int = 16, seed: int = 0) -> np.ndarray:
    """x_t = x_{t−1} with probability ``copy``, else a uniform symbol: dependence decays as copy^k."""
    rng = np.random.default_rng(seed)
    fresh, copies = rng.integers(0, symbols, n), rng.random(n) < copy
    out = fresh.copy()
    for t in range(1, n):
        if copies[t]:
            out[t] = out[t - 1]
    return out


def test_the_shift_null_keeps_an_autocorrelated_streams_bias_where_a_shuffled_null_counts_it_as_dependence():
    chain = _copy_chain()
    shifted = corpus_predictors.lag_mi(chain, max_lag=64, null_permutations=39, rule="shift")
    shuffled = corpus_predictors.lag_mi(chain, max_lag=64, null_permutations=39, rule="max")
    # 0.6^k of the dependence is left at lag k: a few lags carry it, and the far ones are at the plug-in bias
    assert 3 <= shifted.informative_lags <= 20 and shifted.mi[0] > shifted.threshold > shifted.mi[-1]
    assert shuffled.informative_lags == 64  # the shuffled null's bias is too low: every lag passes
    assert shifted.null_mean > shuffled.null_mean
    assert corpus_predictors.lag_mi(np.random.default_rng(3).permutation(chain), max_lag=64, null_permutations=39,
                                    rule="shift").informative_lags == 0


def test_the_max_rule_keeps_the_dependence_of_a_markov_chain_and_refuses_a_weak_null():
    chain = corpus_predictors.lag_mi(_markov(2), max_lag=8, null_permutations=19)
    assert chain.informative_lags >= 2 and chain.effective_lags > 1
    with pytest.raises(ValueError, match="19"):
        corpus_predictors.lag_mi(_markov(2), max_lag=8, null_permutations=10)
    with pytest.raises(ValueError, match="rule"):
        corpus_predictors.lag_mi(_markov(2), max_lag=8, rule="bonferroni")


def test_conditional_entropy_is_at_most_the_unigram_entropy_and_zero_for_a_deterministic_successor():
    rng = np.random.default_rng(0)
    iid = rng.integers(0, 8, 100_000)
    assert corpus_predictors.conditional_entropy(iid) == pytest.approx(np.log(8), abs=2e-3)
    cyclic = np.tile(np.arange(5), 2000)
    assert corpus_predictors.conditional_entropy(cyclic) == pytest.approx(0.0, abs=1e-12)
    text = _markov(1)
    assert corpus_predictors.conditional_entropy(text) < corpus_predictors.unigram_entropy(text)
