"""The pipeline around the store: compute what is missing, resume, recompute the corrupt, flag the stale,
keep custom runs apart; and a toy section that needs only its module and notebook."""

import json
import shutil
import sys
import textwrap

import pytest

from entropic import paths, registry, sections
from entropic.jobs import cluster, runner, store, versions
from entropic.publish import build as book
from entropic.publish import page
from toy_section import NOTEBOOK, TOY


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
def toy_in_tree(tmp_path, monkeypatch):
    """The toy section as a module, notebook and quick-profile entry of folders of one's own, found as
    every section is, here and in a notebook kernel (another process: ENTROPIC_SECTIONS and
    ENTROPIC_PROFILES name the folders to it); the working tree is not touched."""
    folder, notebooks, profiles = tmp_path / "sections", tmp_path / "notebooks", tmp_path / "params"
    for made in (folder, notebooks):
        made.mkdir()
    shutil.copytree(paths.PROFILES, profiles)
    (folder / "toy.py").write_text(textwrap.dedent(TOY))
    (notebooks / "toy.md").write_text(NOTEBOOK)
    with (profiles / "quick.yaml").open("a") as profile:
        profile.write("toy: {}\n")
    monkeypatch.setenv("ENTROPIC_SECTIONS", str(folder))
    monkeypatch.setenv("ENTROPIC_PROFILES", str(profiles))
    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(folder)])
    monkeypatch.setattr(paths, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(paths, "PROFILES", profiles)
    yield
    sys.modules.pop("entropic.sections.toy", None)


@pytest.mark.integration
def test_a_toy_section_needs_only_its_module_notebook_and_profile_entries(toy_in_tree, tmp_path):
    assert "toy" in registry.names()
    executed = book.execute("toy", "quick", {}, out_dir=tmp_path / "pages", log=lambda *_: None)
    assert executed.is_file()
    table = (paths.TABLES / "quick" / "toy" / "table.csv").read_text()
    assert "sum of squares" in table and "reproduced" not in table  # 0 + 1 + 4 = 5 is not within 1 of 0
    said = []
    assert book.execute("toy", "quick", {}, out_dir=tmp_path / "pages", log=said.append) == executed
    assert "page is current" in said[0]


@pytest.mark.integration
def test_a_section_page_asked_for_again_from_the_same_inputs_is_restored_with_its_tables(toy_in_tree, tmp_path):
    """The paper page that a run with parameters of one's own replaced comes back without a render, and so do the
    tables it wrote; a kept page that is not the render it is filed as is an error naming it."""
    pages, quiet = tmp_path / "pages", (lambda *_: None)
    page = book.execute("toy", "quick", {}, out_dir=pages, log=quiet)
    shown, table = page.read_text(), (paths.TABLES / "quick" / "toy" / "table.csv").read_text()
    (paths.TABLES / "quick" / "toy" / "table.csv").write_text("edited since")
    book.execute("toy", "quick", {"seeds": [0]}, out_dir=pages, log=quiet)  # the page shows a run of one's own
    said = []
    assert book.execute("toy", "quick", {}, out_dir=pages, log=said.append) == page
    assert "page restored" in said[0] and page.read_text() == shown
    assert (paths.TABLES / "quick" / "toy" / "table.csv").read_text() == table
    kept = next((tmp_path / "rendered" / "toy").glob(f"{json.loads(shown)['metadata']['entropic']['fingerprint']}*"))
    book.execute("toy", "quick", {"seeds": [0]}, out_dir=pages, log=quiet)
    (kept / "page.json").write_text(shown.replace(json.loads(shown)["metadata"]["entropic"]["fingerprint"], "0" * 16))
    with pytest.raises(ValueError, match=f"{kept.name}/page.json holds the page of fingerprint 0+, not .*delete"):
        book.execute("toy", "quick", {}, out_dir=pages, log=quiet)


@pytest.mark.integration
def test_a_pages_build_plans_its_jobs_once(toy_in_tree, tmp_path, monkeypatch):
    """What a page shows, its fingerprint and its run read one plan (they asked the runner three times)."""
    planned, plan = [], runner.plan

    def counted(section, *args, **kwargs):
        planned.append(section)
        return plan(section, *args, **kwargs)

    monkeypatch.setattr(runner, "plan", counted)
    executed = book.execute("toy", "quick", {}, out_dir=tmp_path / "pages", log=lambda *_: None)
    assert executed.is_file() and planned == ["toy"]


def test_entries_no_current_job_reads_are_listed_as_orphans(toy):
    runner.run("toy", "quick", progress=False)
    assert runner.orphans("toy", "quick") == []
    stray = paths.RESULTS / "quick" / "toy" / "seed9-0000000000.json"
    stray.write_text("{}")
    assert runner.orphans("toy", "quick") == [stray]


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


def test_a_custom_run_copies_the_jobs_its_overrides_leave_unchanged_and_computes_only_the_rest(toy):
    runner.run("toy", "quick", progress=False)  # seeds 0, 1, 2
    toy.CALLS.clear()
    said = []
    custom = runner.run("toy", "quick", {"seeds": [1, 5]}, progress=False, log=said.append)
    assert toy.CALLS == [5] and custom.computed == 1  # seed 1 is the profile's job: the same id, the same code
    assert sorted(custom["squares"]["seed"]) == [1, 5]
    assert any("1 job(s) the overrides leave unchanged" in line for line in said)
    copied = runner.plan("toy", "quick", {"seeds": [1, 5]})[2][0]
    assert (paths.RESULTS / "custom" / "toy" / f"{copied.id}.json").exists()


def test_a_custom_run_recomputes_a_profile_entry_of_other_code(toy):
    runner.run("toy", "quick", progress=False)
    shelf = store.Store("quick", "toy")
    job = runner.plan("toy", "quick")[2][1]  # seed 1
    entry = shelf.load(job)
    shelf.save(job, "0123456789ab", entry.tables, entry.provenance)  # stored by other code
    toy.CALLS.clear()
    runner.run("toy", "quick", {"seeds": [1]}, progress=False)
    assert toy.CALLS == [1]
