import math

import pytest
import torch

from entropic.engine import spectral
from entropic.engine.synthetic import attention_estimators as estimators
from entropic.engine.synthetic import kernel_regression
from entropic.engine.synthetic.tasks import attention_scores, make_attention_task, make_surrogate_task


def _relative_error(estimate, truth):
    return float((estimate - truth.double()).norm() / truth.double().norm())


@pytest.mark.parametrize("r_star", [1, 3])
def test_v_known_recovers_a_noiseless_linear_teacher_exactly(r_star):
    task = make_attention_task("linear_qk", T=6, d=8, r_star=r_star, n=150, sigma=0.0, seed=r_star)
    estimate = estimators.attention_kernel_v_known(task.X, task.Y, task.V, "linear_qk")
    assert _relative_error(estimate.kernel, task.operator) < 1e-5
    assert estimate.numerical_rank == r_star
    assert estimate.mixing_identifiable and estimate.clamped_fraction == 0.0


@pytest.mark.parametrize("r_star", [1, 2, 4])
def test_v_known_numerical_rank_equals_r_star_under_noise(r_star):
    task = make_attention_task("linear_qk", T=6, d=8, r_star=r_star, n=300, sigma=0.05, seed=10 + r_star)
    assert estimators.attention_kernel_v_known(task.X, task.Y, task.V, "linear_qk").numerical_rank == r_star


def test_noise_edge_of_the_kernel_grows_with_the_noise():
    edges = [estimators.attention_kernel_v_known(t.X, t.Y, t.V, "linear_qk").noise_edge
             for t in (make_attention_task("linear_qk", 6, 8, 2, 200, s, 0) for s in (0.01, 0.1))]
    assert edges[1] > 5 * edges[0]


def test_softmax_log_inversion_recovers_a_noiseless_teacher():
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=2, n=200, sigma=0.0, seed=3)
    # every true softmax weight is positive, so a floor far below them leaves the inversion exact
    exact = estimators.attention_kernel_v_known(task.X, task.Y, task.V, "softmax_qk", floor=1e-30)
    assert exact.clamped_fraction == 0.0
    assert _relative_error(exact.kernel, task.operator) < 1e-4
    assert exact.numerical_rank == 2


def test_floor_clamping_is_reported_as_a_fraction():
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=2, n=100, sigma=0.2, seed=4)
    mixing = estimators.recover_mixing(task.X, task.Y, task.V).mixing
    floor = 0.1 / 6
    estimate = estimators.attention_kernel_v_known(task.X, task.Y, task.V, "softmax_qk", floor=floor)
    assert estimate.clamped_fraction == pytest.approx(float((mixing < floor).double().mean()))
    assert 0.0 < estimate.clamped_fraction < 1.0


def test_mixing_recovery_batched_equals_per_sample_least_squares():
    task = make_attention_task("linear_qk", T=5, d=7, r_star=2, n=4, sigma=0.1, seed=5)
    mixing = estimators.recover_mixing(task.X, task.Y, task.V).mixing
    for n in range(4):
        Z, Y = task.X[n].double() @ task.V.double(), task.Y[n].double()
        looped = torch.linalg.lstsq(Z.T, Y.T).solution.T  # min ‖M Z − Y‖ over M
        assert torch.allclose(mixing[n], looped, atol=1e-9)


def test_mixing_is_flagged_unidentifiable_when_tokens_exceed_the_width():
    task = make_attention_task("linear_qk", T=9, d=4, r_star=1, n=20, sigma=0.0, seed=6)
    recovered = estimators.recover_mixing(task.X, task.Y, task.V)
    assert not recovered.identifiable
    assert estimators.recover_mixing(task.X[:, :4], task.Y[:, :4], task.V).identifiable is True
    # the pseudo-inverse solution still reproduces the data exactly (it differs from M only off range(Z))
    Z = task.X.double() @ task.V.double()
    assert torch.allclose(recovered.mixing @ Z, task.Y.double(), atol=1e-4)
    assert not estimators.attention_kernel_v_known(task.X, task.Y, task.V, "linear_qk").mixing_identifiable


def test_v_unknown_energy_rank_tracks_the_linear_teacher():
    task = make_attention_task("linear_qk", T=6, d=8, r_star=3, n=300, sigma=0.01, seed=7)
    fit = estimators.attention_kernel_v_unknown(task.X, task.Y, "linear_qk")
    teacher = float(spectral.energy_effective_rank(task.operator.double()))
    assert fit.converged and fit.iterations >= 1
    assert fit.energy_effective_rank == pytest.approx(teacher, abs=0.05)
    assert fit.numerical_rank == 3
    # K and V are identified only up to K → aK, V → V/a; the product map is what must fit
    assert fit.loss < 2 * task.sigma**2


@pytest.mark.parametrize("teacher", ["linear_qk", "softmax_qk"])
def test_shrinkage_does_not_increase_the_v_unknown_rank(teacher):
    task = make_attention_task(teacher, T=6, d=8, r_star=2, n=200, sigma=0.05, seed=9)
    plain = estimators.attention_kernel_v_unknown(task.X, task.Y, teacher, max_iter=15)
    shrunk = estimators.attention_kernel_v_unknown(task.X, task.Y, teacher, shrinkage="auto", max_iter=15)
    assert shrunk.shrinkage > 0 and plain.shrinkage == 0
    assert shrunk.energy_effective_rank <= plain.energy_effective_rank + 1e-9
    assert shrunk.numerical_rank <= plain.numerical_rank


def test_shrinkage_that_kills_the_kernel_stops_unconverged():
    task = make_attention_task("linear_qk", T=5, d=6, r_star=1, n=50, sigma=0.05, seed=1)
    fit = estimators.attention_kernel_v_unknown(task.X, task.Y, "linear_qk", shrinkage=1e6)
    assert not fit.converged and fit.iterations == 1
    assert fit.numerical_rank == 0 and fit.energy_effective_rank == 0.0


def test_realized_mixer_of_a_linear_teacher_is_much_higher_rank_than_of_a_softmax_one():
    T = 8
    ranks = {}
    for teacher in ("linear_qk", "softmax_qk"):
        task = make_attention_task(teacher, T=T, d=10, r_star=1, n=400, sigma=0.05, seed=11)
        ranks[teacher] = estimators.realized_mixer_energy_rank(
            estimators.recover_mixing(task.X, task.Y, task.V).mixing)
    assert ranks["linear_qk"] > T / 2 > 2 > ranks["softmax_qk"] >= 1


def test_data_only_realized_mixer_matches_the_kernel_one_without_noise():
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=3, n=100, sigma=0.0, seed=12)
    recovered = estimators.recover_mixing(task.X, task.Y, task.V).mixing
    reference = attention_scores(task.X.double(), task.operator.double(), softmax=True)
    assert estimators.realized_mixer_energy_rank(recovered) == pytest.approx(
        estimators.realized_mixer_energy_rank(reference), rel=1e-5)


def test_predict_rank_returns_one_documented_row_and_is_deterministic():
    task = make_attention_task("softmax_qk", T=6, d=8, r_star=2, n=120, sigma=0.05, seed=13)
    row = estimators.predict_rank(task, max_iter=5)
    assert row == estimators.predict_rank(task, max_iter=5)
    documented = estimators.predict_rank.__doc__
    assert all(key in documented for key in row)
    assert row["teacher_energy_rank"] == pytest.approx(float(spectral.energy_effective_rank(task.operator)))
    assert all(isinstance(v, bool | int) or math.isfinite(v) for v in row.values())
    assert row["v_unknown_iterations"] <= 5


def _small(teacher="linear_qk"):
    return make_attention_task(teacher, T=4, d=5, r_star=1, n=30, sigma=0.1, seed=0)


def test_estimators_reject_mismatched_shapes():
    task = _small()
    with pytest.raises(ValueError, match=r"same \(N, T, D\) shape.*\(30, 4, 5\).*\(30, 4, 4\)"):
        estimators.attention_kernel_v_known(task.X, task.Y[..., :4], task.V, "linear_qk")
    with pytest.raises(ValueError, match=r"V must have shape \(D, D\) = \(5, 5\).*\(4, 4\)"):
        estimators.recover_mixing(task.X, task.Y, task.V[:4, :4])
    with pytest.raises(ValueError, match=r"X must be a non-empty \(N, T, D\).*\(4, 5\)"):
        estimators.attention_kernel_v_unknown(task.X[0], task.Y[0], "linear_qk")
    with pytest.raises(ValueError, match=r"mixing must be a non-empty \(N, T, T\).*\(30, 4, 5\)"):
        estimators.realized_mixer_energy_rank(task.X)


def test_estimators_reject_bad_arguments():
    task = _small()
    X, Y, V = task.X, task.Y, task.V
    cases = [
        (lambda: estimators.attention_kernel_v_known(X, Y, V, "softmax"), "unknown teacher 'softmax'"),
        (lambda: estimators.attention_kernel_v_known(X, Y, V, "softmax_qk", floor=0.0), "floor.*0.0"),
        (lambda: estimators.attention_kernel_v_unknown(X, Y, "linear_qk", tol=-1.0), "tol.*-1.0"),
        (lambda: estimators.attention_kernel_v_unknown(X, Y, "linear_qk", max_iter=0), "max_iter.*0"),
        (lambda: estimators.attention_kernel_v_unknown(X, Y, "linear_qk", shrinkage="big"), "shrinkage.*'big'"),
        (lambda: estimators.attention_kernel_v_unknown(X, Y, "linear_qk", shrinkage=-0.1), "shrinkage.*-0.1"),
        (lambda: kernel_regression.singular_value_soft_threshold(V, float("nan")), "tau.*nan"),
        (lambda: estimators.attention_kernel_v_known(X * float("nan"), Y, V, "linear_qk"), "NaN"),
        (lambda: estimators.attention_kernel_v_known(X[:1], Y[:1], V, "linear_qk"), "too few samples"),
        (lambda: estimators.predict_rank(make_surrogate_task(4, 5, 1, 10, 0.1, 0)), "attention task.*'surrogate'"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
