import pytest

from entropic import results


@pytest.mark.parametrize("ours, holds, expected", [
    (10.0, True, results.REPRODUCED),
    (12.4, True, results.REPRODUCED),
    (20.0, True, results.CLAIM_HOLDS),
    (10.0, False, results.NOT_REPRODUCED),
])
def test_verdict_separates_value_and_claim(ours, holds, expected):
    assert results.verdict(ours, 10.0, holds, rtol=0.25) == expected


def test_coefficient_of_variation_uses_the_population_std():
    assert results.coefficient_of_variation([1.0, 3.0]) == pytest.approx(0.5)
    assert results.coefficient_of_variation([2.0]) == 0.0


def test_summary_is_generated_from_the_table():
    table = results.comparison_table([results.comparison_row("x", 1.0, 2.0, "x > 0", True)])
    text = results.summary_markdown(table)
    assert "ours 1 vs. the paper's 2" in text and results.CLAIM_HOLDS in text
