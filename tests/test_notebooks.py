"""Integration: every page of the table of contents rendered by papermill at the ``tiny`` profile (see
conftest), asserting on the tables the pages wrote, then the book built with warnings as errors."""

import json

import pytest

from entropic import paths
from entropic.pipeline import book, verdicts

pytestmark = pytest.mark.integration
SHOWN = ["paper says", "where", "paper value", "ours", "kind", "criterion", "claim holds", "value tolerance",
         "value agrees", "rtol", "atol", "upper bound", "verdict"]


@pytest.mark.parametrize("section, name", [("surrogate", "table1"), ("ladder", "table2"),
                                           ("attention_native", "table3")])
def test_every_page_writes_its_table_beside_the_paper_with_verdicts_from_the_data(tiny_tables, section, name):
    table = tiny_tables(section, name, index_col="quantity")
    assert list(table.columns) == SHOWN
    for _, row in table.iterrows():
        assert row["criterion"] == verdicts.CRITERIA[row["kind"]]
        claim = verdicts.Claim(row["paper says"], None if row["paper value"] != row["paper value"] else
                               row["paper value"], "")
        agrees = verdicts.value_agrees(row["ours"], claim, row["rtol"], row["atol"], bool(row["upper bound"]))
        assert row["verdict"] == verdicts.verdict(bool(row["claim holds"]), agrees)


def test_the_surrogate_page_shows_the_deficiency_and_the_floor(tiny_tables):
    sweep = tiny_tables("surrogate", "sweep")
    excess = sweep.groupby("r")["excess"].mean()
    assert excess[1] > excess[2] > 100 * abs(excess[3])
    assert set(sweep.columns) >= {"loss", "final_loss", "tail_median", "tail_max", "steps_run", "unstable"}


def test_executed_pages_record_their_parameters_and_show_the_injected_ones(tiny_book):
    for name in book.toc_notebooks():
        nb = json.loads((paths.EXECUTED / f"{name}.ipynb").read_text())
        assert nb["metadata"]["entropic"]["profile"] == "tiny"
        tags = [c["metadata"].get("tags", []) for c in nb["cells"]]
        assert any("injected-parameters" in t for t in tags)
        assert all("remove-cell" in t for t in tags if "parameters" in t)


def test_the_book_builds_with_banner_configuration_table_and_figures(tiny_book):
    index = book.build(root=tiny_book, log=lambda *_: None)
    figures = {"surrogate": ["fig-surrogate-excess"], "ladder": ["fig-ladder-excess", "fig-ladder-sweep"],
               "attention_native": ["fig-attention-excess", "fig-attention-recovery"]}
    for name in book.toc_notebooks():
        page = (index.parent / "build" / "sections" / f"{name}.html").read_text()
        for figure in figures.get(name, []):
            assert f'id="{figure}"' in page, (name, figure)
        assert "Shown: profile" in page and "differs from the paper" in page
        assert "◀ differs" in page and "verdict" in page
