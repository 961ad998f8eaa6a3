"""The teaching module's experiments and figures, and the teaching page: executed through papermill, its
solutions compute the answers the exercises ask for."""

import ast
import json

import numpy as np
import pytest
import torch

from entropic.engine import tasks, teaching
from entropic.pipeline import book
from entropic.pipeline.verdicts import FLOOR_BAND

torch.set_num_threads(1)


def test_truncation_meets_the_eckart_young_tail_and_random_fits_stay_above_it():
    demo = teaching.eckart_young_demo(T=6, competitors=50, seed=2)
    assert np.allclose(demo["truncation"], demo["tail"], rtol=1e-10)
    assert (demo["best_random"] >= demo["tail"] * (1 - 1e-12)).all()
    assert (demo.loc[demo["r"] > 0, "best_random"] > demo.loc[demo["r"] > 0, "tail"]).all()


def test_the_closed_form_ratio_depends_only_on_the_tail_of_the_spectrum():
    lam = tasks.teacher_spectrum(4, "power_law").numpy()
    assert teaching.excess_ratio("power_law", r_star=4, r_a=1, r_b=3) == pytest.approx(
        np.sum(lam[1:] ** 2) / lam[3] ** 2)
    assert teaching.excess_ratio("flat", r_star=5, r_a=2, r_b=3) == pytest.approx(1.5)
    with pytest.raises(ValueError):
        teaching.excess_ratio("sharp", r_star=3, r_a=1, r_b=3)
    with pytest.raises(ValueError):
        teaching.eckart_young_demo(T=1)


def test_trained_surrogate_students_follow_the_optimum_below_r_star_and_reach_the_floor_at_it():
    sweep = teaching.surrogate_sweep(T=6, D=4, r_star=2, n=400, steps=300).set_index("r")
    floor = sweep["floor"].iloc[0]
    assert sweep.loc[1, "excess"] == pytest.approx(sweep.loc[1, "optimum"], rel=0.15)
    assert abs(sweep.loc[2, "excess"]) < FLOOR_BAND * floor < sweep.loc[1, "excess"]


def test_figures_label_every_artist_they_draw():
    sweep = teaching.surrogate_sweep(T=6, D=4, r_star=2, n=60, steps=50)
    figure = teaching.figure_excess(sweep, 2, FLOOR_BAND, {"excess": "trained"})
    labels = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert "trained" in labels and "population optimum (Eckart–Young)" in labels and len(labels) == 4


def _glued(notebook: dict) -> dict:
    """Every value the executed notebook glued, by name (the text/plain representation, parsed)."""
    values = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                text = next(v for k, v in output["data"].items() if k.endswith("text/plain"))
                values[name] = ast.literal_eval(text if isinstance(text, str) else "".join(text))
    return values


@pytest.fixture(scope="module")
def glued():
    path = book.execute("teaching", "tiny", {}, log=lambda *_: None)
    notebook = json.loads(path.read_text())
    assert not [o for c in notebook["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    return _glued(notebook)


@pytest.mark.integration
def test_the_ratio_solution_finds_the_sharp_and_power_law_ratios_equal_and_training_agrees(glued):
    lam = tasks.teacher_spectrum(3, "sharp").numpy()
    assert glued["teaching_ratio_sharp"] == pytest.approx(1 + (lam[1] / lam[2]) ** 2)
    assert glued["teaching_ratio_power_law"] == pytest.approx(glued["teaching_ratio_sharp"])
    assert glued["teaching_ratio_flat"] == pytest.approx(2.0)
    assert glued["teaching_ratio_power_law_trained"] == pytest.approx(glued["teaching_ratio_power_law"], rel=0.1)


@pytest.mark.integration
def test_the_noise_solution_keeps_the_deficit_and_shrinks_it_relative_to_the_floor(glued):
    assert glued["teaching_noise_excess_r1_high"] == pytest.approx(glued["teaching_noise_excess_r1_low"], rel=0.1)
    assert glued["teaching_noise_relative_high"] < glued["teaching_noise_relative_low"] / 50
    assert abs(glued["teaching_noise_excess_rstar_high"]) < FLOOR_BAND * glued["teaching_noise_floor_high"]
    assert glued["teaching_noise_critical_sigma"] > 0.5  # the deficit is still outside the band at σ = 0.5


@pytest.mark.integration
def test_the_softmax_solution_finds_a_smaller_gap_and_a_transition_that_survives(glued):
    assert glued["teaching_softmax_gap_softmax"] < glued["teaching_softmax_gap_linear"] / 10
    assert glued["teaching_softmax_signal_softmax"] < glued["teaching_softmax_signal_linear"] / 10
    assert glued["teaching_softmax_gap_softmax"] > FLOOR_BAND * glued["teaching_softmax_at_floor"]
    assert abs(glued["teaching_softmax_at"]) < FLOOR_BAND * glued["teaching_softmax_at_floor"]


@pytest.mark.integration
def test_the_page_shows_the_transition_and_the_break_its_prose_describes(glued):
    assert glued["teaching_ey_max_deviation"] < 1e-9 < glued["teaching_ey_min_gap"]
    assert glued["teaching_excess_r1"] > FLOOR_BAND * glued["teaching_floor"] > abs(glued["teaching_excess_rstar"])
    assert abs(glued["teaching_break_b0"]) < FLOOR_BAND * glued["teaching_floor"]
    for student in ("b1", "b1c", "b2"):  # no input-conditioned student beats the equivariant floor
        assert glued[f"teaching_break_{student}"] > 0.9 * glued["teaching_break_floor"]
    assert glued["teaching_native_below"] > FLOOR_BAND * glued["teaching_native_floor"] > abs(
        glued["teaching_native_at"])
