"""An unconstrained softmax-attention student trained by L-BFGS is the V-unknown least-squares estimator; the
Gavish–Donoho threshold reads a rank from all singular values at once."""

import pytest
import torch

from entropic.engine.synthetic import softmax_estimators, softmax_students
from entropic.engine.synthetic.tasks import make_attention_task


def test_training_k_and_v_together_from_zero_finds_the_least_squares_estimators_kernel():
    task = make_attention_task("softmax_qk", 6, 8, 2, 150, 0.05, 3, "sharp")
    estimate = softmax_estimators.kernel_least_squares(task.X, task.Y, None)
    student = softmax_students.train_unconstrained(task.X, task.Y)
    assert student.converged
    assert softmax_students.relative_difference(student.kernel, estimate.kernel) < 1e-6
    assert student.loss == pytest.approx(estimate.loss, rel=1e-9)
    assert softmax_estimators.read_ranks(student.kernel, estimate.threshold)[0] == estimate.numerical_rank == 2


def test_the_gavish_donoho_threshold_is_omega_times_the_median_and_refuses_bad_input():
    values = torch.tensor([5.0, 1.0, 0.4, 0.2, 0.1])
    assert softmax_students.gavish_donoho_threshold(values) == pytest.approx(2.858 * 0.4)
    even = torch.tensor([4.0, 3.0, 1.0, 0.0])
    assert softmax_students.gavish_donoho_threshold(even) == pytest.approx(2.858 * 2.0)  # the middle two's mean
    for bad in (torch.tensor([]), torch.tensor([1.0, -0.1]), torch.tensor([float("nan")])):
        with pytest.raises(ValueError):
            softmax_students.gavish_donoho_threshold(bad)


def test_the_relative_difference_of_kernels_handles_zero():
    zero = torch.zeros(3, 3)
    assert softmax_students.relative_difference(zero, zero) == 0.0
    assert softmax_students.relative_difference(torch.eye(3), zero) == float("inf")
    assert softmax_students.relative_difference(2 * torch.eye(3), torch.eye(3)) == pytest.approx(1.0)
