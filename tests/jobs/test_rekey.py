"""Re-keying stale entries: verified on a sample under the new code, adopted only when every sample
reproduces its entry, atomic entry by entry."""

import importlib
import json
import sys
import textwrap

import pytest

from entropic import paths, registry, sections
from entropic.jobs import rekey, runner, store

# A section whose fit has a local variable to rename and a constant to change; ``REGIME`` names the parameter
# whose values the sample must cover.
SOURCE = '''
from dataclasses import dataclass

from ..jobs.config import SectionConfig, distinct_ints, param
from ..jobs.store import Job

SCALE = {scale}
REGIME = ("group",)


@dataclass(frozen=True)
class Config(SectionConfig):
    seeds: tuple = param((0, 1, 2, 3), "seeds", distinct_ints(0))


def jobs(cfg):
    return [Job(f"seed{{s}}", {{"seed": s, "group": s % 2}}) for s in cfg.seeds]


def fit(job):
    {name} = job.params["seed"] * SCALE
    return {{"values": [{{"seed": job.params["seed"], "value": {name} / 3, "seconds": 0.1 * job.params["seed"]}}]}}
'''


@pytest.fixture
def section(tmp_path, monkeypatch):
    """Write the section's source (``write(scale=…, name=…)``) and import it afresh; results in tmp_path."""
    folder = tmp_path / "extra_sections"
    folder.mkdir()
    notebooks = tmp_path / "notebooks"
    (notebooks / "params").mkdir(parents=True)
    (notebooks / "params" / "paper.yaml").write_text("rekeyed: {}\n")
    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(folder)])
    monkeypatch.setattr(paths, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(paths, "PROFILES", notebooks / "params")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")

    def write(scale=2.0, name="value"):
        (folder / "rekeyed.py").write_text(textwrap.dedent(SOURCE.format(scale=scale, name=name)))
        sys.modules.pop("entropic.sections.rekeyed", None)
        importlib.invalidate_caches()
        runner._PLANS.clear()
        return registry.module("rekeyed")

    yield write
    sys.modules.pop("entropic.sections.rekeyed", None)
    runner._PLANS.clear()


def _rewrite(path, data: dict) -> None:
    """Write an entry edited by hand, with the checksum of what it now holds."""
    payload = {k: data[k] for k in ("format", "job", "params", "key", "tables", "provenance")}
    path.write_text(json.dumps({**payload, "checksum": store._checksum(payload)}))


def _stored(section_name="rekeyed"):
    folder = paths.RESULTS / "paper" / section_name
    return {p.name: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def test_a_behaviour_preserving_edit_is_verified_and_every_entry_becomes_current(section):
    section()
    first = runner.run("rekeyed", "paper", compute=True, progress=False, log=lambda *_: None)
    assert first.computed == 4
    section(name="renamed")  # a renamed local variable: another syntax tree, the same numbers
    assert len(runner.run("rekeyed", "paper", progress=False, log=lambda *_: None).stale) == 4
    said = []
    groups = rekey.rekey("rekeyed", "paper", log=said.append)
    assert len(groups) == 1 and groups[0].verified and groups[0].rekeyed == 4
    assert len(groups[0].sample) == 2  # one per regime: an even seed (group 0) and an odd one (group 1)
    assert {int(s.split("-")[0].removeprefix("seed")) % 2 for s in groups[0].sample} == {0, 1}
    after = runner.run("rekeyed", "paper", progress=False, log=lambda *_: None)
    assert not after.stale and after.computed == 0
    entries = _stored()
    for data in entries.values():
        record = data["provenance"]["rekeyed"][-1]
        assert record["from"] == first.entries[0].key and record["to"] == after.entries[0].key
        assert record["verified"] == groups[0].sample
    assert any("re-keyed 4 entries" in line for line in said)


def test_a_real_change_is_refused_and_the_differing_job_is_listed(section):
    section()
    runner.run("rekeyed", "paper", compute=True, progress=False, log=lambda *_: None)
    before = _stored()
    section(scale=3.0)  # a changed constant: other numbers
    said = []
    groups = rekey.rekey("rekeyed", "paper", log=said.append)
    assert not groups[0].verified and groups[0].rekeyed == 0
    # seed 0 computes 0 under either constant, so only a sampled non-zero seed can show the change
    first = groups[0].differences[0]
    assert first.split("-")[0] in {"seed1", "seed2", "seed3"} and "value differ" in first
    assert _stored() == before  # nothing re-written
    assert len(runner.run("rekeyed", "paper", progress=False, log=lambda *_: None).stale) == 4
    assert any("not re-keyed" in line for line in said)


def test_an_interrupted_rekey_leaves_every_entry_old_or_new_keyed_and_a_second_run_finishes(section, monkeypatch):
    section()
    old_key = runner.run("rekeyed", "paper", compute=True, progress=False, log=lambda *_: None).entries[0].key
    module = section(name="renamed")
    saved = []
    original = store.Store.save

    def save_twice_then_stop(self, job, key, tables, provenance):
        if len(saved) == 2:
            raise KeyboardInterrupt
        saved.append(job.id)
        return original(self, job, key, tables, provenance)

    monkeypatch.setattr(store.Store, "save", save_twice_then_stop)
    with pytest.raises(KeyboardInterrupt):
        rekey.rekey("rekeyed", "paper", log=lambda *_: None)
    monkeypatch.setattr(store.Store, "save", original)
    shelf = store.Store("paper", "rekeyed")
    jobs = module.jobs(runner.plan("rekeyed", "paper")[1])
    keys = [shelf.load(job).key for job in jobs]  # every entry loads: none is broken
    new_key = runner.run("rekeyed", "paper", progress=False, log=lambda *_: None).keys[None]
    assert sorted(set(keys)) == sorted({old_key, new_key}) and keys.count(new_key) == 2
    groups = rekey.rekey("rekeyed", "paper", log=lambda *_: None)
    assert groups[0].rekeyed == 2 and all(shelf.load(job).key == new_key for job in jobs)


def test_wall_times_are_not_compared_and_added_tables_are_named():
    stored = {"t": [{"a": 1.0, "train_seconds": 3.0, "seconds_per_model": 1.0}]}
    fresh = {"t": [{"a": 1.0, "train_seconds": 9.0, "seconds_per_model": 3.0}], "u": [{"b": 1}]}
    differences, added = rekey.compare_tables(stored, fresh)
    assert differences == [] and added == ["u"]
    differences, _ = rekey.compare_tables(stored, {"t": [{"a": 1.0000001, "train_seconds": 3.0}]})
    assert differences and "a differ" in differences[0]
    with pytest.raises(ValueError, match="sample"):
        rekey.rekey("surrogate", "paper", sample=0)


def test_each_entry_records_only_the_added_tables_it_does_not_hold(section, monkeypatch):
    section()
    runner.run("rekeyed", "paper", compute=True, progress=False, log=lambda *_: None)
    returned = '"seconds": 0.1 * job.params["seed"]}}]'
    adding = SOURCE.replace(returned, returned + ', "extra": [{{"seed": job.params["seed"], "x": 1.0}}]')
    assert adding != SOURCE
    monkeypatch.setattr(sys.modules[__name__], "SOURCE", adding)  # the new code adds a table
    section()
    path = next(p for p in (paths.RESULTS / "paper" / "rekeyed").glob("seed3-*.json"))
    data = json.loads(path.read_text())  # one entry (never sampled: the costliest) holds it already
    data["tables"]["extra"] = [{"seed": 3, "x": 1.0}]
    _rewrite(path, data)
    groups = rekey.rekey("rekeyed", "paper", log=lambda *_: None)
    assert groups[0].verified and groups[0].rekeyed == 4 and groups[0].added == ["extra"]
    held = {name.split("-")[0]: data["provenance"]["rekeyed"][-1]["tables added by the new code, not held"]
            for name, data in _stored().items()}
    assert held == {"seed0": ["extra"], "seed1": ["extra"], "seed2": ["extra"], "seed3": []}


def test_a_sample_whose_bytes_differ_is_judged_against_the_code_that_stored_it(section, monkeypatch):
    section()
    runner.run("rekeyed", "paper", compute=True, progress=False, log=lambda *_: None)
    folder = paths.RESULTS / "paper" / "rekeyed"
    for path in folder.glob("*.json"):  # the stored bytes of another machine: the last digit differs
        data = json.loads(path.read_text())
        for row in data["tables"]["values"]:
            row["value"] += 1e-12
        data["provenance"]["commit"] = "abc1234"
        _rewrite(path, data)
    section(name="renamed")
    calls = []

    def same_code(section_name, job, entry, commit, threads):  # the stored commit's code, computing here
        calls.append(commit)
        return store.as_stored(runner.cluster.compute(section_name, job)[0])

    monkeypatch.setattr(rekey, "old_code", same_code)
    groups = rekey.rekey("rekeyed", "paper", log=lambda *_: None)
    assert groups[0].verified and groups[0].rekeyed == 4 and set(calls) == {"abc1234"}
    assert set(groups[0].against.values()) == {"the code of commit abc1234, both computed on this machine on one "
                                               "thread"}

    section(name="renamed_again")  # the computing commit's code holds the key of before the re-key: the next
    calls.clear()                  # candidate (the commit that wrote the file, else HEAD) computes it

    def keyed_later(section_name, job, entry, commit, threads):
        calls.append(commit)
        if commit == "abc1234":
            raise rekey.OtherKey(f"the code of commit {commit} has version key 0, the entry {entry.key}")
        return same_code(section_name, job, entry, commit, threads)

    monkeypatch.setattr(rekey, "old_code", keyed_later)
    groups = rekey.rekey("rekeyed", "paper", log=lambda *_: None)
    head = store._commit()
    assert groups[0].verified and groups[0].rekeyed == 4 and calls[:2] == ["abc1234", head]
    assert set(groups[0].against.values()) == {f"the code of commit {head}, both computed on this machine on one "
                                               "thread"}

    section(scale=5.0)  # now a real change: the old code's bytes differ from the new code's
    monkeypatch.setattr(rekey, "old_code", lambda *args: {"values": [{"seed": 0, "value": -1.0, "seconds": 0.0}]})
    groups = rekey.rekey("rekeyed", "paper", log=lambda *_: None)
    assert not groups[0].verified and groups[0].rekeyed == 0


@pytest.mark.integration
def test_the_code_of_a_commit_is_checked_out_and_computes_the_job_it_stored(tmp_path):
    """HEAD's own code, in a worktree beside the project, computes a tiny surrogate job as this tree does."""
    import subprocess

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True)
    if head.returncode or subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "lib"], cwd=paths.ROOT).returncode:
        pytest.skip("needs a clone whose lib/ is its HEAD commit")
    module, _, jobs = runner.plan("surrogate", "tiny")
    job = next(j for j in jobs if j.params.get("kind") == "data_only")
    key = runner.versions.version_key(module, "data_only")
    entry = store.Entry(job.id, job.params, key, {}, {})
    old = rekey.old_code("surrogate", job, entry, head.stdout.strip(), 1)
    assert rekey.compare_tables(old, runner.cluster.compute("surrogate", job)[0]) == ([], [])
    with pytest.raises(ValueError, match="version key"):
        rekey.old_code("surrogate", job, store.Entry(job.id, job.params, "0" * 12, {}, {}), head.stdout.strip(), 1)
