import pytest
import torch

from entropic.engine import spectral
from entropic.engine.synthetic import kernel_regression


@pytest.mark.parametrize("tau", [0.0, 0.1, 0.5, 1.0, 3.0])
def test_soft_thresholding_never_increases_either_rank(tau):
    M = torch.randn(8, 8, generator=torch.Generator().manual_seed(8), dtype=torch.float64)
    shrunk = kernel_regression.singular_value_soft_threshold(M, tau)
    assert spectral.numerical_rank(shrunk) <= spectral.numerical_rank(M)
    assert float(spectral.energy_effective_rank(shrunk)) <= float(spectral.energy_effective_rank(M)) + 1e-12
    assert torch.allclose(torch.linalg.svdvals(shrunk), (torch.linalg.svdvals(M) - tau).clamp_min(0), atol=1e-12)
