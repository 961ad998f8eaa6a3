"""The command line refuses every fault of its input in one line, before any work, and says what an
interrupt stored and how to resume."""

import re
import time

import pytest

from conftest import cli
from entropic import paths
from entropic.jobs import cluster, runner, store


@pytest.mark.parametrize("profile_text, args, code, message", [
    ("surogate:\n  seeds: [0]\n", ["run", "toy", "--no-book"], 2, r"quick\.yaml names no section \['surogate'\]"),
    ("toy: [1, 2\n", ["run", "toy", "--no-book"], 2, r"quick\.yaml is not valid YAML \(line \d+, column \d+\)"),
    ("toy:\n  seeds: [0, 0]\n", ["run", "toy", "--no-book"], 2, r"quick\.yaml, section toy: seeds holds duplicates"),
    ("other_section_only: {}\n", ["run", "toy", "--no-book"], 2, "names no section"),
    ("toy:\n  seeds: [0]\n", ["run", "toy", "colour=red", "--no-book"], 2, r"unknown parameter\(s\) \['colour'\]"),
    ("toy:\n  seeds: [0]\n", ["run", "toy", "--no-book", "--cluster", "sometimes"], 2, "--cluster must be"),
    ("toy:\n  seeds: [0]\n", ["run", "nosuch", "--no-book"], 2, "unknown section 'nosuch'"),
    ("toy:\n  seeds: [0]\n", ["run", "toy", "--profile", "huge", "--no-book"], 2, "unknown profile 'huge'"),
    ("toy:\n  seeds: [0]\n", ["run", "toy", "seeds=abc", "seeds=[1]", "--no-book"], 2,
     r"parameter seeds is given twice \(seeds=abc and seeds=\[1\]\)"),
    ("toy:\n  seeds: [0]\n", ["run", "toy", "--no-book", "--only", "nomatch*"], 2,
     r"--only 'nomatch\*' matches no job of toy at this profile; its 1 jobs are named like seed0"),
    ("toy:\n  seeds: [0]\n", ["run", "toy", "--no-book", "--cluster", "tcp://127.0.0.1:1"], 2,
     r"no Dask scheduler answers at tcp://127\.0\.0\.1:1 \(Connection refused\): start one there .* --cluster local:N"),
])
def test_every_fault_of_the_input_is_one_line_before_any_work(toy, capsys, profile_text, args, code, message):
    (paths.PROFILES / "quick.yaml").write_text(profile_text)
    got, _, err = cli(args, capsys)
    assert got == code and len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert re.search(message, err), err
    assert toy.CALLS == []  # nothing ran


def test_an_unwritable_store_is_refused_before_any_job_runs(toy, capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(paths, "RESULTS", blocker / "results")  # a folder that cannot be made
    got, _, err = cli(["run", "toy", "--no-book"], capsys)
    assert got == 2 and "cannot write results to" in err and "ENTROPIC_RESULTS" in err and toy.CALLS == []


def test_a_job_producing_nan_names_itself_and_its_parameters_and_stores_nothing(toy, capsys):
    toy.NAN_AT = 1
    got, _, err = cli(["run", "toy", "--no-book"], capsys)
    assert got == 1 and "job seed1 of toy produced non-finite numbers in squares.square" in err and "seed=1" in err
    assert not store.Store("quick", "toy").path(toy.jobs(runner.plan("toy", "quick")[1])[1]).exists()


def test_an_interrupt_counts_what_is_stored_and_gives_the_command_that_resumes(toy, capsys):
    toy.FAIL_AT = 1
    got, _, err = cli(["run", "toy", "--force", "--no-book"], capsys)
    assert got == 130 and "1 of 3 jobs of toy are stored" in err and "--force" not in err.split("`")[1]


@pytest.mark.parametrize("args, message", [
    (["run", "surrogate", "sigma=1e999", "--no-book"], "sigma must be a number in"),
    (["run", "surrogate", "lr=1e30", "--no-book"], "lr must be a number in"),
    (["run", "surrogate", "n=-3", "--no-book"], "n must be a positive integer"),
    (["run", "attention_native", "r_stars=[1,40]", "--no-book"], "r_stars must lie in"),
])
def test_absurd_numbers_typed_on_the_command_line_are_refused_as_the_command_lines(capsys, args, message):
    got, _, err = cli(args, capsys)
    assert got == 2 and message in err and len(err.splitlines()) == 1, err
    assert err.startswith(f"error: the command line ({args[2]}), section {args[1]}: ") and "quick.yaml" not in err


def test_a_bad_value_in_a_profile_file_is_refused_as_the_files(toy, capsys):
    (paths.PROFILES / "quick.yaml").write_text("toy:\n  seeds: [0, 0]\n")
    got, _, err = cli(["run", "toy", "seeds=[1]", "--no-book"], capsys)  # the command line would mend it: it runs
    assert got == 0 and toy.CALLS == [1]
    got, _, err = cli(["run", "toy", "colour=red", "--no-book"], capsys)  # the file's fault is named first
    assert got == 2 and re.search(r"quick\.yaml, section toy: seeds holds duplicates", err)
    assert "command line" not in err


def test_an_unreachable_scheduler_is_refused_in_seconds_before_any_progress_bar(toy, capsys):
    (paths.PROFILES / "quick.yaml").write_text("toy:\n  seeds: [0, 1]\n")
    start = time.perf_counter()
    got, _, err = cli(["run", "toy", "--no-book", "--cluster", "tcp://127.0.0.1:1"], capsys)
    assert got == 2 and err.count("\n") == 0 and "job/s" not in err and toy.CALLS == []
    assert time.perf_counter() - start < 5  # not Dask's 30-second connect timeout
    with pytest.raises(cluster.Unreachable, match=r"127\.0\.0\.1:1"):  # the same from a notebook's runner.run
        runner.run("toy", "quick", progress=True, cluster="tcp://127.0.0.1:1")
    assert toy.CALLS == [] and "job" not in capsys.readouterr().err


def test_a_pattern_of_only_that_matches_nothing_is_refused_whatever_the_others_match(toy, capsys):
    with pytest.raises(ValueError, match=r"--only 'seed9\*' matches no job of toy at this profile"):
        runner.run("toy", "quick", progress=False, only=["seed1", "seed9*"])
    got, out, err = cli(["run", "toy", "--only", "seed0", "--only", "nomatch*", "--no-book"], capsys)
    assert got == 2 and out == "" and len(err.splitlines()) == 1 and toy.CALLS == []
    assert err.startswith("error: --only 'nomatch*' matches no job of toy") and "'seed0'" not in err


def test_the_book_profile_of_a_run_is_checked_before_any_job_runs(toy, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    got, out, err = cli(["run", "surrogate", "seeds=[8]", "n=200", "steps=50", "recovery_steps=50",
                         "--book-profile", "quik"], capsys)
    assert got == 2 and out == "" and err.startswith("error: --book-profile quik: unknown profile 'quik'"), err
    assert len(err.splitlines()) == 1 and not (tmp_path / "results").exists()
    got, _, err = cli(["run", "toy", "--book-profile", "quik"], capsys)
    assert got == 2 and "--book-profile quik" in err and toy.CALLS == []


def test_a_profile_named_by_an_option_is_refused_naming_the_option(capsys):
    for args, option in ((["book", "--profile", "quik"], "--profile quik"),
                         (["run", "surrogate", "--profile", "quik", "--no-book"], "--profile quik")):
        got, _, err = cli(args, capsys)
        assert got == 2 and err.startswith(f"error: {option}: unknown profile 'quik'"), err


@pytest.mark.parametrize("setting", ["variable", "moved"])
def test_profiles_names_a_missing_profiles_folder_and_is_refused(capsys, monkeypatch, tmp_path, setting):
    missing = tmp_path / "nonexistent"
    if setting == "variable":
        monkeypatch.setenv("ENTROPIC_PROFILES", str(missing))
    monkeypatch.setattr(paths, "PROFILES", missing)
    got, out, err = cli(["profiles"], capsys)
    assert got == 2 and out == "" and len(err.splitlines()) == 1 and str(missing) in err, err
    assert ("ENTROPIC_PROFILES" in err) == (setting == "variable")


@pytest.mark.parametrize("args, usage, message", [
    (["run", "--no-book"], "run", "the following arguments are required: section"),
    (["run", "surrogate", "--bogus"], "run", "unrecognized arguments: --bogus"),
    (["book", "r_star=4"], "book", "unrecognized arguments: r_star=4 (parameters go to run: run SECTION r_star=4)"),
])
def test_a_fault_of_a_subcommands_arguments_prints_that_subcommands_usage(capsys, args, usage, message):
    from entropic.__main__ import main

    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith(f"usage: {paths.shell_command(usage)} "), err
    assert f"entropic {usage}: error: {message}" in err and "name=value" not in err.splitlines()[-1]


def test_every_subcommand_says_in_one_line_what_it_does_and_shows_an_example_that_parses():
    from entropic.__main__ import SUBCOMMANDS, _parser

    parser, parsers = _parser()
    assert set(parsers) == set(SUBCOMMANDS)
    for name, sub in parsers.items():
        what, example = SUBCOMMANDS[name]
        text = sub.format_help()
        assert "\n" not in what and f"{what[0].upper()}{what[1:]}." in " ".join(text.split()), name
        assert f"example:\n  {paths.shell_command(example)}" in text, name
        args, extra = parser.parse_known_args(example.split())
        assert args.command == name and all("=" in item for item in extra), name


def test_params_lists_each_parameter_with_the_papers_value_the_profiles_kind_and_description(capsys):
    from dataclasses import fields

    from entropic import registry

    got, out, _ = cli(["params", "surrogate"], capsys)
    lines = out.splitlines()
    assert got == 0 and lines[1].split()[:4] == ["parameter", "paper", "quick", "kind"]
    rows = {line.split()[0]: line for line in lines[2:]}
    config_class = registry.module("surrogate").Config
    assert list(rows) == [f.name for f in fields(config_class)]
    assert re.match(r"n +3000 +500 +positive integer +training sequences per seed$", rows["n"]), rows["n"]
    assert "number in [0, 10]" in rows["sigma"] and "one of sharp, power_law, flat" in rows["spectrum"]
    got, out, _ = cli(["params", "frontier", "--profile", "tiny"], capsys)
    assert got == 0 and "(1.0, ours)" in out.splitlines()[[ln.split()[0] for ln in out.splitlines()].index(
        "shrink_multiple")]  # a value the paper does not state is marked as ours
    for args, message in ((["params", "nosuch"], "unknown section 'nosuch'"),
                          (["params", "surrogate", "--profile", "quik"], "unknown profile 'quik'")):
        got, out, err = cli(args, capsys)
        assert got == 2 and out == "" and message in err


# The newcomer's commands of issue 44, typed as they were, from a fresh shell: each refused in one line, status 2,
# before any job (nothing stored).
NEWCOMER = [
    ("run surrogate 'seeds=[8]' n=200 steps=50 recovery_steps=50 --book-profile quik", {},
     "--book-profile quik: unknown profile 'quik'"),
    ("run surrogate --only 'seed0-*' --only 'nomatch*' --no-book", {}, "--only 'nomatch*' matches no job"),
    ("profiles", {"ENTROPIC_PROFILES": "/nonexistent"}, "ENTROPIC_PROFILES=/nonexistent: there is no folder"),
    ("run real_corpora --no-book", {"ENTROPIC_CORPORA": "/nonexistent"},
     "ENTROPIC_CORPORA=/nonexistent: there is no folder"),
    ("run surrogate n=-5 --no-book", {}, "the command line (n=-5), section surrogate: n must be a positive integer"),
    ("run surrogate --no-book --cluster tcp://127.0.0.1:1", {}, "no Dask scheduler answers at tcp://127.0.0.1:1"),
]


@pytest.mark.parametrize("command, variables, message", NEWCOMER)
def test_each_newcomers_fault_is_refused_in_one_line_with_status_2_before_any_job(tmp_path, command, variables,
                                                                                    message):
    import os
    import subprocess

    env = {**os.environ, "ENTROPIC_RESULTS": str(tmp_path / "results"), "ENTROPIC_BUILD": str(tmp_path / "build"),
           **variables}
    done = subprocess.run(f".venv/bin/python -m entropic {command}", shell=True, cwd=paths.ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"error: {message}"), done.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "build").exists()


@pytest.mark.parametrize("source, where", [
    ("x = (\n", "broken.py:1: SyntaxError: '(' was never closed"),
    ("import math\n\n\nraise RuntimeError('no')\n", "broken.py:4: RuntimeError: no"),
])
def test_a_section_of_ones_own_that_fails_to_import_is_named_in_one_line_by_run_and_by_sections(
        tmp_path, source, where):
    import os
    import subprocess
    import sys

    (tmp_path / "broken.py").write_text(source)
    env = {**os.environ, "ENTROPIC_SECTIONS": str(tmp_path)}
    for args in (["run", "broken", "--no-book"], ["sections"]):
        done = subprocess.run([sys.executable, "-m", "entropic", *args], capture_output=True, text=True, env=env)
        assert done.returncode == 2, args
        assert done.stderr.strip() == f"error: section 'broken' fails to import: {tmp_path / where}", args
    listed = done.stdout.split()  # what sections listed before it said so
    assert "broken" not in listed and "surrogate" in listed
