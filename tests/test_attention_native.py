import pytest

from entropic import attention_native, results
from entropic.configs import AttentionGridConfig


@pytest.fixture(scope="module")
def tiny_grid():
    cfg = AttentionGridConfig(T=8, d=8, r_stars=(2,), n=96, seeds=(0, 1), steps=400, recovery_steps=400)
    return attention_native.run(cfg, progress=False)


@pytest.mark.parametrize("teacher", ["linear_qk", "softmax_qk"])
def test_deficiency_and_achievability_hold_for_both_teachers_at_tiny_sizes(tiny_grid, teacher):
    sweep = tiny_grid.sweep[tiny_grid.sweep["teacher"] == teacher]
    excess = sweep.groupby("r")["excess"].mean()
    assert excess[1] > 10 * abs(excess[2])  # r < r* clearly above r = r*
    assert abs(excess[2]) < 0.1 * tiny_grid.noise_floor


def test_grid_table_has_one_row_per_teacher_and_r_star(tiny_grid):
    grid = attention_native.per_r_star(tiny_grid)
    assert list(grid.index) == [("linear_qk", 2), ("softmax_qk", 2)]
    assert (grid["R̃_eff(K*)"] < 2).all()  # eq. (8): the teacher's own energy rank is below r*


def test_comparison_verdicts_are_computed_from_the_claims(tiny_grid):
    table = attention_native.compare(tiny_grid)
    for _, row in table.iterrows():
        assert row["verdict"] in {results.REPRODUCED, results.CLAIM_HOLDS, results.NOT_REPRODUCED}
        if not row["claim holds"]:
            assert row["verdict"] == results.NOT_REPRODUCED


@pytest.mark.parametrize("params, name", [
    ({"r_stars": [20]}, "r_stars"), ({"teachers": ["relu_qk"]}, "teachers"), ({"n": 0}, "n"),
    ({"sigma": -0.5}, "sigma"), ({"teachers": []}, "teachers"),
])
def test_invalid_grid_parameters_fail_fast(params, name):
    with pytest.raises(ValueError, match=name):
        AttentionGridConfig(**params)
