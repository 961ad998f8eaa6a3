import math

import pytest
import torch

from entropic.engine import spectral
from entropic.engine.synthetic import tasks


@pytest.mark.parametrize("r_star, expected", [(1, [2.0]), (3, [2.0, 1.5, 1.0]), (5, [2.0, 1.75, 1.5, 1.25, 1.0])])
def test_sharp_spectrum_follows_equation_8(r_star, expected):
    assert tasks.teacher_spectrum(r_star, "sharp").tolist() == pytest.approx(expected)


def test_power_law_and_flat_spectra_follow_appendix_d():
    assert tasks.teacher_spectrum(4, "power_law").tolist() == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])
    assert tasks.teacher_spectrum(4, "flat").tolist() == [1.0] * 4


def test_unknown_spectrum_and_bad_rank_raise():
    with pytest.raises(ValueError, match="unknown spectrum"):
        tasks.teacher_spectrum(3, "steep")
    with pytest.raises(ValueError, match="r_star"):
        tasks.teacher_spectrum(0)


@pytest.mark.parametrize("profile", tasks.SPECTRA)
def test_teacher_operator_has_rank_r_star_and_the_requested_spectrum(profile):
    A = tasks.low_rank_operator(12, 4, profile, torch.Generator().manual_seed(0))
    assert spectral.numerical_rank(A) == 4
    eigenvalues = torch.linalg.eigvalsh(A).flip(0)[:4]
    torch.testing.assert_close(eigenvalues, tasks.teacher_spectrum(4, profile))
    torch.testing.assert_close(A, A.T)


def test_orthonormal_basis_has_orthonormal_columns():
    U = tasks.orthonormal_basis(10, 4, torch.Generator().manual_seed(3))
    torch.testing.assert_close(U.T @ U, torch.eye(4, dtype=U.dtype))


def test_surrogate_task_has_the_documented_shapes_rank_and_noise_floor():
    task = tasks.make_surrogate_task(T=16, d=12, r_star=3, n=50, sigma=0.05, seed=0)
    assert task.X.shape == task.Y.shape == (50, 16, 12)
    assert task.operator.shape == (16, 16) and task.V.shape == (12, 12)
    assert spectral.numerical_rank(task.operator) == 3
    assert task.noise_floor == pytest.approx(0.05**2 * 16 * 12)


def test_surrogate_noise_is_exactly_the_residual_of_the_teacher():
    task = tasks.make_surrogate_task(T=8, d=6, r_star=2, n=4000, sigma=0.1, seed=1)
    residual = task.Y - task.operator @ task.X @ task.V
    per_sample = residual.pow(2).sum((1, 2)).mean()
    assert float(per_sample) == pytest.approx(task.noise_floor, rel=0.05)


@pytest.mark.parametrize("teacher", tasks.TEACHERS)
def test_attention_task_follows_equation_9(teacher):
    task = tasks.make_attention_task(teacher, T=6, d=8, r_star=2, n=20, sigma=0.0, seed=2)
    scores = task.X @ task.operator @ task.X.transpose(1, 2) / math.sqrt(8)
    mixer = scores.softmax(-1) if teacher == "softmax_qk" else scores
    torch.testing.assert_close(task.Y, mixer @ task.X @ task.V, rtol=1e-4, atol=1e-5)
    assert spectral.numerical_rank(task.operator) == 2


@pytest.mark.parametrize("make", [
    lambda seed: tasks.make_surrogate_task(8, 6, 2, 10, 0.05, seed),
    lambda seed: tasks.make_attention_task("softmax_qk", 8, 6, 2, 10, 0.05, seed),
])
def test_same_seed_gives_identical_tensors_and_another_seed_does_not(make):
    a, b, c = make(5), make(5), make(6)
    for name in ("X", "Y", "operator", "V"):
        assert torch.equal(getattr(a, name), getattr(b, name))
        assert not torch.equal(getattr(a, name), getattr(c, name))


@pytest.mark.parametrize("kwargs, message", [
    (dict(T=4, d=6, r_star=5, n=10, sigma=0.05), "r_star=5 exceeds"),
    (dict(T=8, d=6, r_star=2, n=10, sigma=-0.1), "sigma must be non-negative"),
    (dict(T=8, d=6, r_star=2, n=0, sigma=0.1), "n must be a positive"),
])
def test_impossible_surrogate_parameters_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tasks.make_surrogate_task(seed=0, **kwargs)


def test_unknown_teacher_raises():
    with pytest.raises(ValueError, match="unknown teacher"):
        tasks.make_attention_task("relu_qk", 8, 6, 2, 10, 0.05, 0)


def test_the_appendix_d_spectra_have_the_papers_energy_ranks_at_r_star_4():
    """Table 5's teacher values: flat 4.00, sharp 3.57, power-law 2.43 (eq. 2 of K* = U diag(λ) Uᵀ)."""
    ranks = {p: float(spectral.energy_effective_rank(torch.diag(tasks.teacher_spectrum(4, p))))
             for p in ("flat", "sharp", "power_law")}
    assert ranks["flat"] == pytest.approx(4.0)
    assert round(ranks["sharp"], 2) == 3.57 and round(ranks["power_law"], 2) == 2.43
