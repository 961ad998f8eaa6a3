
import pytest

from entropic.engine.synthetic import estimators
from entropic.engine.synthetic.tasks import make_surrogate_task


@pytest.mark.parametrize("r_star", [1, 3, 5])
def test_v_known_estimator_recovers_the_teacher_rank_from_data(r_star):
    task = make_surrogate_task(T=12, d=8, r_star=r_star, n=400, sigma=0.05, seed=r_star)
    estimate = estimators.surrogate_operator_v_known(task)
    assert estimate.numerical_rank == r_star
    assert float((estimate.operator - task.operator).abs().max()) < 0.01


def test_noise_edge_grows_with_the_noise():
    edges = [estimators.surrogate_operator_v_known(make_surrogate_task(8, 6, 2, 200, s, 0)).noise_edge
             for s in (0.01, 0.1)]
    assert edges[1] > 5 * edges[0]


# --- attention-native teachers (§6, Table 4) --------------------------------------------------------
