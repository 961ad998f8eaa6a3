import json

import jupytext
import pytest
from papermill.inspection import _infer_parameters

from entropic import paths, sections


def test_unknown_profile_fails_with_the_available_ones():
    with pytest.raises(ValueError, match=r"unknown profile 'fast'.*quick"):
        sections.load_profile("fast")


@pytest.mark.parametrize("profile", ["quick", "paper", "tiny"])
def test_every_profile_is_valid_for_every_section(profile):
    for name in sections.SECTIONS:
        sections.resolve_params(name, profile)


@pytest.mark.parametrize("name", sorted(sections.SECTIONS))
def test_profiles_set_exactly_the_notebooks_parameters(name):
    notebook = jupytext.read(paths.notebook_source(name))
    for cell in notebook.cells:
        cell.metadata.setdefault("tags", [])
    declared = {p.name for p in _infer_parameters(notebook)} - {"progress"}
    for profile in ("quick", "paper", "tiny"):
        assert set(sections.load_profile(profile)[name]) == declared, profile


def test_the_paper_profile_holds_the_papers_sizes():
    surrogate = sections.load_profile("paper")["surrogate"]
    assert (surrogate["T"], surrogate["d"], surrogate["r_star"], surrogate["n"]) == (16, 12, 3, 3000)


def test_overrides_are_parsed_as_literals():
    assert sections.parse_overrides(["r_star=4", "seeds=[0, 1]", "spectrum=flat", "sigma=0.1"]) == {
        "r_star": 4, "seeds": [0, 1], "spectrum": "flat", "sigma": 0.1}
    with pytest.raises(ValueError, match="name=value"):
        sections.parse_overrides(["r_star"])


@pytest.mark.parametrize("override, message", [
    ({"r_star": 40}, "r_star"), ({"sigma": -1.0}, "sigma"), ({"rstar": 3}, "unknown parameter"),
])
def test_bad_overrides_fail_before_anything_runs(override, message):
    with pytest.raises(ValueError, match=message):
        sections.resolve_params("surrogate", "quick", override)


def test_unknown_section_is_rejected():
    with pytest.raises(ValueError, match="unknown section"):
        sections.section("appendix_z")


def test_fingerprint_changes_with_parameters():
    a = sections.fingerprint("surrogate", {"r_star": 3})
    assert a == sections.fingerprint("surrogate", {"r_star": 3})
    assert a != sections.fingerprint("surrogate", {"r_star": 4})


def test_a_corrupt_executed_notebook_is_reported_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "EXECUTED", tmp_path)
    (tmp_path / "surrogate.ipynb").write_text("{not json")
    with pytest.raises(ValueError, match=r"surrogate\.ipynb is corrupt"):
        sections.stored_fingerprint("surrogate")
    (tmp_path / "surrogate.ipynb").write_text(json.dumps({"metadata": {}}))
    with pytest.raises(ValueError, match="corrupt"):
        sections.stored_fingerprint("surrogate")


def test_cli_rejects_a_bad_parameter_with_a_message_and_exit_code_2(capsys):
    from entropic.__main__ import main

    assert main(["run", "surrogate", "r_star=99", "--no-book"]) == 2
    assert "r_star" in capsys.readouterr().err
    assert main(["book", "--profile", "nonexistent"]) == 2
    assert "unknown profile" in capsys.readouterr().err


@pytest.mark.integration
def test_a_failing_section_keeps_the_last_good_result_and_saves_the_failed_notebook(tmp_path, monkeypatch):
    notebooks, out = tmp_path / "notebooks", tmp_path / "out"
    notebooks.mkdir()
    out.mkdir()
    (notebooks / "surrogate.md").write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "kernelspec:\n  name: python3\n  display_name: Python 3\n  language: python\n---\n\n# Broken\n\n"
        "```{code-cell} ipython3\n:tags: [parameters]\n\nr_star = 3  # rank\n```\n\n"
        "```{code-cell} ipython3\nraise RuntimeError('boom')\n```\n")
    monkeypatch.setattr(paths, "NOTEBOOKS", notebooks)
    good = out / "surrogate.ipynb"
    good.write_text("previous result")
    with pytest.raises(RuntimeError, match="section 'surrogate' failed"):
        sections.execute("surrogate", {"r_star": 3}, progress=False, out_dir=out)
    assert good.read_text() == "previous result"
    assert "boom" in (out / "surrogate.failed.ipynb").read_text()
