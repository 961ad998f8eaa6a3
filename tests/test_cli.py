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
    ("toy:\n  seeds: [0]\n", ["run", "toy", "--no-book", "--cluster", "tcp://127.0.0.1:1"], 1,
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
def test_absurd_numbers_are_refused_naming_the_file_section_and_parameter(capsys, args, message):
    got, _, err = cli(args, capsys)
    assert got == 2 and message in err and "quick.yaml, section" in err and len(err.splitlines()) == 1


def test_an_unreachable_scheduler_is_refused_in_seconds_before_any_progress_bar(toy, capsys):
    (paths.PROFILES / "quick.yaml").write_text("toy:\n  seeds: [0, 1]\n")
    start = time.perf_counter()
    got, _, err = cli(["run", "toy", "--no-book", "--cluster", "tcp://127.0.0.1:1"], capsys)
    assert got == 1 and err.count("\n") == 0 and "job/s" not in err and toy.CALLS == []
    assert time.perf_counter() - start < 5  # not Dask's 30-second connect timeout
    with pytest.raises(cluster.Unreachable, match=r"127\.0\.0\.1:1"):  # the same from a notebook's runner.run
        runner.run("toy", "quick", progress=True, cluster="tcp://127.0.0.1:1")
    assert toy.CALLS == [] and "job" not in capsys.readouterr().err


def test_a_pattern_of_only_that_matches_nothing_is_said_when_others_match(toy):
    said = []
    done = runner.run("toy", "quick", progress=False, only=["seed1", "seed9*"], log=said.append)
    assert done.computed == 1 and toy.CALLS == [1]
    assert said == ["[entropic] toy: --only 'seed9*' matches no job at this profile"]
