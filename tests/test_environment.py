"""pyproject.toml states compatible ranges; requirements.lock pins exact versions inside them; environment.yml
installs with the lock; the core leaves the book and Dask to extras; installing the project keeps a torch
that is already there."""

import json
import subprocess
import sys
import tomllib

import pytest
import yaml
from packaging.requirements import Requirement

from entropic import paths


def _project() -> dict:
    return tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]


def _declared() -> list[Requirement]:
    project = _project()
    extras = [r for group in project["optional-dependencies"].values() for r in group]
    return [Requirement(r) for r in project["dependencies"] + extras]


def _pins(lines) -> dict[str, str]:
    return {line.split("==")[0].strip().lower(): line.split("==")[1].split("#")[0].strip()
            for line in lines if "==" in line}


def test_pyproject_states_ranges_not_exact_pins():
    for requirement in _declared():
        assert requirement.specifier, f"{requirement.name} has no range"
        assert not any(spec.operator == "==" for spec in requirement.specifier), f"{requirement.name} is pinned"


def test_the_lock_pins_every_direct_dependency_inside_its_range():
    locked = _pins((paths.ROOT / "requirements.lock").read_text().splitlines())
    for requirement in _declared():
        assert requirement.name.lower() in locked, requirement.name
        assert requirement.specifier.contains(locked[requirement.name.lower()], prereleases=True), requirement


def test_environment_yml_installs_the_project_with_every_extra_constrained_by_the_lock():
    environment = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    assert "python=3.11" in environment["dependencies"]
    pip_section = next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict))
    assert "-c requirements.lock" in pip_section
    install = next(line for line in pip_section if line.startswith("-e ."))
    assert set(install.removeprefix("-e .").strip("[]").split(",")) == set(_project()["optional-dependencies"])
    assert not [line for line in pip_section if "==" in line]  # versions come from the lock alone


def test_the_core_is_what_a_section_needs_and_the_book_and_dask_are_extras():
    project = _project()
    core = {Requirement(r).name for r in project["dependencies"]}
    extras = project["optional-dependencies"]
    assert {"torch", "numpy", "pandas", "matplotlib"} <= core
    assert not core & {"jupyter-book", "papermill", "jupytext", "dask", "playwright", "sphinx-proof"}
    assert {"jupyter-book", "papermill", "jupytext", "playwright"} <= {Requirement(r).name for r in extras["book"]}
    assert {Requirement(r).name for r in extras["cluster"]} == {"dask"}


def test_the_lock_pins_torch_exactly():
    """An unpinned torch on a Linux machine would pull PyPI's multi-gigabyte CUDA build."""
    locked = _pins((paths.ROOT / "requirements.lock").read_text().splitlines())
    assert locked["torch"].count(".") == 2 and "*" not in locked["torch"]


@pytest.mark.integration
def test_installing_the_project_keeps_the_torch_already_installed(tmp_path):
    """pip resolves the project's ranges against this environment (which holds torch already) and would
    install no torch: a GPU machine's own CUDA build stays."""
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report),
                           "--disable-pip-version-check", "-e", f"{paths.ROOT}[test]"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    installing = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    assert "torch" not in installing
