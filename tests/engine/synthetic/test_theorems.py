"""The theorems of the linear surrogate hold on the instances the checks draw, and bad input raises."""

import math

import numpy as np
import pytest

from entropic.engine.synthetic import theorems


def _teacher(T=6, D=5, r_star=3, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((T, r_star)))
    W, _ = np.linalg.qr(rng.standard_normal((T, r_star)))
    A_star = (U * np.array([2.0, 1.3, 0.7][:r_star])) @ W.T
    return A_star, rng.standard_normal((D, D)) / math.sqrt(D), rng


def _monte_carlo_excess(A_star, V_star, predict, cov_T, cov_D, n=40_000, seed=1):
    rng = np.random.default_rng(seed)
    T, D = A_star.shape[0], V_star.shape[0]
    root_T, root_D = np.linalg.cholesky(cov_T), np.linalg.cholesky(cov_D)
    X = root_T @ rng.standard_normal((n, T, D)) @ root_D.T  # Cov(vec X) = cov_D ⊗ cov_T
    return float(np.mean(np.sum((A_star @ X @ V_star - predict(X)) ** 2, axis=(1, 2))))


def test_population_excess_agrees_with_a_monte_carlo_estimate_under_separable_covariances():
    A_star, V_star, rng = _teacher()
    A, V = rng.standard_normal((6, 6)), rng.standard_normal((5, 5))
    cov_T, cov_D = theorems.random_covariance(6, 1.5, rng), theorems.random_covariance(5, 1.5, rng)
    exact = theorems.population_excess(A_star, V_star, A, V, cov_T, cov_D)
    estimate = _monte_carlo_excess(A_star, V_star, lambda X: A @ X @ V, cov_T, cov_D)
    assert estimate == pytest.approx(exact, rel=0.03)


def test_the_rank_r_optimum_is_reached_by_its_minimizer_and_beaten_by_no_other_rank_r_model():
    A_star, V_star, rng = _teacher()
    cov_T, cov_D = theorems.random_covariance(6, 1.0, rng), theorems.random_covariance(5, 1.0, rng)
    for r in (1, 2):
        optimum, A, V = theorems.rank_r_optimum(A_star, V_star, r, cov_T, cov_D)
        assert np.linalg.matrix_rank(A) == r
        assert theorems.population_excess(A_star, V_star, A, V, cov_T, cov_D) == pytest.approx(optimum, rel=1e-10)
        for _ in range(200):  # random rank-r models, and small rank-r perturbations of the minimizer
            P, Q = rng.standard_normal((6, r)), rng.standard_normal((6, r))
            for A_try, V_try in ((P @ Q.T, rng.standard_normal((5, 5))),
                                 (theorems.truncate(A + 0.05 * P @ Q.T, r), V + 0.05 * rng.standard_normal((5, 5)))):
                assert theorems.population_excess(A_star, V_star, A_try, V_try, cov_T, cov_D) >= optimum * (1 - 1e-12)


def test_the_deficiency_bounds_never_exceed_the_exact_optimum_and_ours_is_exact_for_isotropic_inputs():
    for seed in range(3):
        check = theorems.deficiency_check(T=7, D=5, r_star=4, instances=15, max_spread=4.0, seed=seed)
        assert (check["ratio_frobenius"] <= 1 + 1e-9).all()
        assert (check["ratio_paper"] <= check["ratio_frobenius"]).all()
        isotropic = check[check["instance"] == 0]
        assert np.allclose(isotropic["ratio_frobenius"], 1.0) and np.allclose(isotropic["kappa"], 1.0)
        assert (check.loc[check["instance"] > 0, "ratio_frobenius"] < 1 - 1e-6).all()


def test_the_deficiency_bounds_are_positive_below_r_star_and_zero_from_r_star_on():
    A_star, V_star, _ = _teacher()
    for r in range(0, 6):
        bounds = theorems.deficiency_bounds(A_star, V_star, r, lambda_min=0.5)
        for value in bounds.values():  # zero up to rounding from r* = 3 on
            assert value > 1e-3 if r < 3 else value < 1e-20
        assert bounds["paper"] <= bounds["frobenius"]


def test_the_papers_eigenvalue_form_of_theorem_5_fails_on_the_sheared_teacher_and_the_singular_value_form_holds():
    check = theorems.shear_counterexample(shear=10.0, D=3, r=1)
    s1, s2, s3 = check["singular_values"]
    assert check["eigenvalues"] == pytest.approx((1.0, 1.0, 0.0))  # the paper's λ_2(A*)² = 1 for every shear
    assert s1 * s2 == pytest.approx(1.0) and s1**2 + s2**2 == pytest.approx(102.0) and s3 == pytest.approx(0.0)
    assert check["exact"] == pytest.approx(3 * s2**2, rel=1e-12)  # ‖V*‖² σ_2², the rank-1 optimum
    assert check["simulated"] == pytest.approx(check["exact"], abs=4 * check["simulated_se"])
    assert check["eigenvalue_bound"] == pytest.approx(1.0)
    assert check["eigenvalue_bound"] > 30 * check["exact"]  # the paper's eq. (7) as written is violated
    assert check["paper"] < check["frobenius"] <= check["exact"] * (1 + 1e-12)  # with singular values it holds
    assert check["frobenius"] == pytest.approx(check["exact"], rel=1e-12)  # and our constant is exact here


def test_a_rank_1_model_simulated_on_random_inputs_beats_the_eigenvalue_bound_of_the_sheared_teacher():
    A_star, V_star = theorems.shear_operator(10.0), np.eye(3)
    A = theorems.truncate(A_star, 1)  # a rank-1 model built without rank_r_optimum
    estimate = _monte_carlo_excess(A_star, V_star, lambda X: A @ X @ V_star, np.eye(3), np.eye(3))
    assert estimate < 0.05 < theorems.eigenvalue_bound(A_star, V_star, 1, lambda_min=1.0)


def test_the_eigenvalue_bound_fails_exactly_beyond_the_shear_threshold():
    for D in (2, 3, 5):
        threshold = theorems.shear_threshold(D)
        for shear in threshold * np.array([0.5, 0.9, 0.99, 1.01, 1.1, 3.0]):
            check = theorems.shear_counterexample(shear=shear, D=D, r=1, samples=2)
            assert (check["eigenvalue_bound"] > check["exact"]) == (shear > threshold), (D, shear)
            assert check["frobenius"] <= check["exact"] * (1 + 1e-12)


def test_for_a_symmetric_teacher_the_eigenvalue_bound_is_the_papers_singular_value_bound():
    rng = np.random.default_rng(4)
    U, _ = np.linalg.qr(rng.standard_normal((6, 3)))
    A_star, V_star = (U * np.array([2.0, -1.5, 1.0])) @ U.T, rng.standard_normal((4, 4))
    for r in range(4):
        assert theorems.eigenvalue_bound(A_star, V_star, r, 0.7) == pytest.approx(
            theorems.deficiency_bounds(A_star, V_star, r, 0.7)["paper"], rel=1e-10, abs=1e-14)


def test_the_random_instances_check_the_eigenvalue_form_beside_both_singular_value_bounds():
    check = theorems.deficiency_check(T=7, D=5, r_star=4, instances=6, seed=1)
    assert {"eigenvalues", "ratio_eigenvalues"} <= set(check.columns)
    assert np.allclose(check["ratio_eigenvalues"], check["eigenvalues"] / check["exact"])
    assert (check["eigenvalues"] > 0).all()


def test_truncation_keeps_r_singular_values_and_leaves_the_tail_as_its_error():
    M = np.random.default_rng(3).standard_normal((5, 7))
    s = np.linalg.svd(M, compute_uv=False)
    for r in range(6):
        Mr = theorems.truncate(M, r)
        assert np.linalg.matrix_rank(Mr) == r
        assert np.sum((M - Mr) ** 2) == pytest.approx(np.sum(s[r:] ** 2), abs=1e-12)


def test_a_rank_r_star_fit_reaches_the_floor_and_deficient_fits_stay_on_the_optimum():
    check = theorems.achievability_check(T=8, D=6, r_star=2, n=300, sigma=0.1, seed=1, iters=60)
    floor = check["floor"].iloc[0]
    deficient, sufficient = check[check["r"] < 2], check[check["r"] >= 2]
    assert (deficient["fitted"] >= deficient["optimum"] * (1 - 1e-9)).all()  # no fit beats the population optimum
    assert np.allclose(deficient["fitted"], deficient["optimum"], rtol=0.05)
    assert (sufficient["fitted"].abs() < 0.05 * floor).all()
    assert (sufficient["train"] < 0).all()  # a fit of rank ≥ r* absorbs some of the noise in its sample


def test_alternating_least_squares_does_not_raise_the_training_loss():
    rng = np.random.default_rng(0)
    A_star, V_star, _ = _teacher(T=6, D=4, r_star=2)
    X = rng.standard_normal((200, 6, 4))
    Y = A_star @ X @ V_star + 0.1 * rng.standard_normal(X.shape)
    fits = [theorems.reduced_rank_fit(X, Y, 2, iters=k) for k in (1, 3, 30)]
    losses = [np.sum((Y - A @ X @ V) ** 2) for A, V in fits]
    assert losses[0] >= losses[1] >= losses[2]


def test_no_attention_predictor_beats_the_equivariant_floor_and_the_floor_is_tight_for_equivariant_linear_maps():
    A_star, V_star, rng = _teacher(T=6, D=5)
    floor = theorems.equivariant_floor(A_star, V_star)
    assert floor > 0
    T, eye, ones = 6, np.eye(6), np.ones((6, 6))
    alpha, beta = np.trace(A_star) / T, (A_star.sum() - np.trace(A_star)) / (T * (T - 1))
    best = theorems.population_excess(A_star, V_star, alpha * eye + beta * (ones - eye), V_star)
    assert best == pytest.approx(floor, rel=1e-10)
    for _ in range(20):  # other equivariant linear maps a I + b 11ᵀ with any V
        a, b = rng.standard_normal(2)
        assert theorems.population_excess(A_star, V_star, a * eye + b * ones, rng.standard_normal((5, 5))) >= floor
    for scale in (0.1, 0.5, 1.0):  # input-conditioned mixers X K Xᵀ of full rank, by Monte Carlo
        K, V = scale * rng.standard_normal((5, 5)), rng.standard_normal((5, 5)) / math.sqrt(5)
        estimate = _monte_carlo_excess(A_star, V_star, lambda X, K=K, V=V: X @ K @ X.transpose(0, 2, 1) @ X @ V
                                       / math.sqrt(5), np.eye(6), np.eye(5), n=20_000)
        assert estimate >= floor * 0.97
    assert theorems.equivariant_floor(2 * eye - 0.3 * ones, V_star) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("call", [
    lambda: theorems.population_excess(np.eye(3), np.eye(2), np.eye(4), np.eye(2)),
    lambda: theorems.population_excess(np.eye(3), np.eye(2), np.eye(3), np.eye(2), cov_T=-np.eye(3)),
    lambda: theorems.population_excess(np.ones((3, 2)), np.eye(2), np.eye(3), np.eye(2)),
    lambda: theorems.population_excess(np.full((3, 3), np.nan), np.eye(2), np.eye(3), np.eye(2)),
    lambda: theorems.rank_r_optimum(np.eye(3), np.eye(2), 4),
    lambda: theorems.rank_r_optimum(np.eye(3), np.eye(2), 1.5),
    lambda: theorems.deficiency_bounds(np.eye(3), np.eye(2), 1, lambda_min=0.0),
    lambda: theorems.eigenvalue_bound(np.eye(3), np.eye(2), 1, lambda_min=-1.0),
    lambda: theorems.eigenvalue_bound(np.eye(3), np.eye(2), 4, lambda_min=1.0),
    lambda: theorems.shear_operator(float("nan")),
    lambda: theorems.shear_threshold(0),
    lambda: theorems.shear_counterexample(samples=1),
    lambda: theorems.deficiency_check(r_star=1),
    lambda: theorems.random_covariance(3, -1.0, np.random.default_rng(0)),
    lambda: theorems.reduced_rank_fit(np.zeros((5, 3, 2)), np.zeros((5, 3, 3)), 1),
    lambda: theorems.reduced_rank_fit(np.full((5, 3, 2), np.nan), np.zeros((5, 3, 2)), 1),
    lambda: theorems.reduced_rank_fit(np.ones((5, 3, 2)), np.ones((5, 3, 2)), 0),
    lambda: theorems.equivariant_floor(np.eye(1), np.eye(2)),
])
def test_bad_input_raises_a_value_error(call):
    with pytest.raises(ValueError):
        call()
