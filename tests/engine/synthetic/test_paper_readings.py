"""Two readings the book runs because a reader doubted a verdict: the paper's V-known inversion as the paper describes
it (attention_estimators.paper_log_inversion), and a recovery student retrained with its kernel read at every step
(trace.recovery_trace)."""

import numpy as np

from entropic.engine.synthetic import attention_estimators, tasks, trace


def test_the_papers_inversion_without_floor_or_centring_counts_more_directions_than_the_books():
    task = tasks.make_attention_task("softmax_qk", 8, 8, 2, 400, 0.05, 0, "sharp")
    paper = attention_estimators.paper_log_inversion(task)
    ours = attention_estimators.attention_kernel_v_known(task.X, task.Y, task.V, "softmax_qk")
    assert 0 <= paper["paper_guarded_fraction"] <= 1
    assert paper["paper_numerical_rank"] > ours.numerical_rank == 2  # the log-normalizer and the noise left in
    assert paper["paper_relative_error"] > 0.5
    linear = tasks.make_attention_task("linear_qk", 8, 8, 2, 400, 0.05, 0, "sharp")
    assert attention_estimators.paper_log_inversion(linear)["paper_guarded_fraction"] == 0.0  # no log for linear


def test_a_traced_recovery_student_reports_its_rank_at_the_loss_minimum_and_at_its_last_step():
    kwargs = dict(teacher="linear_qk", T=6, d=6, r_star=2, n=64, sigma=0.05, seed=0, spectrum="sharp", steps=200,
                  lr=0.01, init_scale=0.3)
    row = trace.recovery_trace(**kwargs)["trace"][0]
    again = trace.recovery_trace(**kwargs)["trace"][0]
    assert row == again  # a function of its parameters
    assert 0 <= row["lowest_step"] <= row["last_step"] == 200 and row["lowest_loss"] <= row["last_loss"]
    assert np.isfinite([row["energy_rank_at_lowest"], row["energy_rank_at_last"]]).all()
    assert row["energy_rank_at_lowest"] <= row["effective_rank_at_lowest"]  # eq. 2 never above eq. 1
