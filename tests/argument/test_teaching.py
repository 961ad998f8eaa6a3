"""The teaching module's experiments and their figures, and the teaching page: executed through papermill, it
sets the equivariance bound beside population excesses, and its solutions compute the answers the exercises
ask for."""

import ast
import json
import math

import numpy as np
import pytest
import torch

from entropic import paths
from entropic.argument import teaching
from entropic.engine.synthetic import tasks
from entropic.jobs import runner
from entropic.publish import build as book
from entropic.report.verdicts import FLOOR_BAND
from entropic.sections import attention_native, ladder

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


def test_the_energy_a_teachers_last_kernel_direction_carries_is_its_term_of_a_linear_mixer():
    T, D, r_star = 5, 6, 2
    energies = teaching.output_energies("linear_qk", T, D, r_star, n=50, seed=3)
    task = tasks.make_attention_task("linear_qk", T, D, r_star, 50, 0.0, 3)
    X, K, V = task.X.double(), task.operator.double(), task.V.double()
    w, U = torch.linalg.eigh(K)
    lam, u = w[D - r_star], U[:, D - r_star]  # the smallest of the r* non-zero eigenvalues, its eigenvector
    term = lam * (X @ u)[..., :, None] * (X @ u)[..., None, :] / math.sqrt(D) @ X @ V
    assert energies["last"] == pytest.approx(float(term.pow(2).sum((1, 2)).mean()), rel=1e-6)
    clean = tasks.attention_scores(X, K, False) @ X @ V
    assert energies["total"] == pytest.approx(float(clean.pow(2).sum((1, 2)).mean()), rel=1e-9)
    softmax = teaching.output_energies("softmax_qk", T, D, r_star, n=50, seed=3)
    assert 0 < softmax["last"] < softmax["total"]


def _glued(notebook: dict) -> dict:
    """Every value the executed notebook glued, by name: a number as the exact value behind its pasted text
    (its text/plain representation, parsed), anything else as its Markdown text."""
    values = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                data = {k.rsplit("/", 2)[-2] + "/" + k.rsplit("/", 1)[-1]: v if isinstance(v, str) else "".join(v)
                        for k, v in output["data"].items()}
                try:
                    values[name] = ast.literal_eval(data["text/plain"])
                except (KeyError, SyntaxError, ValueError):
                    values[name] = data["text/markdown"]
    return values


@pytest.fixture(scope="session")  # session: built once per process, however its tests interleave with others
def glued():
    runner.run("ladder", "tiny", progress=False, log=lambda *_: None)  # the §5-size table reads its population jobs
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
def test_the_noise_solution_states_its_band_and_answers_whether_the_deficit_stays_visible(glued):
    assert glued["teaching_band_pct"] == pytest.approx(100 * FLOOR_BAND)
    assert glued["teaching_noise_band_floors"] == pytest.approx(FLOOR_BAND)
    visible = glued["teaching_noise_relative_high"] > FLOOR_BAND
    assert glued["teaching_noise_visible"].startswith("**Yes" if visible else "**No")


@pytest.mark.integration
def test_the_softmax_solution_finds_a_smaller_gap_and_a_transition_that_survives(glued):
    assert glued["teaching_softmax_gap_softmax"] < glued["teaching_softmax_gap_linear"] / 10
    assert glued["teaching_softmax_signal_softmax"] < glued["teaching_softmax_signal_linear"] / 10
    assert glued["teaching_softmax_gap_softmax"] > FLOOR_BAND * glued["teaching_softmax_at_floor"]
    assert abs(glued["teaching_softmax_at"]) < FLOOR_BAND * glued["teaching_softmax_at_floor"]


@pytest.mark.integration
def test_the_softmax_solution_reconciles_the_energy_heuristic_the_trained_ratio_and_the_papers_factor(glued):
    assert glued["teaching_softmax_signal_ratio"] < glued["teaching_softmax_gap_ratio"]  # whole outputs: too low
    assert glued["teaching_softmax_last_ratio"] == pytest.approx(glued["teaching_softmax_gap_ratio"], rel=0.15)
    claims = attention_native.CLAIMS
    paper = claims["deficiency_linear_qk"].value / claims["deficiency_softmax_qk"].value
    assert glued["teaching_table3_paper_ratio"] == pytest.approx(paper)
    assert glued["teaching_table3_last_ratio"] == pytest.approx(paper, rel=0.15)
    assert glued["teaching_table3_total_ratio"] < paper / 1.5  # the whole-output ratio misses it at those sizes too
    assert glued["teaching_softmax_reconciled_pct"] < 15


@pytest.mark.integration
def test_the_bound_is_set_beside_population_excesses_computed_on_fresh_inputs(glued):
    demo = teaching.break_demo(T=glued["teaching_T"], D=glued["teaching_D"], r_star=glued["teaching_r_star"],
                               n=glued["teaching_n"], sigma=glued["teaching_sigma"])
    excess = demo["excess"].set_index("rung")
    assert glued["teaching_break_floor"] == pytest.approx(demo["floor"])
    for rung in ("b1", "b1c", "b2"):  # the numbers the prose sets beside the bound are population excesses
        population, train = excess.loc[rung.upper().replace("C", "c"), ["population", "train"]]
        assert glued[f"teaching_break_{rung}"] == pytest.approx(population, rel=1e-4)
        assert glued[f"teaching_break_{rung}_train"] == pytest.approx(train, rel=1e-4)
        assert glued[f"teaching_break_{rung}"] > glued["teaching_break_floor"]
    assert glued["teaching_break_share_max"] < 100


@pytest.mark.integration
def test_the_section_5_table_is_the_ladders_stored_population_jobs_at_the_books_profile(glued):
    results = runner.run("ladder", "tiny", compute=False, progress=False, log=lambda *_: None)
    cfg, rows = results.cfg, results["population"]
    assert (glued["teaching_fifth_T"], glued["teaching_fifth_d"], glued["teaching_fifth_r_star"]) == \
        (cfg.T, cfg.d, cfg.r_star)
    first = rows[rows["seed"] == min(cfg.seeds)]
    above = first["population_excess"] - first["equivariant_bound"]
    assert glued["teaching_fifth_above_min"] == pytest.approx(above.min())
    assert glued["teaching_fifth_floor"] == pytest.approx(first["equivariant_bound"].iloc[0])
    assert glued["teaching_fifth_floor"] < glued["teaching_fifth_zero"]
    assert glued["teaching_fifth_tasks"] == len(cfg.seeds)
    assert sorted(first["rung"]) == sorted(r for r in cfg.rungs if r in ladder.EQUIVARIANT)


def test_at_the_papers_section_5_sizes_every_rung_stays_above_the_bound_which_is_most_of_its_excess(monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", paths.ROOT / "results")  # the committed paper results, read only
    results = runner.run("ladder", "paper", compute=False, progress=False, log=lambda *_: None)
    assert "population" in results.tables and not results.missing and not results.stale
    _, fifth = ladder.population_summary(results)
    assert (fifth["T"], fifth["d"], fifth["r_star"]) == (12, 10, 3)
    assert fifth["above_min"] > 0  # population excesses above the bound
    assert 50 < fifth["share_min"] <= fifth["share_max"] < 100
    assert fifth["gap_max"] < 0.05 * fifth["floor"]  # train ≈ population at n = 3000
    assert fifth["floor_min"] <= fifth["floor"] <= fifth["floor_max"] and fifth["floor"] < fifth["zero"]


@pytest.mark.integration
def test_the_page_shows_the_transition_and_the_break_its_prose_describes(glued):
    assert glued["teaching_ey_max_deviation"] < 1e-9 < glued["teaching_ey_min_gap"]
    assert glued["teaching_excess_r1"] > FLOOR_BAND * glued["teaching_floor"] > abs(glued["teaching_excess_rstar"])
    assert abs(glued["teaching_break_b0"]) < FLOOR_BAND * glued["teaching_floor"]
    for student in ("b1", "b1c", "b2"):  # no input-conditioned student beats the equivariant floor
        assert glued[f"teaching_break_{student}"] > 0.9 * glued["teaching_break_floor"]
    assert glued["teaching_native_below"] > FLOOR_BAND * glued["teaching_native_floor"] > abs(
        glued["teaching_native_at"])
