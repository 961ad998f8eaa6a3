"""pyproject.toml and environment.yml pin the same dependencies; the lock file agrees with both."""

import tomllib

import yaml

from entropic import paths


def _pins(lines):
    return {line.split("==")[0].lower(): line.split("==")[1] for line in lines if "==" in line}


def test_environment_yml_lists_the_same_pins_as_pyproject():
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    declared = _pins(project["dependencies"] + project["optional-dependencies"]["test"])
    environment = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    pip_section = next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict))
    assert _pins(pip_section) == declared


def test_lock_file_agrees_with_every_direct_pin():
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    declared = _pins(project["dependencies"] + project["optional-dependencies"]["test"])
    locked = _pins((paths.ROOT / "requirements.lock").read_text().splitlines())
    for name, version in declared.items():
        assert locked.get(name) == version, name
