import numpy as np
import pytest
import torch

from entropic.engine.synthetic import models, train
from entropic.engine.synthetic.tasks import make_attention_task, make_surrogate_task


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


def test_the_converged_rule_stops_early_and_agrees_with_fixed_steps():
    task = make_attention_task("linear_qk", 8, 6, 2, 64, 0.05, 0)
    rule = train.StopRule("converged", window=50, rtol=1e-3)
    fixed = train.train(models.QKStudents([0], [1, 2, 4], 8, 6), task.X, task.Y, 1500, progress=False)
    early = train.train(models.QKStudents([0], [1, 2, 4], 8, 6), task.X, task.Y, 1500, progress=False, stop=rule)
    assert (early.steps_run < 1500).any()
    np.testing.assert_allclose(early.tail_min, fixed.tail_min, rtol=0.02)


def test_students_that_leave_the_batch_keep_exactly_the_weights_they_would_have_alone():
    task = make_surrogate_task(8, 6, 2, 80, 0.05, 2)
    rule = train.StopRule("converged", window=30, rtol=1e-2)
    batch = models.SurrogateStudents([2], [1, 2, 3], 8, 6)
    batched = train.train(batch, task.X, task.Y, 400, progress=False, stop=rule)
    for s, rank in enumerate([1, 2, 3]):
        alone = models.SurrogateStudents([2], [rank], 8, 6)
        looped = train.train(alone, task.X, task.Y, 400, progress=False, stop=rule)
        assert looped.steps_run[0, 0] == batched.steps_run[0, s]
        torch.testing.assert_close(batch.kernel()[0, s], alone.kernel()[0, 0], rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(batched.tail_min[0, s], looped.tail_min[0, 0], rtol=1e-4)


def test_a_spike_in_the_tail_flags_the_student_and_leaves_the_tail_minimum_alone():
    history = np.array([3.0, 2.0, 1.0, 1.0, 5.0, 1.0])[:, None, None]
    result = train._summarize(history, np.array([[1.0]]), np.array([[6]]), window=5)
    assert result.tail_min[0, 0] == 1.0 and result.tail_max[0, 0] == 5.0
    assert result.unstable[0, 0]


@pytest.mark.parametrize("kwargs, message", [(dict(kind="early"), "stop"), (dict(window=1), "window"),
                                             (dict(rtol=0), "tolerance")])
def test_bad_stop_rules_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        train.StopRule(**kwargs)


def test_the_rank_sweep_runs_from_one_to_twice_r_star():
    assert train.rank_sweep(3) == [1, 2, 3, 4, 5, 6]
