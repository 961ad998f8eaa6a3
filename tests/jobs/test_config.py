import dataclasses
import subprocess
import sys

import pytest

from entropic import registry
from entropic.jobs import config, profiles, runner


def test_every_section_declares_each_parameter_once_with_a_description():
    for name in registry.names():
        for field in dataclasses.fields(registry.module(name).Config):
            assert field.metadata["help"], (name, field.name)


def test_config_defaults_are_the_papers_values():
    surrogate = registry.module("surrogate").Config()
    assert (surrogate.T, surrogate.d, surrogate.r_star, surrogate.sigma, surrogate.n) == (16, 12, 3, 0.05, 3000)
    grid = registry.module("attention_native").Config()
    assert grid.r_stars == (1, 2, 3, 4, 6, 8) and grid.steps == 1500 and grid.recovery_steps == 2500
    assert grid.stop == "fixed"


@pytest.mark.parametrize("profile", ["quick", "paper", "tiny"])
def test_every_profile_is_valid_for_every_section(profile):
    for name in registry.names():
        runner.plan(name, profile)


def test_the_quick_profile_holds_overrides_only():
    for name, overrides in profiles.load_profile("quick").items():
        paper = registry.module(name).Config()
        for key, value in overrides.items():
            assert getattr(paper, key) != (tuple(value) if isinstance(value, list) else value), (name, key)


def test_a_profile_override_changes_exactly_that_parameter():
    Config = registry.module("surrogate").Config
    base = config.resolve(Config, "surrogate", "quick")
    changed = config.resolve(Config, "surrogate", "quick", {"sigma": 0.1})
    assert changed.params() == {**base.params(), "sigma": 0.1}


def test_overrides_are_parsed_as_literals_with_or_without_quotes():
    assert profiles.parse_overrides(["r_star=4", "seeds=[0, 1]", "spectrum=flat", "sigma=0.1",
                                   "rungs=[B0,B1c]", "rungs2=['B0','B1c']"]) == {
        "r_star": 4, "seeds": [0, 1], "spectrum": "flat", "sigma": 0.1, "rungs": ["B0", "B1c"],
        "rungs2": ["B0", "B1c"]}
    with pytest.raises(ValueError, match="name=value"):
        profiles.parse_overrides(["r_star"])


@pytest.mark.parametrize("items", [["n=abc", "n=1000"], ["n=1", "n=2"], ["n=1", "sigma=0.1", " n =1"]])
def test_a_parameter_given_twice_is_refused_naming_it_and_both_values(items):
    with pytest.raises(ValueError, match=r"parameter n is given twice \(n.*=.* and .*n.*=.*\): give it once"):
        profiles.parse_overrides(items)


@pytest.mark.parametrize("override, message", [
    ({"r_star": 40}, "r_star"), ({"sigma": -1.0}, "sigma"), ({"rstar": 3}, "unknown parameter"),
    ({"seeds": [0, 0]}, "duplicates"), ({"spectrum": "steep"}, "spectrum"), ({"T": 2.5}, "T"),
])
def test_bad_values_fail_before_anything_runs(override, message):
    with pytest.raises(ValueError, match=message):
        runner.plan("surrogate", "quick", override)


def test_the_same_bad_value_fails_the_same_way_from_yaml_cli_and_notebook_naming_where_it_came_from(tmp_path,
                                                                                                   monkeypatch):
    from entropic import paths

    with pytest.raises(ValueError) as direct:  # the notebook's route: runner.run(section, profile, overrides)
        runner.run("surrogate", "quick", {"sigma": -1}, progress=False)
    check = "sigma must be a number in [0, 10], got -1"
    assert str(direct.value) == f"the overrides (sigma=-1), section surrogate: {check}"
    cli = subprocess.run([sys.executable, "-m", "entropic", "run", "surrogate", "sigma=-1", "--no-book"],
                         capture_output=True, text=True)
    assert cli.returncode == 2
    assert cli.stderr.strip() == f"error: the command line (sigma=-1), section surrogate: {check}"
    (tmp_path / "bad.yaml").write_text("surrogate:\n  sigma: -1\n")
    monkeypatch.setattr(paths, "PROFILES", tmp_path)
    with pytest.raises(ValueError) as from_yaml:
        runner.plan("surrogate", "bad")
    assert str(from_yaml.value).endswith(f"bad.yaml, section surrogate: {check}")
    with pytest.raises(ValueError) as both:  # the file's own value is at fault whatever the overrides say
        runner.plan("surrogate", "bad", {"n": 100})
    assert str(both.value).endswith(f"bad.yaml, section surrogate: {check}")


def test_unknown_profiles_and_sections_name_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown profile 'fast'.*quick"):
        profiles.load_profile("fast")
    with pytest.raises(ValueError, match=r"unknown section 'appendix_z'.*surrogate"):
        registry.module("appendix_z")


def test_the_configuration_table_marks_what_differs_from_the_paper():
    cfg = config.resolve(registry.module("surrogate").Config, "surrogate", "quick")
    table = cfg.table()
    assert table.loc["n", "differs"] and table.loc["n", "paper"] == "3000"
    assert not table.loc["T", "differs"]


def _flags() -> list[tuple[str, str]]:
    """Every (section, parameter) whose check is ``config.flag``: the boolean parameters."""
    return [(name, field.name) for name in registry.names()
            for field in dataclasses.fields(registry.module(name).Config) if field.metadata["check"] is config.flag]


def test_the_sections_have_boolean_parameters_to_test():
    assert ("text_rank", "reuse") in _flags() and ("ladder", "sweep") in _flags()


@pytest.mark.parametrize("section, name", _flags())
def test_every_boolean_parameter_takes_true_and_false_in_any_case_from_the_command_line_and_refuses_the_rest(
        section, name):
    for typed, value in (("true", True), ("false", False), ("True", True), ("FALSE", False), ("tRuE", True)):
        parsed = profiles.parse_overrides([f"{name}={typed}"])
        assert config.flag(name, parsed[name]) is value, typed
    for typed in ("yes", "0", "1", "none", "[]", "truth"):
        with pytest.raises(ValueError, match=f"{name} must be true or false, got"):
            config.flag(name, profiles.parse_overrides([f"{name}={typed}"])[name])


def test_reuse_false_is_accepted_on_the_command_line_before_any_work():
    cli = subprocess.run([sys.executable, "-m", "entropic", "run", "text_rank", "reuse=false", "--only", "zzz"],
                         capture_output=True, text=True)
    assert cli.returncode == 2 and "--only 'zzz' matches no job" in cli.stderr, cli.stderr
    assert runner.plan("text_rank", "quick", profiles.parse_overrides(["reuse=FALSE"]))[1].reuse is False
