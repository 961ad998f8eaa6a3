import math
from dataclasses import dataclass

import pytest
import torch

from entropic.engine import spectral
from entropic.engine.synthetic import rank_reading
from entropic.engine.synthetic import softmax_estimators as estimators
from entropic.engine.synthetic.tasks import make_attention_task

FITS = [(name, function, v_known) for name, (function, v_known) in estimators.ESTIMATORS.items()]


def _teacher_rank(task) -> float:
    return float(spectral.energy_effective_rank(task.operator.double()))


@pytest.mark.parametrize("name, function, v_known", FITS)
@pytest.mark.parametrize("r_star, seed", [(1, 0), (3, 2)])
def test_each_estimator_recovers_a_noiseless_softmax_teacher(name, function, v_known, r_star, seed):
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=r_star, n=200, sigma=0.0, seed=seed)
    fit = function(task.X, task.Y, task.V if v_known else None)
    assert fit.numerical_rank == r_star, name
    assert fit.energy_effective_rank == pytest.approx(_teacher_rank(task), abs=0.01), name
    assert fit.converged and fit.loss < 1e-4 * float(task.Y.double().pow(2).mean())


@pytest.mark.parametrize("name, function, v_known", FITS)
def test_each_estimator_reads_r_star_under_noise(name, function, v_known):
    task = make_attention_task("softmax_qk", T=8, d=10, r_star=3, n=600, sigma=0.05, seed=4)
    fit = function(task.X, task.Y, task.V if v_known else None)
    assert fit.numerical_rank == 3, name
    assert abs(fit.energy_effective_rank - _teacher_rank(task)) < 0.15, name
    assert fit.raw_energy_effective_rank > fit.energy_effective_rank  # the noise directions add energy rank


@dataclass(frozen=True)
class Disguised:
    """A teacher whose rank, kernel and noise level are replaced by junk: only X, Y and V remain."""

    kind: str
    X: torch.Tensor
    Y: torch.Tensor
    V: torch.Tensor
    operator: torch.Tensor
    r_star: int
    sigma: float


def test_hiding_the_teachers_rank_kernel_and_noise_changes_no_output_bit():
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=2, n=120, sigma=0.05, seed=1)
    junk = Disguised("softmax_qk", task.X, task.Y, task.V, torch.full((3, 3), math.nan), -7, 123.0)
    seen, hidden = estimators.estimate_task(task), estimators.estimate_task(junk)
    assert set(seen) == set(estimators.ESTIMATORS)
    for name in seen:
        for key in seen[name]:
            if key != "seconds":  # wall time, the one output that is not a function of the data
                assert seen[name][key] == hidden[name][key], (name, key)


def test_the_same_seed_gives_the_same_numbers_and_the_seed_only_moves_the_split():
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=2, n=120, sigma=0.05, seed=1)
    a, b = (estimators.kernel_least_squares(task.X, task.Y, seed=0) for _ in range(2))
    c = estimators.kernel_least_squares(task.X, task.Y, seed=1)
    assert torch.equal(a.kernel, b.kernel) and a.noise_edge == b.noise_edge
    assert torch.equal(a.kernel, c.kernel) and a.noise_edge != c.noise_edge


@pytest.mark.parametrize("function", [estimators.kernel_least_squares, estimators.kernel_logistic])
def test_mismatched_or_bad_inputs_are_rejected_with_the_offending_shape(function):
    X = torch.randn(20, 4, 6)
    with pytest.raises(ValueError, match=r"same \(N, T, D\) shape"):
        function(X, torch.randn(20, 4, 7))
    with pytest.raises(ValueError, match=r"V must have shape \(D, D\) = \(6, 6\)"):
        function(X, X, torch.eye(5))
    with pytest.raises(ValueError, match="non-empty"):
        function(torch.randn(20, 6), torch.randn(20, 6))
    with pytest.raises(ValueError, match="at least 4 samples"):
        function(X[:3], X[:3])
    with pytest.raises(ValueError, match="at least 2 tokens"):
        function(X[:, :1], X[:, :1])
    with pytest.raises(ValueError, match="NaN"):
        function(X, torch.full_like(X, math.nan))
    with pytest.raises(ValueError, match="tol"):
        function(X, X, tol=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        function(X, X, max_iter=0)


def test_the_logistic_fit_refuses_more_tokens_than_width():
    X = torch.randn(20, 7, 6)
    with pytest.raises(ValueError, match="T > D"):
        estimators.kernel_logistic(X, X)


def test_a_logistic_fit_that_runs_off_is_a_value_error_naming_it(monkeypatch):
    """Rows M̂ with negative entries can make the convex cross-entropy unbounded below (at T = D = 32 one
    V-unknown task of the held-out grid does): the fit says so instead of crashing in LAPACK."""
    task = make_attention_task("softmax_qk", T=4, d=6, r_star=1, n=40, sigma=0.1, seed=0)
    monkeypatch.setattr(estimators, "lbfgs", lambda objective, K0, tol, max_iter: (K0 + math.inf, 1, False))
    for V in (task.V, None):
        with pytest.raises(ValueError, match="diverged"):
            estimators.kernel_logistic(task.X, task.Y, V)


def test_estimate_task_needs_a_softmax_task_and_known_names():
    task = make_attention_task("linear_qk", T=4, d=4, r_star=1, n=10, sigma=0.1, seed=0)
    with pytest.raises(ValueError, match="softmax_qk"):
        estimators.estimate_task(task)
    soft = make_attention_task("softmax_qk", T=4, d=4, r_star=1, n=10, sigma=0.1, seed=0)
    with pytest.raises(ValueError, match="unknown estimator"):
        estimators.estimate_task(soft, ["v_unknown_magic"])


def test_the_cross_entropy_is_convex_in_k_even_with_negative_targets():
    generator = torch.Generator().manual_seed(0)
    X = torch.randn(30, 5, 6, generator=generator, dtype=torch.float64)
    M = torch.randn(30, 5, 5, generator=generator, dtype=torch.float64) * 0.5 + 0.2  # rows with negative entries
    objective = estimators._cross_entropy(X, M)
    A, B = (torch.randn(6, 6, generator=generator, dtype=torch.float64) for _ in range(2))
    values = torch.stack([objective(A + t * B) for t in torch.linspace(-2, 2, 41, dtype=torch.float64)])
    assert (values[:-2] - 2 * values[1:-1] + values[2:] >= -1e-12).all()


def test_the_value_step_recovers_v_exactly_without_noise():
    task = make_attention_task("softmax_qk", T=5, d=6, r_star=2, n=50, sigma=0.0, seed=3)
    X, Y = task.X.double(), task.Y.double()
    V = estimators.value_step(X, estimators.mixing(X, task.operator.double()), Y)
    assert torch.allclose(V, task.V.double(), atol=1e-5)


def test_the_logistic_fit_reads_small_n_on_all_samples_where_a_half_sample_fit_diverges():
    """The frontier page's own example (a phase cell: n = 100, σ = 0.2, d = 32, r* = 8), called from the library
    as the page calls it: a half-sample fit diverges, the fit on all n samples does not, and the estimator reads
    r* at the Gavish–Donoho threshold, saying so in its result; read by the split-half rule alone, it refuses."""
    task = make_attention_task("softmax_qk", 16, 32, 8, 100, 0.2, 0, "sharp")
    fit = estimators.kernel_logistic(task.X, task.Y, None)
    assert fit.reading == "gavish_donoho" and "diverged" in fit.half_sample_failure
    assert fit.numerical_rank == 8 and math.isnan(fit.noise_edge)
    assert fit.threshold == pytest.approx(rank_reading.gavish_donoho_threshold(torch.linalg.svdvals(fit.kernel)))
    with pytest.raises(ValueError, match="diverged"):
        estimators.kernel_logistic(task.X, task.Y, None, reading="split_half")


def test_the_logistic_fit_says_it_read_the_split_half_rule_where_the_halves_fit():
    task = make_attention_task("softmax_qk", T=8, d=10, r_star=3, n=600, sigma=0.05, seed=4)
    fit = estimators.kernel_logistic(task.X, task.Y, task.V)
    assert fit.reading == "split_half" and fit.half_sample_failure == "" and fit.noise_edge > 0
    strict = estimators.kernel_logistic(task.X, task.Y, task.V, reading="split_half")
    assert torch.equal(strict.kernel, fit.kernel) and strict.numerical_rank == fit.numerical_rank == 3
    with pytest.raises(ValueError, match="reading must be one of"):
        estimators.kernel_logistic(task.X, task.Y, task.V, reading="gavish_donoho")
