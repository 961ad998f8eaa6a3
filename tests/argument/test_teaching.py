"""The teaching module's experiments and their figures, and the teaching page: executed through papermill, it
sets the equivariance bound beside population excesses, and its solutions compute the answers the exercises
ask for."""

import ast
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import torch

from entropic import paths
from entropic.argument import explorables, teaching
from entropic.engine.synthetic import tasks, theorems
from entropic.jobs import runner
from entropic.publish import build as book
from entropic.report.numbers import number
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


def test_the_first_rung_out_of_the_band_is_found_in_ladder_order_and_bad_input_is_refused():
    excess = pd.DataFrame({"rung": ["B0", "B1", "B2"], "population": [0.001, 5.0, 4.0]})
    assert teaching.first_failing_rung(excess, 1.0, 0.05) == "B1"
    assert teaching.first_failing_rung(excess.iloc[:1], 1.0, 0.05) is None
    with pytest.raises(ValueError):
        teaching.first_failing_rung(excess, 1.0, 0.0)


def test_the_bounds_share_grows_with_t_towards_its_first_order_value():
    shares = teaching.bound_share((4, 16, 64), D=4, r_star=2, seed=1)
    assert shares["share"].is_monotonic_increasing and (shares["share"] < 1).all()
    assert shares["share"].iloc[-1] == pytest.approx(shares["first_order"].iloc[-1], abs=0.01)
    with pytest.raises(ValueError):
        teaching.bound_share((2,), r_star=3)


def test_the_static_rank_sweep_refuses_an_unknown_task_and_the_slope_needs_two_tasks():
    with pytest.raises(ValueError):
        teaching.static_rank_sweep("softmax_qk")
    with pytest.raises(ValueError):
        teaching.rank_slope(pd.DataFrame({"r_star": [1], "learned": [1.0]}))
    assert teaching.rank_slope(pd.DataFrame({"r_star": [1, 2, 3], "learned": [2.0, 4.0, 6.0]})) == pytest.approx(2)


def test_the_sizes_clause_names_the_ladders_sizes_only_where_they_differ_from_the_papers():
    paper = {"T": 12, "d": 10, "r_star": 3}
    assert teaching.sizes_clause(paper, {**paper, "n": 3000}) == "runs it at the same sizes"
    assert teaching.sizes_clause(paper, {"T": 6, "d": 4, "r_star": 2}) == "runs it at $T = 6$, $d = 4$, $r^* = 2$"
    with pytest.raises(ValueError):
        teaching.sizes_clause(paper, {"T": 6})


def test_data_only_estimates_name_both_teachers_with_their_ranks():
    estimates = teaching.data_only_estimates(T=4, D=8, r_star=2, n=60).set_index("teacher")
    assert list(estimates.index) == list(tasks.TEACHERS)
    assert estimates.loc["linear_qk", "numerical_rank"] == 2  # exact before training at any size with T ≤ D


def _glued(notebook: dict) -> dict:
    """Every value the executed notebook glued, by name: a number as the exact value behind its pasted text
    (its text/plain representation, parsed), text as its Markdown; figures are left out."""
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
                    if "text/markdown" in data:  # a glued figure (the lesson's pictures) has no text to paste
                        values[name] = data["text/markdown"]
    return values


@pytest.fixture(scope="session")
def glued(tiny_book):
    """The teaching page as the tiny book rendered it (once per test run, with the ladder's tiny results its §5-size
    table reads): found current here, not rendered again."""
    path = book.execute("teaching", "tiny", {}, log=lambda *_: None)
    notebook = json.loads(path.read_text())
    assert not [o for c in notebook["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    return _glued(notebook)


# The answers of the exercises, each against a value computed another way: a closed form, a number worked out
# by hand (stated here), or a second estimator.
SHARP = (2.0, 1.5, 1.0)  # eq. (8) at r* = 3
SHANNON_SHARP = 2.8888  # exp(H(2/4.5, 1.5/4.5, 1/4.5)), by hand
ENERGY_SHARP = 2.6234  # exp(H(4/7.25, 2.25/7.25, 1/7.25)), by hand


def energy_rank(spectrum) -> float:
    """eq. (2) of a spectrum, written out (not the library's)."""
    p = np.asarray(spectrum, dtype=float) ** 2
    p = p / p.sum()
    return float(np.exp(-(p * np.log(p)).sum()))


def test_the_by_hand_ranks_of_the_sharp_spectrum_are_right():
    assert energy_rank(SHARP) == pytest.approx(ENERGY_SHARP, abs=1e-4)
    p = np.array(SHARP) / sum(SHARP)
    assert float(np.exp(-(p * np.log(p)).sum())) == pytest.approx(SHANNON_SHARP, abs=1e-4)


@pytest.mark.integration
def test_exercise_1_the_ratio_is_the_by_hand_tail_ratio_and_training_agrees(glued):
    assert glued["teaching_ratio_sharp"] == pytest.approx(1 + 1.5**2)  # (1.5² + 1²)/1² = 3.25
    assert glued["teaching_ratio_power_law"] == pytest.approx((1 / 4 + 1 / 9) / (1 / 9))  # also 3.25
    assert glued["teaching_ratio_flat"] == pytest.approx(2.0)
    assert glued["teaching_ratio_power_law_trained"] == pytest.approx(glued["teaching_ratio_power_law"], rel=0.1)
    # answered with the moving figure: its readouts at r = 1 and r = 2 give 1 + (λ₂/λ₃)² for each of its spectra
    moved = [float(value.split(" (")[0]) for value in re.split(r", | and ", glued["teaching_ratio_moved"])]
    assert moved == pytest.approx([1 + 1.5**2, 2.0, 1 + 2.0**2], rel=1e-3)  # linear (eq. 8), flat, geometric ½


@pytest.mark.integration
def test_exercise_2_noise_keeps_the_deficit_and_shrinks_it_in_floors_as_the_closed_form_says(glued):
    assert glued["teaching_noise_sigma"] == pytest.approx(10 * glued["teaching_sigma"])
    assert glued["teaching_noise_excess_r1_high"] == pytest.approx(glued["teaching_noise_excess_r1_low"], rel=0.1)
    task = tasks.make_surrogate_task(glued["teaching_T"], glued["teaching_D"], glued["teaching_r_star"],
                                     glued["teaching_n"], glued["teaching_sigma"], 0)
    optimum = theorems.rank_r_optimum(task.operator.double().numpy(), task.V.double().numpy(),
                                      glued["teaching_r_star"] - 1)[0]
    floor = glued["teaching_noise_sigma"] ** 2 * glued["teaching_T"] * glued["teaching_D"]
    assert glued["teaching_noise_relative_high"] == pytest.approx(optimum / floor, rel=0.15)  # trained vs closed form
    assert abs(glued["teaching_noise_excess_rstar_high"]) < FLOOR_BAND * glued["teaching_noise_floor_high"]
    visible = glued["teaching_noise_relative_high"] > FLOOR_BAND
    assert ("stays outside" if visible else "falls inside") in glued["teaching_noise_visible"]
    # answered with the moving figure (r* = 3, the paper's spectrum, r = 2): the σ a reader finds by sliding it up is
    # the closed form √(Σ_{j>2} λ_j² / (band · T)) = √(1 / (0.05 · 16)), rounded up to the slider's step
    exact = math.sqrt(1.0 / (FLOOR_BAND * 16))
    assert glued["teaching_noise_entering_sigma"] == pytest.approx(exact, rel=1e-12)
    assert exact <= glued["teaching_noise_slider_sigma"] < exact + explorables.SIGMAS[2]
    assert glued["teaching_band_pct"] == pytest.approx(100 * FLOOR_BAND)


@pytest.mark.integration
def test_exercise_3_the_first_rung_to_leave_the_band_is_the_one_the_closed_form_bound_forbids(glued):
    task = tasks.make_surrogate_task(glued["teaching_T"], glued["teaching_D"], glued["teaching_r_star"],
                                     glued["teaching_n"], glued["teaching_sigma"], 0)
    bound = theorems.equivariant_floor(task.operator.double().numpy(), task.V.double().numpy())
    assert bound == pytest.approx(glued["teaching_break_floor"])
    assert bound > FLOOR_BAND * task.noise_floor  # so every attention rung must leave the band: B1 first
    assert glued["teaching_ladder_first"] == "B1: linear QK"
    assert abs(glued["teaching_break_b0"]) < FLOOR_BAND * task.noise_floor  # B0 can copy A* (Eckart–Young: 0)
    assert glued["teaching_ladder_full_ratio"] == pytest.approx(1.0, abs=0.1)  # full rank does not repair it


@pytest.mark.integration
def test_exercise_4_the_bounds_share_is_the_by_hand_first_order_value_and_a_permutation_average(glued):
    large, small = glued["teaching_bound_T_large"], glued["teaching_bound_T_small"]
    assert glued["teaching_bound_share_large"] == pytest.approx(100 * (1 - 4.5**2 / (large * 7.25)), abs=0.5)
    task = tasks.make_surrogate_task(small, glued["teaching_D"], glued["teaching_r_star"], 2, 0.0, 0)
    A = task.operator.double().numpy()
    rng = np.random.default_rng(0)
    average = np.zeros_like(A)
    for _ in range(20_000):  # the average over token permutations, drawn at random: the second estimator
        order = rng.permutation(small)
        average += A[np.ix_(order, order)]
    average /= 20_000
    share = 100 * np.sum((A - average) ** 2) / np.sum(A**2)
    assert glued["teaching_bound_share_small"] == pytest.approx(share, abs=1.5)
    assert glued["teaching_bound_share_small"] < glued["teaching_bound_share_large"]


@pytest.mark.integration
def test_exercise_6_the_energy_rank_keeps_the_teachers_by_hand_value_and_the_shannon_rank_moves(glued):
    assert glued["teaching_measures_teacher_shannon"] == pytest.approx(SHANNON_SHARP, abs=1e-3)
    assert glued["teaching_measures_teacher_energy"] == pytest.approx(ENERGY_SHARP, abs=1e-3)
    assert glued["teaching_measures_learned_energy"] == pytest.approx(ENERGY_SHARP, abs=0.02)
    assert glued["teaching_measures_learned_shannon"] > SHANNON_SHARP + 0.1
    assert glued["teaching_measures_shannon_moved"] > 20 * abs(glued["teaching_measures_energy_moved"])
    assert glued["teaching_measures_bulk_energy"] < glued["teaching_measures_bulk_share"] / 10


@pytest.mark.integration
def test_exercise_7_the_linear_estimate_is_exact_by_hand_and_the_softmax_one_is_not(glued):
    assert glued["teaching_predict_r_star"] == 3
    assert glued["teaching_predict_linear_rank"] == 3
    assert glued["teaching_predict_linear_energy"] == pytest.approx(ENERGY_SHARP, rel=0.005)
    assert glued["teaching_predict_teacher_energy"] == pytest.approx(ENERGY_SHARP, abs=1e-3)
    assert glued["teaching_predict_softmax_error"] > 5 > glued["teaching_predict_linear_error"]
    assert abs(glued["teaching_predict_softmax_energy"] / ENERGY_SHARP - 1) > 0.05


@pytest.mark.integration
def test_exercise_8_inside_the_class_the_kernel_tracks_the_by_hand_teacher_ranks_outside_it_does_not(glued):
    r_stars = np.arange(1, 7)
    teacher = [energy_rank(tasks.teacher_spectrum(int(r)).numpy()) for r in r_stars]
    assert glued["teaching_text_slope_inside"] == pytest.approx(np.polyfit(r_stars, teacher, 1)[0], abs=0.05)
    assert glued["teaching_text_outside_r1"] > 3  # a task of rank 1 read as a kernel of rank > 3
    assert glued["teaching_text_slope_outside"] < glued["teaching_text_slope_inside"] / 2
    assert glued["teaching_text_outside_excess_min"] > 10 * FLOOR_BAND * 0.05**2 * 8 * 8  # no student at the floor


@pytest.mark.integration
def test_exercise_5_softmax_finds_a_smaller_gap_and_a_transition_that_survives(glued):
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
    same = (cfg.T, cfg.d, cfg.r_star) == (ladder.Config().T, ladder.Config().d, ladder.Config().r_star)
    assert (glued["teaching_fifth_sizes"] == "runs it at the same sizes") == same  # never the same sizes twice
    assert sorted(first["rung"]) == sorted(r for r in cfg.rungs if r in ladder.EQUIVARIANT)


def test_at_the_papers_section_5_sizes_every_rung_stays_above_the_bound_which_is_most_of_its_excess(monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", paths.ROOT / "results")  # the committed paper results, read only
    results = runner.run("ladder", "paper", compute=False, progress=False, log=lambda *_: None)
    assert "population" in results.tables and not results.missing and not results.stale
    _, fifth = ladder.population_summary(results)
    assert (fifth["T"], fifth["d"], fifth["r_star"]) == (12, 10, 3)
    paper = {name: getattr(ladder.Config(), name) for name in ("T", "d", "r_star")}
    assert teaching.sizes_clause(paper, fifth) == "runs it at the same sizes"  # the page says so once
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


@pytest.mark.integration
def test_the_page_writes_its_slides_and_handout_and_links_them(glued):
    from entropic.argument import lesson, lesson_text

    folder = paths.BUILD / "lesson"
    slides, handout = folder / lesson.SLIDES, folder / lesson.HANDOUT
    assert slides.is_file() and handout.is_file()
    assert "{download}`the slides <../lesson/teaching-slides.html>`" in glued["teaching_materials"]
    assert "{download}`the one-page handout <../lesson/teaching-handout.pdf>`" in glued["teaching_materials"]
    chapter = paths.notebook_source("teaching").read_text()
    parts = lesson_text.lesson_parts(chapter)
    deck = re.sub(r"<script.*?</script>|<style.*?</style>", "", slides.read_text(), flags=re.S)
    count = len(re.findall(r'<section\b', deck)) - len(re.findall(r'<section>\s*<section', deck))
    expected = 3 + sum(1 + len(b["exercises"]) + bool(b["takeaway"]) for b in parts["blocks"]) + 3
    assert count == expected == 30 and f"({expected} reveal.js slides" in glued["teaching_materials"]
    assert deck.count("<img ") == len(parts["blocks"])  # one picture per block, each on a slide of its own
    for solution in lesson_text.solution_texts(chapter):  # no solution's prose, and none of its computed numbers
        for phrase in re.split(r"\{[\w:-]+\}`[^`]*`|\$[^$]*\$|[*`()]", solution):
            assert len(phrase.strip()) < 25 or phrase.strip() not in deck, phrase
    for name in ("teaching_ratio_power_law_trained", "teaching_bound_share_small", "teaching_text_outside_r1",
                 "teaching_predict_softmax_energy", "teaching_measures_shannon_moved", "teaching_ladder_full_ratio"):
        assert number(glued[name]) not in deck, name


def test_each_words_about_rank_from_data_follow_the_estimates_the_lesson_plan_included():
    """The take-away, the summary and the lesson plan's cell say "exactly" / "both teachers" only of teachers whose
    count is r* and whose energy rank is within the tolerance of the teacher's (Exercise 7's table)."""
    estimates = pd.DataFrame({
        "linear_qk": {"numerical_rank": 3, "energy_rank": 2.62, "teacher_energy_rank": 2.62, "relative_error": 0.004},
        "softmax_qk": {"numerical_rank": 3, "energy_rank": 2.86, "teacher_energy_rank": 2.62, "relative_error": 0.16},
    }).T
    both = teaching.predict_reading(estimates, 3, 0.10)  # 2.86 lies within 10 % of 2.62
    assert both["path"] == "both teachers" and "both teachers" in both["takeaway"] and "in part" not in both["summary"]
    part = teaching.predict_reading(estimates, 3, 0.05)  # but not within 5 %
    assert part["path"] == "linear: exact; softmax: in part"
    assert "exactly for linear attention, only in part under softmax" in part["takeaway"]
