"""App. D's page: "ours" in the form of the paper's cell, and the sentences that say which claims hold."""

import re

import pytest

from entropic import registry
from entropic.jobs import runner
from entropic.publish import page


@pytest.fixture(scope="module")
def tiny():
    return runner.run("ablation", "tiny", progress=False)


def test_recovery_reads_teacher_to_learned_at_the_papers_two_decimals(tiny):
    module = registry.module("ablation")
    table = module.compare(tiny)
    markdown = page.comparison_markdown(table, "caption", "label")
    rows = [line.split(" | ") for line in markdown.splitlines() if "→ learned" in line and line.startswith("| {bdg")]
    assert len(rows) == 3 == (table["kind"] == "recovery").sum()
    assert all(re.fullmatch(r"\d\.\d\d → \d\.\d\d", row[-3]) for row in rows)


def test_a_claim_the_paper_makes_for_every_regime_is_one_row_judged_over_every_spectrum(tiny):
    module = registry.module("ablation")
    table, regime = module.compare(tiny), module.regimes(tiny)
    assert table["paper says"].str.cat(table["where"]).is_unique
    for kind in ("deficiency", "achievability"):
        assert list(table.loc[table["kind"] == kind, "claim holds"]) == [bool(regime[kind].all())]
        shown = table.loc[table["kind"] == kind, "ours shown"].iloc[0]
        assert all(spectrum in shown for spectrum in regime.index)  # every spectrum's number in the cell


def test_the_holding_sentence_names_the_spectra_where_a_claim_does_not_hold(tiny):
    module = registry.module("ablation")
    table, regime = module.compare(tiny), module.regimes(tiny)
    everywhere = module._holding(table, regime.assign(deficiency=True, achievability=True, recovery=True))
    assert everywhere == "Deficiency, achievability and recovery hold on our data for every spectrum."
    flat = regime.assign(deficiency=True, achievability=True, recovery=regime.index != "flat")
    assert module._holding(table, flat) == ("Deficiency and achievability hold on our data for every spectrum; "
                                            "recovery is not reproduced: it does not hold for the flat spectrum.")
