import json
import shutil

import pytest

from entropic import paths, sections
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


def test_version_keys_cover_the_engine_modules_a_section_uses_and_nothing_of_the_book():
    for name in ("surrogate", "ladder", "attention_native"):
        files = {p.name for p in store.engine_modules(sections.module(name))}
        assert {"models.py", "train.py", "tasks.py", "spectral.py"} <= files
        assert all(p.parent == paths.ENGINE for p in store.engine_modules(sections.module(name)))
    assert "estimators.py" in {p.name for p in store.engine_modules(sections.module("surrogate"))}
    assert "estimators.py" not in {p.name for p in store.engine_modules(sections.module("ladder"))}
    sources = "".join(store.fit_sources(sections.module("surrogate")))
    assert "def fit(" in sources and "def eckart_young_excess(" in sources and "def figure_sweep(" not in sources


def test_editing_the_students_module_changes_the_keys_of_jobs_that_train_and_editing_a_figure_does_not(
        tmp_path, monkeypatch):
    engine = tmp_path / "engine"
    shutil.copytree(paths.ENGINE, engine)
    monkeypatch.setattr(paths, "ENGINE", engine)
    names = ("surrogate", "ladder", "attention_native")
    before = {n: store.version_key(sections.module(n)) for n in names}
    (tmp_path / "figures.py").write_text("# not read: figures are not part of any key\n")
    assert {n: store.version_key(sections.module(n)) for n in names} == before
    (engine / "estimators.py").write_text((engine / "estimators.py").read_text() + "\n# edited\n")
    after = {n: store.version_key(sections.module(n)) for n in names}
    assert after["surrogate"] != before["surrogate"]
    assert after["ladder"] == before["ladder"] and after["attention_native"] == before["attention_native"]
    (engine / "models.py").write_text((engine / "models.py").read_text() + "\n# edited\n")
    assert all(store.version_key(sections.module(n)) != after[n] for n in names)
