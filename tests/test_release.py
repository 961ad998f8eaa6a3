"""What a release carries: licences, one version everywhere, a valid citation file, BibTeX that parses,
workflows that actionlint accepts and that test pull requests, and a wheel that holds every package and
the profiles."""

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from entropic import paths
from entropic.publish import site

ROOT = paths.ROOT
WORKFLOWS = ROOT / ".github" / "workflows"


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _tool(name: str, *folders: Path) -> str:
    """A command-line tool of the environment (``make test`` installs them)."""
    for folder in (*folders, Path(sys.executable).parent):
        if (folder / name).is_file():
            return str(folder / name)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: `make test` installs it (see the Makefile)")
    return found


def _bibtex_blocks(document: Path) -> str:
    return "\n".join(re.findall(r"```bibtex\n(.*?)```", document.read_text(), re.S))


# --- licences ----------------------------------------------------------------------------------------

def test_the_code_is_mit_and_the_text_cc_by_4():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert "Creative Commons Attribution 4.0 International Public License" in \
        (ROOT / "LICENSE-CC-BY-4.0.txt").read_text()
    project = _project()["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert yaml.safe_load((ROOT / "CITATION.cff").read_text())["license"] == "MIT"
    footer = yaml.safe_load((ROOT / "_config.yml").read_text())["html"]["extra_footer"]
    assert "CC BY" in footer and "MIT" in footer


# --- one version, a valid citation ---------------------------------------------------------------------

def test_one_version_in_pyproject_citation_zenodo_changelog_and_bibtex():
    version = _project()["project"]["version"]
    assert yaml.safe_load((ROOT / "CITATION.cff").read_text())["version"] == version
    assert json.loads((ROOT / ".zenodo.json").read_text())["version"] == version
    first = re.search(r"^## (\S+) — (\d{4}-\d{2}-\d{2})$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert first is not None and first[1] == version
    assert str(yaml.safe_load((ROOT / "CITATION.cff").read_text())["date-released"]) == first[2]
    assert re.search(rf"version\s*=\s*\{{{re.escape(version)}\}}", _bibtex_blocks(ROOT / "README.md"))
    assert f"version = {{{version}}}" in site.citation(None)  # the intro's, generated at its build


def test_the_bibtex_of_the_readme_and_the_intro_parses_and_names_the_repository_and_the_paper():
    from pybtex.database import parse_string

    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]  # "" until a publisher sets it
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert repository in ("", cff["repository-code"])  # the book's one setting, where set, is the project's address
    paper = cff["references"][0]
    readme = _bibtex_blocks(ROOT / "README.md")
    assert "```{glue:md} intro_citation" in paths.notebook_source("intro").read_text()  # the intro's is generated
    for document, text in (("README", readme), ("the intro, published", site.citation(cff["repository-code"])),
                           ("the intro, built elsewhere", site.citation(None))):
        entries = parse_string(text, "bibtex").entries
        assert set(entries) == {"entropic_reproduction", "entropic_bound"}, document
        assert entries["entropic_reproduction"].fields.get("url") == (None if "elsewhere" in document
                                                                      else cff["repository-code"]), document
        assert entries["entropic_bound"].fields["url"] == paper["url"]
        assert paper["url"].endswith(entries["entropic_bound"].fields["eprint"])
        assert entries["entropic_bound"].fields["title"] == paper["title"]


def test_cffconvert_validates_the_citation_file_and_rejects_a_broken_one(tmp_path):
    cffconvert = _tool("cffconvert", ROOT / ".venv" / "cffconvert" / "bin")
    done = subprocess.run([cffconvert, "--validate", "-i", str(ROOT / "CITATION.cff")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "CITATION.cff"
    broken.write_text((ROOT / "CITATION.cff").read_text().replace("cff-version: 1.2.0", "cff-version: 1.2.0\n"
                                                                                          "colour: blue"))
    assert subprocess.run([cffconvert, "--validate", "-i", str(broken)], capture_output=True).returncode != 0


# --- the workflows -------------------------------------------------------------------------------------

def test_actionlint_accepts_every_workflow_and_flags_an_outdated_action(tmp_path):
    actionlint = _tool("actionlint")
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert files
    done = subprocess.run([actionlint, *map(str, files)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    old = tmp_path / "old.yml"  # the checker is not a no-op: a Node 20 action is reported
    old.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n")
    done = subprocess.run([actionlint, str(old)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode != 0 and "node20" in done.stdout


def test_the_workflow_tests_pull_requests_and_publishes_main_with_a_cached_cpu_environment():
    flow = yaml.safe_load((WORKFLOWS / "book.yml").read_text())
    triggers = flow[True]  # YAML reads the key `on` as true
    assert "pull_request" in triggers and triggers["push"]["branches"] == ["main"]
    assert flow["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    jobs = flow["jobs"]
    runs = {name: " ".join(step.get("run", "") for step in job["steps"]) for name, job in jobs.items()}
    assert "pull_request" in jobs["test"]["if"] and ".ci/run" in runs["test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    for step in ("make book", "make pdf", "entropic.publish.launch", "git push --force"):
        assert step in runs["book"], step
    for job in jobs.values():
        assert job["container"].startswith("python:3.11")
        caches = [s for s in job["steps"] if s.get("uses", "").startswith("actions/cache@")]
        assert caches and "requirements.lock" in caches[0]["with"]["key"]
    assert "ENTROPIC_REPOSITORY" in jobs["book"]["env"]


def test_the_pages_setting_is_documented():
    readme = (ROOT / "README.md").read_text()
    assert "Settings → Pages" in readme and "gh-pages" in readme


# --- the wheel -----------------------------------------------------------------------------------------

def test_the_wheel_lists_every_package_and_ships_the_profiles():
    tool = _project()["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT / "lib").parts) for p in (ROOT / "lib").rglob("__init__.py")}
    assert set(tool["packages"]) == found | {"entropic.profiles"}
    assert tool["package-dir"]["entropic.profiles"] == str(paths.PROFILES.relative_to(ROOT))
    assert tool["package-data"]["entropic.profiles"] == ["*.yaml"]
