"""§5's page: "ours" in the form of the paper's cell, and the sentences that follow the data."""

import re

import pytest

from entropic import registry
from entropic.jobs import runner
from entropic.publish import page


@pytest.fixture(scope="module")
def tiny():
    return runner.run("ladder", "tiny", progress=False)


def test_the_softmax_ratio_shows_the_two_excesses_as_the_paper_does(tiny):
    module = registry.module("ladder")
    markdown = page.comparison_markdown(module.compare(tiny), "caption", "label")
    row = next(line.split(" | ") for line in markdown.splitlines() if "B2 / B1" in line and line.startswith("| {bdg"))
    assert re.fullmatch(r"\d\.\d+ \(\d+\.\d / \d+\.\d\)", row[-3])  # the ratio, then the two excesses


def test_the_reading_of_b3_and_the_break_follow_the_data(tiny):
    facts = registry.module("ladder").facts(tiny)
    assert facts["b3_direction"] in facts["b3_text"] or "below it as well" in facts["b3_text"]
    assert "fails" not in facts["conclusion"]  # the rungs' words are never a verdict's


def test_the_rungs_place_beside_the_bound_is_said_in_the_words_their_excesses_decide():
    from entropic.sections.ladder import beside_bound

    assert beside_bound(0.5, 7.0) == "exceed the bound by 0.5 to 7"
    assert beside_bound(-2.0, -0.25) == "fall below the bound by 0.25 to 2"
    assert beside_bound(-1.0, 3.0) == "range from 1 below the bound to 3 above it"



def test_the_rungs_figure_reading_follows_each_rungs_seeds_against_the_band(tiny):
    from dataclasses import replace

    from entropic.sections.ladder import noise_floor, rung_reading

    runs = tiny["runs"].copy()
    band = 0.05 * noise_floor(tiny)
    at = runs["r"] == tiny.cfg.r_star
    doctored = runs.assign(excess=runs["excess"].where(~(at & (runs["rung"] == "B1")), band / 2)
                                                 .where(~(at & (runs["rung"] == "B0")), 10 * band))
    said = rung_reading(replace(tiny, tables={**tiny.tables, "runs": doctored}))
    inside, _, above = said.partition(";")
    assert "B1" in inside and "B0" not in inside, said
    assert "B0" in above and "the least at 10 times its half-width" in above, said
