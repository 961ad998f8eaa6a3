import math

import numpy as np
import pytest
import torch

from entropic.engine import spectral

MEASURES = [spectral.effective_rank, spectral.energy_effective_rank, spectral.stable_rank,
            spectral.participation_ratio]


def random_matrix(seed, shape=(7, 5)):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("measure", MEASURES)
def test_identity_has_full_rank_under_every_measure(measure):
    assert measure(np.eye(6)) == pytest.approx(6.0)


@pytest.mark.parametrize("measure", MEASURES)
def test_a_rank_one_matrix_has_rank_one(measure):
    u, v = np.arange(1.0, 5.0), np.array([2.0, -1.0, 0.5])
    assert measure(np.outer(u, v)) == pytest.approx(1.0)


def test_effective_ranks_match_hand_computed_values_on_a_known_spectrum():
    M = np.diag([2.0, 1.0, 1.0])
    p = np.array([0.5, 0.25, 0.25])
    assert spectral.effective_rank(M) == pytest.approx(math.exp(-(p * np.log(p)).sum()))
    q = np.array([4, 1, 1]) / 6
    assert spectral.energy_effective_rank(M) == pytest.approx(math.exp(-(q * np.log(q)).sum()))
    assert spectral.stable_rank(M) == pytest.approx(6 / 4)
    assert spectral.participation_ratio(M) == pytest.approx(36 / 18)


def test_sharp_gap_teacher_of_rank_three_has_effective_rank_below_three():
    # eq. (8) with r* = 3: λ = (2, 1.5, 1), so p = (4, 3, 2)/9
    p = np.array([4, 3, 2]) / 9
    assert spectral.effective_rank(np.diag([2.0, 1.5, 1.0, 0.0])) == pytest.approx(math.exp(-(p * np.log(p)).sum()))


@pytest.mark.parametrize("seed", range(10))
def test_measures_are_ordered_stable_energy_shannon_rank(seed):
    M = random_matrix(seed, shape=(8, 6)) @ np.diag([5, 2, 1, 0.5, 0.1, 0.01])
    stable, energy = spectral.stable_rank(M), spectral.energy_effective_rank(M)
    shannon, rank = spectral.effective_rank(M), spectral.numerical_rank(M)
    assert 1 <= stable <= energy + 1e-12 <= shannon + 2e-12 <= rank + 3e-12


@pytest.mark.parametrize("measure", [*MEASURES, spectral.numerical_rank])
def test_measures_are_invariant_to_scale_rotation_and_transpose(measure):
    M = random_matrix(0, shape=(6, 6)) @ np.diag([3, 2, 1, 0.5, 0.2, 0.1])
    Q, _ = np.linalg.qr(random_matrix(1, shape=(6, 6)))
    base = measure(M)
    for variant in (7.5 * M, Q @ M, M @ Q.T, M.T):
        assert measure(variant) == pytest.approx(base, rel=1e-9)


@pytest.mark.parametrize("measure", [*MEASURES, spectral.numerical_rank])
def test_batched_equals_looped_and_torch_equals_numpy(measure):
    batch = np.stack([random_matrix(s) for s in range(4)]).reshape(2, 2, 7, 5)
    batched = measure(torch.tensor(batch))
    assert isinstance(batched, torch.Tensor) and batched.shape == (2, 2)
    looped = np.array([[measure(batch[i, j]) for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(batched.numpy(), looped, rtol=1e-12)


def test_numerical_rank_counts_singular_values_above_the_tolerance():
    M = np.diag([1.0, 1e-3, 1e-9])
    assert spectral.numerical_rank(M) == 2  # default rtol = 3 · float32 eps ≈ 3.6e-7
    assert spectral.numerical_rank(M, rtol=1e-2) == 1
    assert spectral.numerical_rank(M, rtol=0.0, atol=1e-12) == 3


@pytest.mark.parametrize("measure", [*MEASURES, spectral.numerical_rank])
def test_the_zero_matrix_has_rank_zero(measure):
    assert measure(np.zeros((4, 3))) == 0


@pytest.mark.parametrize("bad, message", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN or Inf"),
    (np.array([[np.inf, 0.0], [0.0, 1.0]]), "NaN or Inf"),
    (np.zeros((0, 3)), "non-empty"),
    (np.ones(3), "matrix of shape"),
])
def test_bad_input_raises_a_value_error_naming_the_problem(bad, message):
    for measure in [*MEASURES, spectral.numerical_rank, spectral.singular_values]:
        with pytest.raises(ValueError, match=message):
            measure(bad)


def test_mp_correction_inverts_theorem_8():
    # Theorem 8: R̂ = R + (dim − R)/(2n); the corrected value recovers R from R̂.
    M = np.diag([1.0, 1.0, 1.0, 0.0, 0.0])
    n, dim = 50, 5
    r_hat = spectral.effective_rank(M)
    corrected = spectral.mp_corrected_effective_rank(M, n=n, dim=dim)
    assert corrected + (dim - corrected) / (2 * n) == pytest.approx(r_hat)
    assert corrected < r_hat
    with pytest.raises(ValueError, match="n must be"):
        spectral.mp_corrected_effective_rank(M, n=0)
