"""The pipeline around the store: compute what is missing, resume, recompute the corrupt, flag the stale,
keep custom runs apart; and a toy section that needs only its module and notebook."""

import re
import sys
import textwrap
import time

import pytest

from conftest import MYST_HEADER
from entropic import paths, sections
from entropic.pipeline import book, cluster, config, page, runner, store, versions

TOY = '''
"""A toy section: each job squares its seed."""
from dataclasses import dataclass

from ..pipeline import verdicts
from ..pipeline.config import SectionConfig, distinct_ints, param
from ..pipeline.store import Job

TITLE = "A toy section"
CALLS = []


@dataclass(frozen=True)
class Config(SectionConfig):
    seeds: tuple = param((0, 1, 2), "seeds", distinct_ints(0))


def jobs(cfg):
    return [Job(f"seed{s}", {"seed": s}) for s in cfg.seeds]


def fit(job):
    # The test's switches are read through globals(): a value a fit function names is part of its version
    # key, and these change between runs of one test.
    state = globals()
    state["CALLS"].append(job.params["seed"])
    if job.params["seed"] == state["FAIL_AT"]:
        raise KeyboardInterrupt
    if job.params["seed"] == state["NAN_AT"]:
        return {"squares": [{"seed": job.params["seed"], "square": float("nan")}]}
    return {"squares": [{"seed": job.params["seed"], "square": job.params["seed"] ** 2}]}


FAIL_AT = NAN_AT = None


def compare(results):
    total = float(results["squares"]["square"].sum())
    claim = verdicts.Claim("≈ 0", 0.0, "nowhere")
    return verdicts.table([verdicts.row("sum of squares", total, claim, "achievability", total < 100,
                                        estimator="training")])


def facts(results):
    return {"total": float(results["squares"]["square"].sum())}
'''

NOTEBOOK = MYST_HEADER + '''
# Toy

```{code-cell} ipython3
:tags: [parameters]

profile = "quick"  # parameter profile
overrides = {}  # parameter overrides
```

```{code-cell} ipython3
from entropic.pipeline import page, runner
from entropic.sections import toy as section

results = runner.run("toy", profile, overrides, progress=False)
table = section.compare(results)
page.save(results, table=table)
page.glue_facts("toy", section.facts(results))
```
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy section, found by the registry from its module file alone."""
    folder = tmp_path / "extra_sections"
    folder.mkdir()
    (folder / "toy.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(folder)])
    notebooks = tmp_path / "notebooks"
    (notebooks / "params").mkdir(parents=True)
    (notebooks / "toy.md").write_text(NOTEBOOK)
    (notebooks / "params" / "quick.yaml").write_text("toy:\n  seeds: [0, 1, 2]\n")
    monkeypatch.setattr(paths, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(paths, "PROFILES", notebooks / "params")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "TABLES", tmp_path / "tables")
    module = sections.module("toy")
    module.CALLS.clear()
    module.FAIL_AT = module.NAN_AT = None
    yield module
    sys.modules.pop("entropic.sections.toy", None)


def test_a_section_runs_through_the_store_and_a_second_run_computes_nothing(toy):
    first = runner.run("toy", "quick", progress=False, log=lambda *_: None)
    assert first.computed == 3 and list(first["squares"]["square"]) == [0, 1, 4]
    second = runner.run("toy", "quick", progress=False)
    assert second.computed == 0 and toy.CALLS == [0, 1, 2]
    assert runner.run("toy", "quick", force=True, progress=False).computed == 3


def test_an_interrupted_run_says_what_was_stored_and_resumes_where_it_stopped(toy):
    toy.FAIL_AT = 2
    with pytest.raises(runner.Interrupted, match=r"2 of 3 jobs of toy are stored .*"
                       r"`(\.venv/bin/)?python -m entropic run toy --profile quick --no-book` resumes"):
        runner.run("toy", "quick", progress=False)
    toy.FAIL_AT = None
    toy.CALLS.clear()
    assert runner.run("toy", "quick", progress=False).computed == 1 and toy.CALLS == [2]


def test_a_corrupt_entry_is_reported_and_recomputed(toy):
    runner.run("toy", "quick", progress=False)
    cfg = runner.plan("toy", "quick")[1]
    path = store.Store("quick", "toy").path(toy.jobs(cfg)[1])
    path.write_text(path.read_text()[:40])
    said = []
    result = runner.run("toy", "quick", progress=False, log=said.append)
    assert result.computed == 1 and path.name in said[0]


def test_stale_entries_are_recomputed_except_in_committed_profiles_where_they_are_flagged(toy, monkeypatch):
    runner.run("toy", "quick", progress=False)
    monkeypatch.setattr(versions, "version_key", lambda module, kind=None: "newer-code")
    flagged = runner.run("toy", "quick", keep_stale=True, progress=False, log=lambda *_: None)
    assert flagged.computed == 0 and len(flagged.stale) == 3
    assert "Stale results" in page.banner_markdown(flagged)
    assert runner.run("toy", "quick", progress=False).computed == 3  # quick is not committed: recomputed


def test_custom_parameters_keep_their_own_place_in_the_store(toy):
    runner.run("toy", "quick", progress=False)
    custom = runner.run("toy", "quick", {"seeds": [5]}, progress=False)
    assert custom.label == "custom" and "seeds=[5]" in page.banner_markdown(custom)
    assert (paths.RESULTS / "custom" / "toy").is_dir() and len(list((paths.RESULTS / "quick" / "toy").iterdir())) == 3
    assert runner.run("toy", "quick", progress=False).computed == 0


@pytest.fixture
def toy_in_tree():
    """The toy section as a real module, notebook and quick-profile entry of the working tree (a notebook
    kernel is another process: it must find them where every section lives); removed afterwards."""
    module, notebook = paths.SECTIONS / "toy.py", paths.NOTEBOOKS / "toy.md"
    profile = config.profile_path("quick")
    assert not module.exists() and not notebook.exists()
    profile_text = profile.read_text()
    module.write_text(textwrap.dedent(TOY))
    notebook.write_text(NOTEBOOK)
    profile.write_text(profile_text + "toy: {}\n")
    try:
        yield
    finally:
        profile.write_text(profile_text)
        module.unlink()
        notebook.unlink()
        sys.modules.pop("entropic.sections.toy", None)


@pytest.mark.integration
def test_a_toy_section_needs_only_its_module_notebook_and_profile_entries(toy_in_tree, tmp_path):
    assert "toy" in sections.names()
    executed = book.execute("toy", "quick", {}, out_dir=tmp_path / "pages", log=lambda *_: None)
    assert executed.is_file()
    table = (paths.TABLES / "quick" / "toy" / "table.csv").read_text()
    assert "sum of squares" in table and "reproduced" not in table  # 0 + 1 + 4 = 5 is not within 1 of 0
    said = []
    assert book.execute("toy", "quick", {}, out_dir=tmp_path / "pages", log=said.append) == executed
    assert "page is current" in said[0]


def test_entries_no_current_job_reads_are_listed_as_orphans(toy):
    runner.run("toy", "quick", progress=False)
    assert runner.orphans("toy", "quick") == []
    stray = paths.RESULTS / "quick" / "toy" / "seed9-0000000000.json"
    stray.write_text("{}")
    assert runner.orphans("toy", "quick") == [stray]


def _cli(args, capsys) -> tuple[int, str]:
    from entropic.__main__ import main

    code = main(args)
    return code, capsys.readouterr().err.strip()


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
    got, err = _cli(args, capsys)
    assert got == code and len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert re.search(message, err), err
    assert toy.CALLS == []  # nothing ran


def test_an_unwritable_store_is_refused_before_any_job_runs(toy, capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(paths, "RESULTS", blocker / "results")  # a folder that cannot be made
    got, err = _cli(["run", "toy", "--no-book"], capsys)
    assert got == 2 and "cannot write results to" in err and "ENTROPIC_RESULTS" in err and toy.CALLS == []


def test_a_job_producing_nan_names_itself_and_its_parameters_and_stores_nothing(toy, capsys):
    toy.NAN_AT = 1
    got, err = _cli(["run", "toy", "--no-book"], capsys)
    assert got == 1 and "job seed1 of toy produced non-finite numbers in squares.square" in err and "seed=1" in err
    assert not store.Store("quick", "toy").path(toy.jobs(runner.plan("toy", "quick")[1])[1]).exists()


def test_an_interrupt_counts_what_is_stored_and_gives_the_command_that_resumes(toy, capsys):
    toy.FAIL_AT = 1
    got, err = _cli(["run", "toy", "--force", "--no-book"], capsys)
    assert got == 130 and "1 of 3 jobs of toy are stored" in err and "--force" not in err.split("`")[1]


@pytest.mark.parametrize("args, message", [
    (["run", "surrogate", "sigma=1e999", "--no-book"], "sigma must be a number in"),
    (["run", "surrogate", "lr=1e30", "--no-book"], "lr must be a number in"),
    (["run", "surrogate", "n=-3", "--no-book"], "n must be a positive integer"),
    (["run", "attention_native", "r_stars=[1,40]", "--no-book"], "r_stars must lie in"),
])
def test_absurd_numbers_are_refused_naming_the_file_section_and_parameter(capsys, args, message):
    got, err = _cli(args, capsys)
    assert got == 2 and message in err and "quick.yaml, section" in err and len(err.splitlines()) == 1


def test_an_unreachable_scheduler_is_refused_in_seconds_before_any_progress_bar(toy, capsys):
    (paths.PROFILES / "quick.yaml").write_text("toy:\n  seeds: [0, 1]\n")
    start = time.perf_counter()
    got, err = _cli(["run", "toy", "--no-book", "--cluster", "tcp://127.0.0.1:1"], capsys)
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


def test_a_run_says_nothing_unless_given_a_log_and_its_results_carry_what_the_banner_shows(toy, capsys, monkeypatch):
    runner.run("toy", "quick", progress=False)
    cfg = runner.plan("toy", "quick")[1]
    path = store.Store("quick", "toy").path(toy.jobs(cfg)[0])
    path.write_text(path.read_text()[:40])
    monkeypatch.setattr(versions, "version_key", lambda module, kind=None: "newer-code")
    read = runner.run("toy", "quick", progress=False, compute=False, keep_stale=True)
    assert capsys.readouterr().out == ""  # no "[entropic] …" line: a page shows the banner instead
    assert len(read.stale) == 2 and [job for job, _ in read.corrupt] == read.missing == [toy.jobs(cfg)[0].id]
    banner = page.banner_markdown(read)
    assert "**Unreadable results:**" in banner and "**Stale results:**" in banner
    assert "Partial results" not in banner and "not computed yet" not in banner  # corrupt, not missing
    unreadable = next(line for line in banner.splitlines() if "Unreadable results" in line)
    assert f"`{read.resume}` recomputes them" in unreadable and "--force" not in unreadable
    said = []
    runner.run("toy", "quick", progress=False, compute=False, keep_stale=True, log=said.append)
    assert any(path.name in line for line in said) and any("2 stale job(s)" in line for line in said)


def test_a_job_stored_meanwhile_with_other_numbers_is_kept_and_the_run_says_so(toy, monkeypatch):
    """Another run (elsewhere: another thread count, a worker) stores a job while this run computes it, with
    numbers that differ in the last digits: the first entry stays, one line says so; --force replaces it."""
    cfg = runner.plan("toy", "quick")[1]
    job = toy.jobs(cfg)[1]
    shelf = store.Store("quick", "toy")
    real = cluster.compute

    def elsewhere_first(section, this, scratch=None):
        tables, provenance = real(section, this, scratch)
        if this.id == job.id:
            other = {"squares": [{**tables["squares"][0], "square": 1.0000001}]}
            shelf.add(this, versions.version_key(toy), other, {**provenance, "threads": 2})
        return tables, provenance

    monkeypatch.setattr(cluster, "compute", elsewhere_first)
    said = []
    done = runner.run("toy", "quick", progress=False, log=said.append)
    assert done.computed == 3 and list(done["squares"]["square"]) == [0, 1.0000001, 4]  # the first stored, kept
    assert len(said) == 1 and "seed1" in said[0] and "squares.square" in said[0] and "kept" in said[0]
    assert done.conflicts == [said[0].removeprefix("[entropic] toy: ")]
    assert "Recomputed, other numbers" in page.banner_markdown(done)
    forced = runner.run("toy", "quick", progress=False, force=True, log=said.append)
    assert list(forced["squares"]["square"]) == [0, 1, 4] and "as --force asks" in said[-1]
