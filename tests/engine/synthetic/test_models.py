import math

import pytest
import torch

from entropic.engine import spectral
from entropic.engine.synthetic import models
from entropic.engine.synthetic.tasks import attention_scores, make_surrogate_task

T, D = 6, 5


def X_of(G=2, N=3, seed=0):
    return torch.randn(G, N, T, D, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("rung", list(models.LADDER))
def test_every_ladder_rung_maps_groups_of_inputs_to_one_prediction_per_student(rung):
    students = models.ladder_students(rung, seeds=[0, 1], ranks=[1, 2, 3], T=T, D=D)
    assert students(X_of()).shape == (2, 3, 3, T, D)  # (G, S, N, T, D)
    assert students.mixer(X_of()).shape == (2, 3, 3, T, T)  # (G, S, N, T, T)


@pytest.mark.parametrize("rung, per_student", [
    ("B0", 2 * T * 3 + D * D),                    # P, Q : (T, R); V
    ("B1", 2 * D * 3 + D * D),                    # W_Q, W_K : (D, R); V
    ("B1c", D * D + D * D),                       # K, V
    ("B2", 2 * D * 3 + D * D),
    ("B3", 2 * D * 3 + D * D + 2 * D * 4 * D + 4 * D + D + 4 * D),  # + FFN, 2 LayerNorms
])
def test_parameter_count_per_student(rung, per_student):
    students = models.ladder_students(rung, seeds=[0, 1], ranks=[3, 3], T=T, D=D)
    total = sum(p.numel() for p in students.parameters())
    assert total == 2 * 2 * per_student


def test_student_rank_bounds_the_rank_of_its_kernel():
    students = models.QKStudents(seeds=[0], ranks=[1, 2, 4], T=T, D=D)
    ranks = spectral.numerical_rank(students.kernel()[0].detach())
    assert ranks.tolist() == [1, 2, 4]


def test_the_b1c_control_kernel_is_full_rank():
    students = models.ladder_students("B1c", seeds=[0, 1], ranks=[1, 2], T=T, D=D)
    assert (spectral.numerical_rank(students.kernel().detach()) == D).all()


def test_qk_students_compute_equation_9_with_their_own_kernel():
    for softmax in (False, True):
        students = models.QKStudents(seeds=[3], ranks=[2, 4], T=T, D=D, softmax=softmax)
        X = X_of(G=1)
        pred = students(X)
        for s in range(2):
            K, V = students.kernel()[0, s], students.V[0, s]
            expected = attention_scores(X[0], K, softmax) @ X[0] @ V
            torch.testing.assert_close(pred[0, s], expected, rtol=1e-5, atol=1e-5)


def test_surrogate_students_compute_a_x_v():
    students = models.SurrogateStudents(seeds=[0], ranks=[2], T=T, D=D)
    X = X_of(G=1)
    expected = students.kernel()[0, 0] @ X[0] @ students.V[0, 0]
    torch.testing.assert_close(students(X)[0, 0], expected, rtol=1e-5, atol=1e-6)


def test_a_students_initial_weights_do_not_depend_on_its_batch():
    batch = models.QKStudents(seeds=[4, 5], ranks=[1, 3], T=T, D=D)
    alone = models.QKStudents(seeds=[5], ranks=[3], T=T, D=D)
    torch.testing.assert_close(batch.kernel()[1, 1], alone.kernel()[0, 0])
    torch.testing.assert_close(batch.V[1, 1], alone.V[0, 0])


def test_padded_rank_columns_start_at_zero():
    students = models.SurrogateStudents(seeds=[0], ranks=[1, 4], T=T, D=D)
    assert torch.count_nonzero(students.P[0, 0, :, 1:]) == 0


@pytest.mark.parametrize("kwargs, message", [
    (dict(seeds=[0], ranks=[0]), "ranks must lie"),
    (dict(seeds=[0], ranks=[D + 1]), "ranks must lie"),
    (dict(seeds=[], ranks=[1]), "at least one group"),
    (dict(seeds=[0], ranks=[1], init_scale=0.0), "init_scale"),
])
def test_bad_student_shapes_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        models.QKStudents(T=T, D=D, **kwargs)


def test_unknown_rung_raises():
    with pytest.raises(ValueError, match="unknown ladder rung"):
        models.ladder_students("B4", [0], [1], T, D)


def test_surrogate_student_matching_the_teacher_predicts_without_error():
    task = make_surrogate_task(T=T, d=D, r_star=2, n=4, sigma=0.0, seed=0)
    students = models.SurrogateStudents(seeds=[0], ranks=[T], T=T, D=D)
    with torch.no_grad():
        U, S, Vh = torch.linalg.svd(task.operator)
        students.P[0, 0] = U * S.sqrt()
        students.Q[0, 0] = Vh.T * S.sqrt()
        students.V[0, 0] = task.V
    torch.testing.assert_close(students(task.X[None])[0, 0], task.Y, rtol=1e-4, atol=1e-4)
    assert math.isclose(float(spectral.numerical_rank(students.kernel()[0, 0].detach())), 2)


@pytest.mark.parametrize("softmax", [False, True])
def test_fused_value_map_loss_equals_the_written_out_loss_and_its_gradients(softmax):
    students = models.QKStudents(seeds=[0, 1], ranks=[1, 3], T=T, D=D, softmax=softmax).double()
    X = X_of().double()
    Y = torch.randn(2, 3, T, D, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    weights = torch.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=torch.float64)  # students get their own gradient
    fused = students.loss(X, Y)
    written = (students(X) - Y.unsqueeze(1)).pow(2).sum((2, 3, 4))
    torch.testing.assert_close(fused, written)
    params = list(students.parameters())
    for a, b in zip(torch.autograd.grad((fused * weights).sum(), params),
                    torch.autograd.grad((written * weights).sum(), params), strict=True):
        torch.testing.assert_close(a, b)
