"""Every environment variable the code reads is declared once, listed in the README's table and in the --help of
the commands that read it, and a bad value is refused before any work in one line naming the variable."""

import re

import pytest

from conftest import cli
from entropic import paths, variables
from entropic.jobs import runner

DECLARED = {variable.name for variable in variables.VARIABLES}


def _read_by_the_code() -> set[str]:
    sources = [*paths.PACKAGE.rglob("*.py"), *(paths.ROOT / "tests").rglob("*.py"), paths.ROOT / "Makefile"]
    return {name for path in sources for name in re.findall(r"\bENTROPIC_[A-Z_]*[A-Z]\b", path.read_text())}


def test_every_variable_the_code_reads_is_declared_and_every_declared_one_is_read():
    assert _read_by_the_code() == DECLARED


def test_the_readme_lists_every_variable_in_one_table():
    readme = (paths.ROOT / "README.md").read_text()
    rows = re.findall(r"^\| `(ENTROPIC_[A-Z_]+)` \|", readme, re.M)
    assert sorted(rows) == sorted(DECLARED) and len(rows) == len(set(rows))


@pytest.mark.parametrize("command", ["run", "book", "rekey"])
def test_the_help_of_a_command_lists_the_variables_it_reads(capsys, command):
    from entropic.__main__ import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    for name in ("ENTROPIC_CORPORA", "ENTROPIC_RESULTS", "ENTROPIC_CACHE", "ENTROPIC_SHARED_CORPORA",
                 "ENTROPIC_MAX_THREADS"):
        assert name in text, (command, name)


@pytest.mark.parametrize("name, value, message", [
    ("ENTROPIC_CORPORA", "{missing}", "ENTROPIC_CORPORA={missing}: there is no folder {missing}"),
    ("ENTROPIC_PROFILES", "{missing}", "ENTROPIC_PROFILES={missing}: there is no folder {missing}"),
    ("ENTROPIC_SECTIONS", "{missing}", "ENTROPIC_SECTIONS={missing}: there is no folder {missing}"),
    ("ENTROPIC_RESULTS", "{file}", "ENTROPIC_RESULTS={file}: {file} is not a folder"),
    ("ENTROPIC_CACHE", "{file}", "ENTROPIC_CACHE={file}: {file} is not a folder"),
    ("ENTROPIC_MAX_THREADS", "0", "ENTROPIC_MAX_THREADS must be a positive whole number, got '0'"),
    ("ENTROPIC_PAGE_WORKERS", "two", "ENTROPIC_PAGE_WORKERS must be a positive whole number, got 'two'"),
])
def test_a_bad_variable_is_refused_in_one_line_naming_it_before_any_job(toy, capsys, monkeypatch, tmp_path, name,
                                                                        value, message):
    places = {"missing": tmp_path / "nowhere", "file": tmp_path / "a-file"}
    places["file"].write_text("")
    monkeypatch.setenv(name, value.format(**places))
    got, out, err = cli(["run", "toy"], capsys)
    assert got == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {message.format(**places)}") and f"the environment variable {name}" in err, err
    assert toy.CALLS == []


def test_a_notebooks_run_refuses_a_missing_corpora_folder_naming_the_variable(toy, monkeypatch, tmp_path):
    monkeypatch.setenv("ENTROPIC_CORPORA", str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match=r"^ENTROPIC_CORPORA=.*: there is no folder"):
        runner.run("toy", "quick", progress=False)
    assert toy.CALLS == []


def test_variables_a_command_does_not_read_do_not_stop_it(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("ENTROPIC_PAGE_WORKERS", "two")  # read by book and run only
    got, out, _ = cli(["sections"], capsys)
    assert got == 0 and "surrogate" in out.split()


def test_a_missing_shared_corpora_folder_is_passed_over_not_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("ENTROPIC_SHARED_CORPORA", str(tmp_path / "nowhere"))
    variables.check()
