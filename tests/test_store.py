import json

import pytest

from entropic.pipeline import store
from entropic.pipeline.store import Job, Store

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
    path.write_text(damage(path.read_text()))
    with pytest.raises(store.CorruptEntry, match=path.name):
        shelf.load(JOB)


def test_writes_are_atomic_and_leave_no_staging_file(tmp_path):
    shelf = Store("quick", "toy", root=tmp_path)
    shelf.save(JOB, "abc", {"t": [{"x": 1}]}, {})
    assert [p.name for p in shelf.folder.iterdir()] == [f"{JOB.id}.json"]
    assert json.loads(shelf.path(JOB).read_text())["checksum"]
