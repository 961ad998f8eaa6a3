"""Population excess of the ladder's trained students on fresh inputs, against the equivariance bound."""

import math

import pytest
import torch

from entropic.engine.synthetic import population, theorems


def test_the_ladder_is_scored_on_fresh_inputs_and_no_equivariant_student_beats_the_bound_there():
    out = population.ladder_excesses(("B0", "B1", "B2"), T=6, D=4, r_star=2, n=40, steps=300, stop="fixed", fresh=3000)
    excess = out["excess"].set_index("rung")
    assert (excess["population_se"] > 0).all()
    assert excess.loc["B0", "train"] < 0 < excess.loc["B0", "population"]  # fitted to 40 noisy samples: overfits
    for rung in ("B1", "B2"):  # the bound holds for the population excess, up to Monte Carlo error
        assert excess.loc[rung, "population"] > out["floor"] - 3 * excess.loc[rung, "population_se"]
    task = out["task"]
    assert out["floor"] == pytest.approx(theorems.equivariant_floor(task.operator, task.V))
    assert out["zero"] == pytest.approx(float(task.V.double().pow(2).sum() * task.operator.double().pow(2).sum()))
    model = out["students"]["B1"]  # the population excess again, on inputs of another seed
    X = torch.randn(3000, 6, 4, generator=torch.Generator().manual_seed(12345), dtype=torch.float64)
    with torch.no_grad():
        prediction = model(X[None].float())[0, 0].double()
    errors = (task.operator.double() @ X @ task.V.double() - prediction).pow(2).sum((1, 2))
    se = math.hypot(float(errors.std()) / math.sqrt(3000), excess.loc["B1", "population_se"])
    assert float(errors.mean()) == pytest.approx(excess.loc["B1", "population"], abs=4 * se)
    with pytest.raises(ValueError):
        population.ladder_excesses((), T=6, D=4)


def test_the_equivariant_floor_of_every_seeds_task_is_listed():
    floors = population.equivariant_floors(T=6, D=4, r_star=2, n=40, sigma=0.05, seeds=[0, 1, 2])
    assert list(floors["seed"]) == [0, 1, 2] and (floors["floor"] > 0).all()
    assert (floors["floor"] <= floors["zero"]).all()  # the best equivariant predictor is no worse than 0
