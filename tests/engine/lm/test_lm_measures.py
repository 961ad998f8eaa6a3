import numpy as np
import pytest
import torch

from entropic.engine.lm import charlm
from entropic.engine.lm import measures as lm_measures
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


def test_inverse_simpson_counts_attended_positions_and_the_layer_kernel_sums_heads():
    one_hot = np.broadcast_to(np.eye(T), (3, T, T))
    assert lm_measures.attention_inverse_simpson(one_hot) == pytest.approx(1.0)
    uniform = np.broadcast_to(_uniform_causal(T), (3, T, T))
    assert lm_measures.attention_inverse_simpson(uniform) == pytest.approx(np.arange(1, T + 1).mean())
    heads = np.zeros((4, 8, 8))
    for h in range(4):
        heads[h, h, h] = 1.0  # four rank-1 heads on different directions: the layer has rank 4
    assert lm_measures.layer_kernel_rank(heads) == pytest.approx(4.0)
