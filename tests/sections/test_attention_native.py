"""The attention-native page's sentences written from its data."""

from entropic.sections.attention_native import cv_sentence


def test_the_seed_cv_is_placed_against_the_papers_two_numbers_in_the_words_its_value_decides():
    assert "0.0064, below the paper's threshold of 0.10 for a clean signal and above its stated 0.003" in \
        cv_sentence(0.0064)
    assert "below the paper's threshold of 0.10 for a clean signal and below its stated 0.003" in cv_sentence(0.002)
    assert "above the paper's threshold" in cv_sentence(0.2)
