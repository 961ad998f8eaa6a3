import numpy as np
import pytest
import torch

from entropic import models, train
from entropic.tasks import make_attention_task, make_surrogate_task


def test_rank_r_star_student_reaches_the_noise_floor_and_a_deficient_one_does_not():
    task = make_surrogate_task(T=8, d=6, r_star=2, n=200, sigma=0.05, seed=0)
    students = models.SurrogateStudents(seeds=[0], ranks=[1, 2], T=8, D=6)
    result = train.train(students, task.X, task.Y, steps=600, progress=False)
    excess = result.final_loss[0] - task.noise_floor
    assert abs(excess[1]) < 0.05 * task.noise_floor  # r = r*: at the floor
    assert excess[0] > 10 * task.noise_floor  # r < r*: far above it


def test_history_records_one_loss_per_step_and_student_and_decreases():
    task = make_surrogate_task(T=6, d=4, r_star=2, n=50, sigma=0.05, seed=1)
    result = train.train(models.SurrogateStudents([1], [1, 2, 3], 6, 4), task.X, task.Y, steps=30, progress=False)
    assert result.history.shape == (30, 1, 3) and result.final_loss.shape == (1, 3)
    assert (result.final_loss < result.history[0]).all()


@pytest.mark.parametrize("make_students, make_task", [
    (lambda seeds, ranks: models.SurrogateStudents(seeds, ranks, 8, 6),
     lambda seed: make_surrogate_task(8, 6, 2, 64, 0.05, seed)),
    (lambda seeds, ranks: models.QKStudents(seeds, ranks, 8, 6, softmax=True),
     lambda seed: make_attention_task("softmax_qk", 8, 6, 2, 64, 0.05, seed)),
    (lambda seeds, ranks: models.QKStudents(seeds, ranks, 8, 6, softmax=False),
     lambda seed: make_attention_task("linear_qk", 8, 6, 2, 64, 0.05, seed)),
])
def test_batched_training_equals_training_each_student_alone(make_students, make_task):
    """Same seeds, same data: the batch and the loop agree to float32 round-off (rtol 1e-4)."""
    seeds, ranks, steps = [0, 1], [1, 2, 4], 40
    tasks = [make_task(s) for s in seeds]
    X, Y = torch.stack([t.X for t in tasks]), torch.stack([t.Y for t in tasks])
    batch = make_students(seeds, ranks)
    batched = train.train(batch, X, Y, steps, progress=False, device="cpu")
    for g, seed in enumerate(seeds):
        for s, rank in enumerate(ranks):
            alone = make_students([seed], [rank])
            looped = train.train(alone, X[g], Y[g], steps, progress=False, device="cpu")
            np.testing.assert_allclose(batched.history[:, g, s], looped.history[:, 0, 0], rtol=1e-4)
            torch.testing.assert_close(batch.kernel()[g, s], alone.kernel()[0, 0], rtol=1e-3, atol=1e-4)


def test_same_parameters_give_the_same_numbers():
    task = make_surrogate_task(6, 4, 2, 40, 0.05, 3)
    runs = [train.train(models.SurrogateStudents([3], [1, 2], 6, 4), task.X, task.Y, 20, progress=False)
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0].history, runs[1].history)


@pytest.mark.parametrize("kwargs, message", [(dict(steps=0), "steps"), (dict(lr=-1.0, steps=1), "lr")])
def test_bad_training_arguments_raise(kwargs, message):
    task = make_surrogate_task(6, 4, 2, 10, 0.05, 0)
    with pytest.raises(ValueError, match=message):
        train.train(models.SurrogateStudents([0], [1], 6, 4), task.X, task.Y, progress=False, **kwargs)


def test_data_that_does_not_fit_the_students_raises():
    task = make_surrogate_task(6, 4, 2, 10, 0.05, 0)
    with pytest.raises(ValueError, match="must both be"):
        train.train(models.SurrogateStudents([0, 1], [1], 6, 4), task.X, task.Y, steps=1, progress=False)


def test_accumulating_over_sample_chunks_equals_one_full_batch():
    task = make_surrogate_task(6, 4, 2, 90, 0.05, 4)
    whole, chunked = (train.train(models.SurrogateStudents([4], [1, 3], 6, 4), task.X, task.Y, 25,
                                  progress=False, chunk_elements=budget) for budget in (10**9, 200))
    assert train.sample_chunk(models.SurrogateStudents([4], [1, 3], 6, 4), task.X[None], torch.device("cpu"), 200) < 90
    np.testing.assert_allclose(chunked.history, whole.history, rtol=1e-5)
    np.testing.assert_allclose(chunked.final_loss, whole.final_loss, rtol=1e-5)
