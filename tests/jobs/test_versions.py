"""Version keys hash code as syntax: what a job can compute differently, and nothing else.

Each test edits a private copy of the package (imported as ``entropic_copy``) and compares the keys
of every section's jobs before and after the edit."""

import importlib
import linecache
import re
import shutil
import sys
import weakref

import pytest

from entropic import paths, registry
from entropic.jobs import versions

KINDS = {"surrogate": ["sweep", "recovery", "data_only"], "ladder": [None], "attention_native": ["sweep", "recovery"],
         "predictability": [None], "ablation": ["sweep", "recovery"], "real_corpora": ["data", "train"]}
TRAINING = {"surrogate", "ladder", "attention_native", "ablation"}


@pytest.fixture
def package(tmp_path):
    """A copy of the package, importable as ``entropic_copy``; ``keys()`` re-imports it and returns
    ``{(section, kind): key}``, ``edit(file, old, new)`` changes one of its files."""
    shutil.copytree(paths.PACKAGE, tmp_path / "entropic_copy", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(tmp_path))

    def keys():
        for name in [m for m in sys.modules if m.split(".")[0] == "entropic_copy"]:
            del sys.modules[name]
        linecache.clearcache()
        importlib.invalidate_caches()
        return {(name, kind): versions.version_key(importlib.import_module(f"entropic_copy.sections.{name}"), kind)
                for name, kinds in KINDS.items() for kind in kinds}

    def edit(file, old, new, count=1):
        path = tmp_path / "entropic_copy" / file
        text = path.read_text()
        assert old in text, (file, old)
        path.write_text(text.replace(old, new, count))

    yield keys, edit
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.split(".")[0] == "entropic_copy"]:
        del sys.modules[name]


def test_the_copy_has_the_same_keys_as_the_package(package):
    keys, _ = package
    original = {(n, k): versions.version_key(registry.module(n), k) for n, kinds in KINDS.items() for k in kinds}
    assert keys() == original


def test_docstrings_comments_and_formatting_change_no_key(package):
    keys, edit = package
    before = keys()
    edit("engine/spectral.py", '"""', '"""Edited module docstring.\n\n')
    edit("engine/synthetic/train.py", "def rank_sweep(r_star: int) -> list[int]:\n",
         "def rank_sweep(r_star: int) -> list[int]:  # a comment\n    # another\n")
    edit("engine/synthetic/models.py", '"""Base class: registers', '"""Edited. Base class: registers')
    edit("engine/synthetic/tasks.py", "    return sigma**2 * T * d", "    return (\n        sigma**2 * T * d\n    )")
    assert keys() == before


def test_a_changed_constant_changes_exactly_the_jobs_that_reach_it(package):
    keys, edit = package
    before = keys()
    edit("engine/synthetic/train.py", "UNSTABLE_RISE = 0.05", "UNSTABLE_RISE = 0.06")
    after = keys()
    changed = {name for (name, kind), key in after.items() if key != before[(name, kind)]}
    assert changed == TRAINING
    assert after[("surrogate", "data_only")] == before[("surrogate", "data_only")]  # no training in it


def test_a_changed_estimator_touches_only_the_jobs_that_estimate(package):
    keys, edit = package
    before = keys()
    text = (paths.ENGINE / "synthetic" / "estimators.py").read_text()
    number = re.search(r"2\.0|\b2 \*", text).group(0)
    edit("engine/synthetic/estimators.py", number, number.replace("2", "3"))
    changed = {nk for nk, key in keys().items() if key != before[nk]}
    assert changed == {("surrogate", "data_only")}


def test_figures_verdicts_and_claims_are_never_part_of_a_key(package):
    keys, edit = package
    before = keys()
    edit("sections/surrogate/spec.py", 'Claim("28.5", 28.5', 'Claim("28.5", 28.6')
    edit("report/verdicts.py", "FLOOR_BAND = 0.05", "FLOOR_BAND = 0.06")
    edit("report/figures.py", "WIDTH = 6.0", "WIDTH = 6.1")
    assert keys() == before


def test_moving_a_function_to_another_module_keeps_its_key(package):
    keys, edit = package
    before = keys()
    source = (paths.ENGINE / "synthetic" / "train.py").read_text()
    body = source[source.index("def rank_sweep("):source.index("@dataclass(frozen=True)\nclass StopRule")]
    edit("engine/synthetic/train.py", body, "")
    edit("engine/synthetic/train.py", "from .models import BatchedStudents\n",
         "from .models import BatchedStudents\nfrom .tasks import rank_sweep  # noqa: F401\n")
    anchor = "\n@dataclass(frozen=True)\nclass Task"
    edit("engine/synthetic/tasks.py", anchor, "\n" + body + anchor)
    assert keys() == before


def test_keys_do_not_depend_on_where_the_project_lives_or_on_memory_addresses(package):
    keys, _ = package
    assert keys() == keys()
    pieces = versions.reachable(registry.module("real_corpora"), "train")
    assert not any(str(paths.ROOT) in piece or " at 0x" in piece for piece in pieces.values())


def test_a_key_is_walked_once_for_the_processes_that_follow_until_any_file_of_the_library_changes(tmp_path,
                                                                                                  monkeypatch):
    monkeypatch.setattr(paths, "BUILD", tmp_path)
    module = registry.module("ladder")
    monkeypatch.setattr(versions, "_KEYS", weakref.WeakKeyDictionary())  # a new process
    key = versions.version_key(module)
    stored = tmp_path / "computed" / f"version-keys-{versions._key_set()}" / f"{module.__name__}.None.txt"
    assert stored.read_text() == key + "\n"
    stored.write_text("0123456789ab\n")  # what a process of another key would have left: read, not walked again
    monkeypatch.setattr(versions, "_KEYS", weakref.WeakKeyDictionary())
    assert versions.version_key(module) == "0123456789ab"
    sources = versions.library_sources()  # any file of the library edited, added or removed: walked again
    monkeypatch.setattr(versions, "library_sources", lambda: (*sources, (paths.PACKAGE / "added.py", b"x = 1\n")))
    monkeypatch.setattr(versions, "_KEYS", weakref.WeakKeyDictionary())
    assert versions.version_key(module) == key
    assert len(list((tmp_path / "computed").glob("version-keys-*"))) == 2
    stored.write_text("not a key\n")
    monkeypatch.setattr(versions, "library_sources", lambda: sources)
    monkeypatch.setattr(versions, "_KEYS", weakref.WeakKeyDictionary())
    with pytest.raises(RuntimeError, match=re.escape(str(stored)) + ".*delete it"):
        versions.version_key(module)


def test_a_section_outside_the_library_is_walked_every_time(package, tmp_path, monkeypatch):
    keys, _ = package
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    assert keys() and not (tmp_path / "build").exists()  # the copy's keys, none stored
