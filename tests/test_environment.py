"""pyproject.toml states compatible ranges; requirements.lock pins exact versions inside them; environment.yml
lists the lock's versions; installing the project keeps a torch that is already there."""

import json
import subprocess
import sys
import tomllib

import pytest
import yaml
from packaging.requirements import Requirement

from entropic import paths


def _declared() -> list[Requirement]:
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]


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


def test_environment_yml_lists_the_locks_versions():
    locked = _pins((paths.ROOT / "requirements.lock").read_text().splitlines())
    environment = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    pip_section = _pins(next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict)))
    assert {r.name.lower() for r in _declared()} <= set(pip_section) | {"dask"}
    for name, version in pip_section.items():
        assert locked[name] == version, name


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
