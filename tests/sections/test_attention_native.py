"""The attention-native page's sentences written from its data."""

from dataclasses import replace

import pytest

from entropic.jobs import runner
from entropic.sections.attention_native import cv_sentence, excess_reading


def test_the_seed_cv_is_placed_against_the_papers_two_numbers_in_the_words_its_value_decides():
    assert "0.0064, below the paper's threshold of 0.10 for a clean signal and above its stated 0.003" in \
        cv_sentence(0.0064)
    assert "below the paper's threshold of 0.10 for a clean signal and below its stated 0.003" in cv_sentence(0.002)
    assert "above the paper's threshold" in cv_sentence(0.2)


@pytest.fixture(scope="module")
def tiny():
    return runner.run("attention_native", "tiny", progress=False)


def test_the_excess_figures_reading_counts_the_students_against_the_band_and_sizes_the_step(tiny):
    sweep = tiny["sweep"]
    deficient = sweep["r"] < sweep["r_star"]
    assert f"All {int(deficient.sum())} deficient students lie above the band" in excess_reading(tiny)
    one = sweep.index[deficient][0]  # one deficient student doctored into the band
    doctored = sweep.assign(excess=sweep["excess"].where(sweep.index != one, 0.0))
    said = excess_reading(replace(tiny, tables={**tiny.tables, "sweep": doctored}))
    assert f"{int(deficient.sum()) - 1} of the {int(deficient.sum())} deficient students lie above the band" in said
    short = sweep["r"] == sweep["r_star"] - 1  # the softmax step made a hundred times the linear one
    linear = sweep.loc[short & (sweep["teacher"] == "linear_qk"), "excess"].mean()
    larger = sweep.assign(excess=sweep["excess"].where(~(short & (sweep["teacher"] == "softmax_qk")),
                                                       100 * linear))
    said = excess_reading(replace(tiny, tables={**tiny.tables, "sweep": larger}))
    assert "is 2 decades larger for softmax than for linear" in said, said
