"""The explorables' numpy side (argument/explorables.py): the surrogate's bound in noise floors is the Eckart–Young
tail of each spectrum, the σ a reader finds on the slider is the closed form's, rounded up to the slider's step, and
§4's stored students land on the curve. What the page draws is compared with these in tests/test_browser.py."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from entropic.argument import explorables


def test_the_risk_in_floors_is_one_plus_the_tail_of_each_spectrum_over_sigma_squared_t():
    T, sigma = 16, 0.05
    sharp = explorables.surrogate_risk(3, "sharp", 0.5, sigma, T).set_index("r")
    assert sharp.loc[1, "tail"] == pytest.approx(1.5**2 + 1**2) and sharp.loc[2, "tail"] == pytest.approx(1.0)
    assert (sharp.loc[3:, "excess"] == 0).all() and (sharp.loc[3:, "risk"] == 1).all()
    assert sharp.loc[1, "risk"] == pytest.approx(1 + 3.25 / (sigma**2 * T))
    geometric = explorables.surrogate_risk(4, "geometric", 0.5, sigma, T).set_index("r")
    assert geometric.loc[1, "tail"] == pytest.approx(0.25 + 0.25**2 + 0.25**3)
    flat = explorables.surrogate_risk(5, "flat", 0.5, sigma, T).set_index("r")
    assert list(flat.loc[1:5, "tail"]) == [4, 3, 2, 1, 0]


def test_the_ratio_of_the_first_two_excesses_is_one_plus_the_squared_ratio_of_the_last_two_eigenvalues():
    for kind, ratio in (("sharp", 0.5), ("flat", 0.5), ("geometric", 0.5), ("geometric", 0.3)):
        lam = explorables.spectrum(3, kind, ratio)
        excess = explorables.surrogate_risk(3, kind, ratio, 0.05).set_index("r")["excess"]
        assert excess[1] / excess[2] == pytest.approx(1 + (lam[1] / lam[2]) ** 2, rel=1e-12)


def test_the_sigma_found_on_the_slider_is_the_closed_form_rounded_up_to_its_step():
    for r, r_star, kind in ((2, 3, "sharp"), (1, 2, "flat"), (3, 5, "geometric")):
        exact = explorables.sigma_entering_band(0.05, r, r_star, kind)
        found = explorables.least_sigma_within(0.05, r, r_star, kind)
        step = explorables.SIGMAS[2]
        assert exact <= found + 1e-12 < exact + step
        risk = explorables.surrogate_risk(r_star, kind, 0.5, exact).set_index("r")
        assert risk.loc[r, "excess"] == pytest.approx(0.05)
    with pytest.raises(ValueError, match="no σ up to"):
        explorables.least_sigma_within(1e-6, 1, 8, "sharp")


def test_stored_students_are_rescaled_to_the_expected_value_map_and_sit_on_the_curve_when_at_their_optimum():
    d, T, sigma = 12, 16, 0.05
    floor = sigma**2 * T * d
    tails = {1: 3.25, 2: 1.0, 3: 0.0}
    rows = [{"seed": seed, "r": r, "eckart_young": energy * tail, "excess": energy * tail, "noise_floor": floor}
            for seed, energy in ((0, 13.6), (1, 10.1)) for r, tail in tails.items()]
    points = explorables.stored_students(pd.DataFrame(rows), T, d)
    curve = explorables.surrogate_risk(3, "sharp", 0.5, sigma, T).set_index("r")["risk"]
    assert np.allclose(points["risk"], points["r"].map(curve), rtol=1e-12)


def test_bad_settings_are_refused_naming_the_value():
    with pytest.raises(ValueError, match="ratio"):
        explorables.spectrum(3, "geometric", 1.0)
    with pytest.raises(ValueError, match="unknown spectrum"):
        explorables.spectrum(3, "power", 0.5)
    with pytest.raises(ValueError, match="σ must be positive"):
        explorables.surrogate_risk(3, "sharp", 0.5, 0.0)
    with pytest.raises(ValueError, match="r\\* must lie"):
        explorables.surrogate_risk(17, "sharp", 0.5, 0.05)


def test_the_explorable_prints_as_its_static_figure_with_the_line_saying_the_web_book_moves_it():
    html = explorables.as_html(explorables.surrogate_bound())
    assert html.count('class="explorable-live"') == 1 and html.count('class="explorable-print"') == 1
    assert 'src="data:image/png;base64,' in html and "In the web book this figure moves: its sliders change" in html
    assert 'alt="Interactive chart' in html and 'aria-label="Interactive chart' in html
    assert "cdn.bokeh.org" not in html and "<script src" not in html  # Bokeh's files come from the book itself
    item = re.search(r'<script type="application/json" class="explorable-item">(.*?)</script>', html, re.S)[1]
    assert json.loads(item)["doc"]["roots"], "the live figure is a Bokeh document the book's loader draws"
    assert 'class="explorable-target" style="min-height: 365px"' in html  # its room kept until it is drawn


def test_each_rank_case_holds_its_stored_students_in_floors_their_means_and_the_claims_on_it():
    runs = pd.DataFrame([{"rung": rung, "seed": seed, "r": 3, "excess": excess + seed, "noise_floor": 0.5}
                         for rung, excess in (("B0", 0.0), ("B1", 30.0), ("B2", 29.0)) for seed in (0, 1)]
                        + [{"rung": "B1", "seed": 0, "r": 2, "excess": 99.0, "noise_floor": 0.5}])  # not r*: left out
    sweep = pd.DataFrame([{"teacher": "linear_qk", "r_star": 2, "seed": seed, "r": r, "excess": 4.0 / r - 2 + seed,
                           "noise_floor": 2.0} for seed in (0, 1) for r in (1, 2)])
    claims = pd.DataFrame({"section": ["ladder", "ladder", "ladder", "attention_native", "attention_native"],
                           "quantity": ["B0: max", "B1: mean", "B2 / B1 excess", "linear_qk: mean", "softmax_qk: x"],
                           "verdict": ["reproduced", "claim holds", "value differs", "reproduced", "fails"]})
    cases = explorables.rank_cases(runs, 3, sweep, claims)
    assert list(cases) == ["B0", "B1", "B2", "linear_qk-2"]
    assert cases["B1"]["r"] == [3, 3] and cases["B1"]["risk"] == [61.0, 63.0] and cases["B1"]["mean_risk"] == [62.0]
    assert cases["B1"]["claims"] == [("B1: mean", "claim holds"), ("B2 / B1 excess", "value differs")]
    assert cases["B0"]["claims"] == [("B0: max", "reproduced")]
    assert cases["linear_qk-2"]["mean_r"] == [1, 2] and cases["linear_qk-2"]["mean_risk"] == [2.25, 1.25]
    assert cases["linear_qk-2"]["claims"] == [("linear: mean", "reproduced")]  # in words, its teacher's only
    html = explorables.as_html(explorables.static_against_native(cases))
    assert 'id="explorable-static-against-native"' in html and "moves: its menus choose the teacher" in html


def _reading(gaps: np.ndarray, tokens=(1000, 2000, 3000, 4000), grid=(1, 2, 4), known=4.0, excess=None) -> dict:
    """A complete reading as ``text_rank.third.readings`` gives it: paired gaps (widths × seeds × checkpoints)."""
    return {"corpus": "routing rank 4", "reading": "stored seeds", "budget": tokens[-1], "grid": list(grid),
            "complete": True, "known_rank": known, "paired": (np.array(tokens), gaps),
            "full_excess": None if excess is None else np.array(excess)}


def test_the_loss_reading_reads_a_case_of_known_answer_by_the_third_rule_and_moves_with_delta():
    """Width 1 stays 0.5 nats above the full width at every checkpoint; width 2 within ±0.0005 of it: r̂ = 2, exactly
    (width 1 persists), at δ = 0.01; at δ = 1 every width is within it (r̂ = 1); at δ = 0.0001 width 2's upper
    bound is above it (r̂ = 4, the full width)."""
    noise = np.array([[0.0005, -0.0005, 0.0003, -0.0002], [-0.0004, 0.0002, -0.0003, 0.0004],
                      [0.0001, 0.0001, 0.0, -0.0003]])
    gaps = np.stack([0.5 + noise, noise])  # (2 widths, 3 seeds, 4 checkpoints)
    cases = explorables.loss_cases(pd.DataFrame([_reading(gaps, excess=[0.3, 0.2, 0.1, 0.005])]))
    case = cases["routing rank 4|stored seeds|4000"]
    assert case["budgets"] == explorables.admissible([1000, 2000, 3000, 4000]) == [2000, 3000, 4000]
    assert case["known"] == 4 and case["generator"] and case["excess"] == [0.3, 0.2, 0.1, 0.005]
    found = explorables.reading_at(case, 4000, 0.01)
    assert (found["r_hat"], found["exact"], found["states"]) == (2, True, ["persisting", "within δ"])
    assert found["mean"][0] == pytest.approx(0.5 + noise[:, -1].mean())
    assert explorables.reading_at(case, 4000, 1.0)["r_hat"] == 1
    assert explorables.reading_at(case, 4000, 0.0001)["r_hat"] == 4
    html = explorables.as_html(explorables.rank_from_losses(cases, 0.01))
    assert 'id="explorable-rank-from-losses"' in html and "moves: its menu chooses the reading" in html


def test_a_text_has_no_known_rank_or_floor_and_no_reading_is_refused():
    text = {**_reading(np.zeros((1, 2, 4)), grid=(2, 4), known=np.nan), "corpus": "english", "reading": "fresh seeds"}
    incomplete = {**text, "corpus": "linux", "complete": False}
    cases = explorables.loss_cases(pd.DataFrame([text, incomplete]))
    assert list(cases) == ["english|fresh seeds|4000"]
    case = cases["english|fresh seeds|4000"]
    assert case["known"] is None and case["excess"] is None and not case["generator"]
    assert case["label"] == "english: fresh seeds, 0.004M tokens"
    with pytest.raises(ValueError, match="no reading of the capacity sweep is complete"):
        explorables.rank_from_losses({}, 0.01)
