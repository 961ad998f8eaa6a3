"""Integration: every page of the table of contents rendered by papermill at the ``tiny`` profile (see
conftest), asserting on the tables the pages wrote, then the book built with warnings as errors."""

import inspect
import json

import pytest

from conftest import check_verdicts
from entropic import paths
from entropic.publish import build as book

pytestmark = pytest.mark.integration
SHOWN = ["paper says", "where", "paper value", "ours", "kind", "estimator", "criterion", "claim holds",
         "value tolerance", "value agrees", "se", "exact", "upper bound", "p", "undecided", "verdict", "paper range",
         "spread", "ours shown"]


@pytest.mark.parametrize("section, name", [("surrogate", "table1"), ("ladder", "table2"),
                                           ("attention_native", "table3")])
def test_every_page_writes_its_table_beside_the_paper_with_verdicts_from_the_data(tiny_tables, section, name):
    table = tiny_tables(section, name, index_col="quantity")
    assert list(table.columns) == SHOWN
    check_verdicts(table)


def test_the_surrogate_page_shows_the_deficiency_and_the_floor(tiny_tables):
    sweep = tiny_tables("surrogate", "sweep")
    excess = sweep.groupby("r")["excess"].mean()
    assert excess[1] > excess[2] > 100 * abs(excess[3])
    assert set(sweep.columns) >= {"loss", "final_loss", "tail_median", "tail_max", "steps_run", "unstable"}


def test_executed_pages_record_their_parameters_hide_the_plumbing_and_download_cleanly(tiny_book):
    for name in book.toc_notebooks():
        text = (paths.EXECUTED / f"{name}.ipynb").read_text()
        nb = json.loads(text)
        assert nb["metadata"]["entropic"]["profile"] == "tiny"
        tags = [c["metadata"].get("tags", []) for c in nb["cells"]]
        assert any("injected-parameters" in t for t in tags)
        assert all("remove-cell" in t for t in tags if "parameters" in t or "injected-parameters" in t)
        assert "entropic-setup" in tags[0] and "remove-cell" in tags[0]  # installs the project when launched
        assert str(paths.ROOT) not in text and "input_path" not in text and "output_path" not in text
        assert not any(o.get("name") == "stderr" for c in nb["cells"] for o in c.get("outputs", []))


def test_the_book_builds_with_banner_configuration_table_and_figures(tiny_html):
    index = tiny_html
    figures = {"surrogate": ["fig-surrogate-excess"], "ladder": ["fig-ladder-excess", "fig-ladder-sweep"],
               "attention_native": ["fig-attention-excess", "fig-attention-recovery"]}
    for name in book.toc_sections():
        page = (index.parent / "build" / "sections" / f"{name}.html").read_text()
        for figure in figures.get(name, []):
            assert f'id="{figure}"' in page, (name, figure)
        assert "Shown: profile" in page and "differs from the paper" in page
        assert "◀ differs" in page and "verdict" in page


def test_prose_pastes_every_fact_as_myst_formatted_by_the_books_one_number_format(tiny_book):
    """Every glued value is Markdown (``page.glue``: a number as ``numbers.number`` writes it), so the prose
    pastes it with ``{glue:md}`name:myst``` (math and roles render); ``{glue:text}`` would paste a number in
    Python's own format, beside the tables' other one."""
    import re

    from entropic import registry
    from entropic.jobs import runner

    for name in [*book.toc_sections(), "theory", "teaching", "intro", "ledger"]:
        source = (paths.NOTEBOOKS / f"{name}.md").read_text()
        assert "{glue:text}" not in source and "{glue}" not in source, name
        assert not re.findall(r"\{glue:md\}`[^`:]+`", source), name  # every paste names the myst format
        if name in book.toc_sections():
            module, results = registry.module(name), runner.run(name, "tiny", compute=False, progress=False)
            spec = (module.specification(results),) if "spec" in inspect.signature(module.facts).parameters else ()
            facts = module.facts(results, *spec)  # App. B's reads the specification table its page shows
            glued = set(re.findall(r'page\.glue\("' + name + r'_([a-z0-9_]+)"', source))  # glued by name on the page
            for key in re.findall(r"\{glue:md\}`" + name + r"_([a-z0-9_]+):myst`", source):
                assert key in facts or key in glued, (name, key)
