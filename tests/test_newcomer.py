"""What a newcomer's trial on a fresh clone hit, each as its reproducer: every one now ends in one line naming
the problem and a non-zero exit, before any work, or does what it says."""

import os
import shutil
import stat
import subprocess
import sys
import zipfile

import pytest

from conftest import cli
from entropic import paths
from entropic.engine.corpus import corpora


def _refused(code, err, *words):
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("error: "), err
    for word in words:
        assert word in err, err


def test_prune_at_an_unknown_profile_is_one_line(capsys):
    code, _, err = cli(["prune", "--profile", "quik"], capsys)
    _refused(code, err, "unknown profile 'quik'", "quick")


def test_rekey_at_an_unknown_profile_is_one_line(capsys):
    code, _, err = cli(["rekey", "frontier", "--profile", "papr"], capsys)
    _refused(code, err, "unknown profile 'papr'")


@pytest.mark.parametrize("value, args", [
    ("abc", ["run", "toy", "--no-book"]),  # everything stored: it used to exit 0
    ("abc", ["run", "toy", "--no-book", "--force"]),  # work pending: it used to start the progress bar first
    ("-1", ["run", "toy", "--no-book", "--cluster", "local:1"]),  # it used to start a Dask worker first
])
def test_a_bad_thread_cap_is_refused_before_anything_is_planned_or_started(toy, capsys, monkeypatch, value, args):
    from entropic.jobs import runner

    runner.run("toy", "quick", progress=False)  # everything stored
    toy.CALLS.clear()
    monkeypatch.setenv("ENTROPIC_MAX_THREADS", value)
    code, out, err = cli(args, capsys)
    _refused(code, err, "ENTROPIC_MAX_THREADS must be a positive whole number", repr(value))
    assert toy.CALLS == [] and out == ""
    with pytest.raises(ValueError, match="ENTROPIC_MAX_THREADS"):  # a notebook's runner.run says the same
        runner.run("toy", "quick", progress=False)


@pytest.fixture
def corpus_dir(tmp_path, monkeypatch):
    folder = tmp_path / "corpora"
    folder.mkdir()
    monkeypatch.setenv("ENTROPIC_CORPORA", str(folder))
    return folder


def test_a_corpus_of_only_whitespace_is_refused_when_the_jobs_are_planned(corpus_dir, capsys):
    (corpus_dir / "english.txt").write_text(" \n\t\n" * 40)
    with pytest.raises(ValueError, match="holds only whitespace"):
        corpora.read_text_file(corpus_dir / "english.txt")
    code, _, err = cli(["run", "real_corpora", "corpora=[english]", "long_corpus=None", "--no-book"], capsys)
    _refused(code, err, "english.txt holds only whitespace")


def test_a_folder_where_a_corpus_file_should_be_is_said_not_passed_over(corpus_dir, capsys):
    (corpus_dir / "english.txt").mkdir()
    code, _, err = cli(["run", "real_corpora", "corpora=[english]", "long_corpus=None", "--no-book"], capsys)
    _refused(code, err, "english.txt exists but is not a file")


@pytest.mark.parametrize("args", [["book"], ["run", "surrogate"]])
def test_outside_a_clone_the_book_commands_say_the_book_needs_one(capsys, monkeypatch, args):
    monkeypatch.setattr(paths, "IN_CHECKOUT", False)
    code, _, err = cli(args, capsys)
    _refused(code, err, "the book is built from a clone of the repository")
    assert ("--no-book" in err) == (args[0] == "run")


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_a_stored_entry_takes_the_umask_mode_not_mkstemps_private_one(tmp_path, umask, mode):
    code = ("import sys; from pathlib import Path; from entropic.jobs import store; "
            "print(store.Store('quick', 'toy', root=Path(sys.argv[1])).save(store.Job('a', {'x': 1}), 'k', "
            "{'t': [{'v': 1}]}, {}))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: os.umask(umask))  # the umask a process starts with, as a shell sets it
    assert done.returncode == 0, done.stderr[-2000:]
    assert stat.S_IMODE(os.stat(done.stdout.strip()).st_mode) == mode


def test_the_closing_line_names_the_store_that_was_written(toy, capsys, monkeypatch, tmp_path):
    moved = tmp_path / "elsewhere"
    monkeypatch.setattr(paths, "RESULTS", moved)  # what ENTROPIC_RESULTS=<folder> sets
    code, out, _ = cli(["run", "toy", "seeds=[4]", "--no-book"], capsys)
    assert code == 0 and f"jobs in {moved / 'custom' / 'toy'} " in out, out
    assert "results/custom" not in out


def test_a_wheel_is_built_outside_the_projects_build_folder(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.cfg", "README.md", "LICENSE"):
        shutil.copy2(paths.ROOT / name, source / name)
    shutil.copytree(paths.ROOT / "lib", source / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(paths.PROFILES, source / "notebooks" / "params")
    stale = source / "build" / "lib" / "entropic" / "stale_module.py"  # what an earlier build left
    stale.parent.mkdir(parents=True)
    stale.write_text("LEFT = True\n")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                           "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("entropic-*.whl"))
    assert not any("stale_module" in name for name in zipfile.ZipFile(wheel).namelist())
    assert sorted(p.name for p in (source / "build").rglob("*") if p.is_file()) == ["stale_module.py"]


def test_a_missing_profiles_folder_is_named(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(paths, "PROFILES", tmp_path / "no-such-folder")
    code, _, err = cli(["run", "surrogate", "--no-book"], capsys)
    _refused(code, err, str(tmp_path / "no-such-folder"), "does not exist")
