import pytest

from entropic import ladder
from entropic.configs import LadderConfig


@pytest.fixture(scope="module")
def tiny_ladder():
    cfg = LadderConfig(T=8, d=6, r_star=2, n=96, seeds=(0,), steps=400, rungs=("B0", "B1", "B1c"), sweep=False)
    return ladder.run(cfg, progress=False)


def test_b0_reaches_the_noise_floor_at_r_star_while_b1_does_not(tiny_ladder):
    excess = ladder.summary(tiny_ladder)["excess"]
    floor = tiny_ladder.noise_floor
    assert abs(excess["B0"]) < 0.05 * floor
    assert excess["B1"] > 10 * floor


def test_diagnosis_is_computed_from_the_data(tiny_ladder):
    diagnosis = ladder.diagnose(tiny_ladder)
    assert diagnosis.break_rung == "B1"
    assert diagnosis.control_fails and diagnosis.control_full_rank
    assert diagnosis.softmax_ratio is None  # B2 was not trained
    assert "**B1**" in ladder.conclusion_markdown(diagnosis)


def test_verdicts_follow_the_claims(tiny_ladder):
    table = ladder.compare(tiny_ladder)
    assert table["claim holds"].all()
    assert list(table.index) == ["B0 excess at r=r*", "B1 excess at r=r*", "B1c excess at r=r*"]


@pytest.mark.parametrize("params, name", [
    ({"rungs": ["B9"]}, "rungs"), ({"r_star": 6, "d": 10}, "min"), ({"seeds": [-1]}, "seeds"),
])
def test_invalid_ladder_parameters_fail_fast(params, name):
    with pytest.raises(ValueError, match=name):
        LadderConfig(**params)
