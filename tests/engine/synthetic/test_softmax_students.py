"""An unconstrained softmax-attention student trained by L-BFGS is the V-unknown least-squares estimator."""

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


def test_the_relative_difference_of_kernels_handles_zero():
    zero = torch.zeros(3, 3)
    assert softmax_students.relative_difference(zero, zero) == 0.0
    assert softmax_students.relative_difference(torch.eye(3), zero) == float("inf")
    assert softmax_students.relative_difference(2 * torch.eye(3), torch.eye(3)) == pytest.approx(1.0)
