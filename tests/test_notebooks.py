"""Integration: every section notebook executed by papermill at the ``tiny`` profile (see conftest),
asserting on the tables the notebooks wrote, then the book built from them with warnings as errors."""

import json

import pytest

from entropic import paper, paths, results, sections

pytestmark = pytest.mark.integration
VERDICTS = {results.REPRODUCED, results.CLAIM_HOLDS, results.NOT_REPRODUCED}


def test_surrogate_notebook_produces_table_1_beside_the_paper(tiny_tables):
    table = tiny_tables("surrogate_table1", index_col="quantity")
    assert list(table.columns) == ["paper", "ours", "claim", "claim holds", "tolerance", "verdict"]
    assert set(table["verdict"]) <= VERDICTS
    assert table.loc["excess at r=1", "paper"] == paper.TABLE1["excess_r1"]
    assert table.loc["noise floor σ²Td", "ours"] == pytest.approx(0.05**2 * 16 * 12)
    # verdicts follow from the numbers, not from the text
    for _, row in table.iterrows():
        assert row["verdict"] == results.verdict(row["ours"], row["paper"], row["claim holds"],
                                                 *_tolerance(row["tolerance"]))
    # even at tiny sizes the deficiency is unmistakable and the rank-r* student sits at the floor
    assert table.loc["excess at r=1", "claim holds"] and table.loc["excess at r=2", "claim holds"]
    sweep = tiny_tables("surrogate_sweep")
    excess = sweep.groupby("r")["excess"].mean()
    assert excess[1] > excess[2] > 100 * abs(excess[3])


def _tolerance(text):
    # "±25%" or "±(0.0048 + 0%·|paper|)" back to (rtol, atol)
    if text.startswith("±("):
        atol, rtol = text[2:-1].split(" + ")
        return float(rtol.split("%")[0]) / 100, float(atol)
    return float(text[1:-1]) / 100, 0.0


def test_executed_notebooks_record_their_parameters_and_fingerprint(tiny_book):
    for name in sections.SECTIONS:
        nb = json.loads((tiny_book / paths.EXECUTED.relative_to(paths.ROOT) / f"{name}.ipynb").read_text())
        meta = nb["metadata"]["entropic"]
        assert meta["profile"] == "tiny" and meta["params"] == sections.resolve_params(name, "tiny")
        assert meta["fingerprint"] == sections.fingerprint(name, meta["params"])


def test_the_book_builds_and_embeds_every_section_figure(tiny_book):
    index = sections.build_book(root=tiny_book, log=lambda *_: None)
    assert index.is_file()
    page = (index.parent / "build" / "sections" / "surrogate.html").read_text()
    assert 'id="fig-surrogate-excess"' in page
    assert "<img" in page and "Table 1" in page
    assert "claim holds" in page  # the verdict table is on the page
