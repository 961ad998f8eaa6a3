"""§4's page: "ours" in the form of the paper's cell, and the sentences that say which claims hold."""

import pytest

from entropic import registry
from entropic.jobs import runner
from entropic.publish import page
from entropic.sections.surrogate.prose import holding_text, like_paper


def ours_cells(module, results) -> dict[str, str]:
    """The "ours" cell of every row of the page's comparison, as the page writes it."""
    markdown = page.comparison_markdown(module.compare(results), "caption", "label")
    rows = [line.split(" | ") for line in markdown.splitlines() if line.startswith("| {bdg")]
    return {row[1].replace("\\", ""): row[-3] for row in rows}


def test_a_power_of_ten_keeps_the_papers_form_and_digits():
    assert like_paper(5.17e-4, "≈ 2×10⁻⁴") == "5×10⁻⁴"
    assert like_paper(37.822, "28.5") is None  # a plain decimal: the page writes it with the paper's decimals


@pytest.fixture(scope="module")
def tiny():
    return runner.run("surrogate", "tiny", progress=False)


def test_the_page_writes_every_ours_as_the_paper_writes_its_number(tiny):
    module = registry.module("surrogate")
    table, ours = module.compare(tiny), ours_cells(module, tiny)
    assert ours["excess at r = 1"] == f"{table.loc['excess at r = 1', 'ours']:.1f}"  # 28.5: one decimal
    assert "×10" in ours["max |excess| at r ≥ r*"]  # ≈ 2×10⁻⁴: a power of ten
    ranks = tiny["data_only"]["numerical_rank"]
    if ranks.nunique() == 1:
        assert ours["data-only numerical rank"] == f"exactly {int(ranks.iloc[0])}"  # "exactly 3"


def test_the_holding_sentence_follows_the_claims(tiny):
    table = registry.module("surrogate").compare(tiny)
    assert holding_text(table.assign(**{"claim holds": True})) == \
        "Deficiency, achievability, recovery and predictability hold on our data."
    broken = table.assign(**{"claim holds": table["kind"] != "recovery"})
    assert holding_text(broken) == ("Deficiency, achievability and predictability hold on our data. The recovery "
                                    "claim is not reproduced.")
