import json

import pytest

from entropic.jobs import store
from entropic.jobs.store import Job, Store

JOB = Job("toy-seed0", {"seed": 0, "n": 10})


def test_an_entry_round_trips_with_its_rows_key_and_provenance(tmp_path):
    shelf = Store("quick", "toy", root=tmp_path)
    shelf.save(JOB, "abc", {"sweep": [{"r": 1, "loss": 0.5}]}, {"device": "CPU", "stop": "fixed"})
    entry = shelf.load(JOB)
    assert entry.tables == {"sweep": [{"r": 1, "loss": 0.5}]} and entry.key == "abc"
    assert entry.provenance["device"] == "CPU" and entry.params == JOB.params
    assert shelf.path(JOB).parent == tmp_path / "quick" / "toy"


def test_a_missing_entry_is_none_and_jobs_differ_by_their_parameters(tmp_path):
    assert Store("quick", "toy", root=tmp_path).load(JOB) is None
    assert Job("toy-seed0", {"seed": 0, "n": 11}).id != JOB.id


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],  # an interrupted write
    lambda text: text.replace('"loss": 0.5', '"loss": 0.7'),  # edited by hand: fails its checksum
    lambda text: "",
])
def test_a_damaged_entry_is_detected_never_used(tmp_path, damage):
    shelf = Store("quick", "toy", root=tmp_path)
    path = shelf.save(JOB, "abc", {"sweep": [{"r": 1, "loss": 0.5}]}, {})
    assert shelf.load(JOB).tables["sweep"][0]["loss"] == 0.5  # read, and its checksum verified, before the damage
    path.write_text(damage(path.read_text()))
    with pytest.raises(store.CorruptEntry, match=path.name):
        shelf.load(JOB)


def test_writes_are_atomic_and_leave_no_staging_file(tmp_path):
    shelf = Store("quick", "toy", root=tmp_path)
    shelf.save(JOB, "abc", {"t": [{"x": 1}]}, {})
    assert [p.name for p in shelf.folder.iterdir()] == [f"{JOB.id}.json"]
    assert json.loads(shelf.path(JOB).read_text())["checksum"]


def _numbers(loss, seconds=1.0):
    return {"sweep": [{"r": 1, "loss": loss, "seconds": seconds}]}


def test_a_recomputed_entry_with_other_numbers_never_replaces_the_stored_one_silently(tmp_path):
    shelf = Store("quick", "toy", root=tmp_path)
    assert shelf.add(JOB, "abc", _numbers(0.47447264), {"threads": 1}) is None  # the first: stored
    said = shelf.add(JOB, "abc", _numbers(0.47447261), {"threads": 2})
    assert shelf.load(JOB).tables == _numbers(0.47447264)  # the first is kept
    assert said.count("\n") == 0 and "sweep.loss" in said and "kept" in said and "1 thread(s)" in said
    forced = shelf.add(JOB, "abc", _numbers(0.47447261), {"threads": 2}, force=True)
    assert shelf.load(JOB).tables == _numbers(0.47447261) and "--force" in forced and "replaced" in forced
    assert [p.name for p in shelf.folder.iterdir()] == [f"{JOB.id}.json"]  # no staging file left


def test_wall_times_other_code_and_unreadable_entries_are_not_conflicts(tmp_path):
    shelf = Store("quick", "toy", root=tmp_path)
    shelf.add(JOB, "abc", _numbers(0.5, seconds=1.0), {"date": "first"})
    assert shelf.add(JOB, "abc", _numbers(0.5, seconds=9.0), {"date": "second"}) is None
    assert shelf.load(JOB).provenance["date"] == "first"  # the same numbers: the stored entry stays as it is
    assert shelf.add(JOB, "newer-code", _numbers(0.7), {}) is None and shelf.load(JOB).key == "newer-code"
    shelf.path(JOB).write_text("{")
    assert shelf.add(JOB, "newer-code", _numbers(0.8), {}) is None and shelf.load(JOB).tables == _numbers(0.8)


def test_differences_name_each_table_and_column_that_differs():
    stored = {"a": [{"x": 1.0, "y": [1, 2], "seconds": 3.0}], "b": [{"z": float("nan")}]}
    same = {"a": [{"x": 1.0, "y": [1, 2], "seconds": 4.0}], "b": [{"z": float("nan")}]}
    assert store.differences(stored, same) == []  # wall times and NaN = NaN are no difference
    assert store.differences(stored, {"a": [{"x": 1.5, "y": [1, 3]}], "b": []}) == ["a.x", "a.y", "b (rows)"]


def test_an_entrys_seconds_count_every_part_of_a_resumed_training_loop():
    entry = store.Entry("a", {}, "k", {"models": [{"train_seconds": 120.0}, {"train_seconds": 120.0}]},
                        {"seconds": 40.0})
    assert entry.seconds == 120.0  # resumed: the last part took 40 s, the loop 120 s over every part
    assert store.Entry("b", {}, "k", {"models": [{"loss": 1.0}]}, {"seconds": 40.0}).seconds == 40.0


def test_an_entry_verified_by_an_earlier_process_is_not_checked_again_and_a_damaged_one_still_is(tmp_path,
                                                                                                  monkeypatch):
    import hashlib

    from entropic import paths

    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    monkeypatch.setattr(store, "_VERIFIED", set())
    monkeypatch.setattr(store, "_READ", set())
    shelf = Store("quick", "toy", root=tmp_path)
    path = shelf.save(JOB, "abc", {"sweep": [{"r": 1, "loss": 0.5}]}, {})
    assert shelf.load(JOB).key == "abc"  # verified, and recorded for the processes after this one
    recorded = (tmp_path / "build" / "computed" / store.VERIFIED).read_text().split()
    assert recorded == [hashlib.sha256(path.read_bytes()).hexdigest()]
    monkeypatch.setattr(store, "_VERIFIED", set())  # a process after it: nothing verified in its memory
    monkeypatch.setattr(store, "_READ", set())
    checked = []
    real = store._checksum
    monkeypatch.setattr(store, "_checksum", lambda payload: checked.append(payload) or real(payload))
    assert shelf.load(JOB).tables == {"sweep": [{"r": 1, "loss": 0.5}]} and not checked
    path.write_text(path.read_text().replace('"loss": 0.5', '"loss": 0.7'))  # edited by hand: other bytes
    with pytest.raises(store.CorruptEntry, match=path.name):
        shelf.load(JOB)
    assert checked
