import pytest
import torch

from entropic.engine import spectral
from entropic.engine.synthetic import rank_reading, softmax_estimators
from entropic.engine.synthetic.tasks import make_attention_task


def test_the_split_half_edge_grows_with_the_noise():
    edges = []
    for sigma in (0.02, 0.2):
        task = make_attention_task("softmax_qk", T=6, d=8, r_star=2, n=300, sigma=sigma, seed=5)
        edges.append(softmax_estimators.kernel_least_squares(task.X, task.Y, task.V).noise_edge)
    assert edges[1] > 5 * edges[0]


def test_read_ranks_counts_above_the_threshold_and_truncates():
    K = torch.diag(torch.tensor([3.0, 2.0, 1e-3, 0.0], dtype=torch.float64))
    assert rank_reading.read_ranks(K, 0.01)[:2] == (2, pytest.approx(float(spectral.energy_effective_rank(K[:2, :2]))))
    rank, energy, raw = rank_reading.read_ranks(torch.eye(5), 0.0)
    assert rank == 5 and energy == pytest.approx(5.0) and raw == pytest.approx(5.0)
    assert rank_reading.read_ranks(K, 10.0)[:2] == (0, 0.0)
    rotation = torch.linalg.qr(torch.randn(4, 4, dtype=torch.float64))[0]
    assert rank_reading.read_ranks(rotation @ K @ rotation.T, 0.01)[0] == 2  # rotation invariant
    with pytest.raises(ValueError, match="threshold"):
        rank_reading.read_ranks(K, -1.0)


def test_the_gavish_donoho_threshold_is_omega_times_the_median_and_refuses_bad_input():
    values = torch.tensor([5.0, 1.0, 0.4, 0.2, 0.1])
    assert rank_reading.gavish_donoho_threshold(values) == pytest.approx(2.858 * 0.4)
    even = torch.tensor([4.0, 3.0, 1.0, 0.0])
    assert rank_reading.gavish_donoho_threshold(even) == pytest.approx(2.858 * 2.0)  # the middle two's mean
    for bad in (torch.tensor([]), torch.tensor([1.0, -0.1]), torch.tensor([float("nan")])):
        with pytest.raises(ValueError):
            rank_reading.gavish_donoho_threshold(bad)
