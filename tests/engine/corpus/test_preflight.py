"""The corpora a run will read are checked before its first job (engine/corpus/preflight.py, called by the runner
and by every command that computes): each fault refused in one line naming the file, where it came from and
``make corpora``, with nothing computed."""

import hashlib

import pytest

from conftest import cli
from entropic import paths
from entropic.engine.corpus import preflight

TEXT = "It is a truth universally acknowledged. " * 4000  # 160,000 characters: long enough for App. B's split


def _isolated(tmp_path, monkeypatch):
    """No real source leaks in: empty shared folder and cache, no ENTROPIC_CORPORA."""
    monkeypatch.delenv("ENTROPIC_CORPORA", raising=False)
    monkeypatch.setenv("ENTROPIC_SHARED_CORPORA", str(tmp_path / "no-shared"))
    monkeypatch.setenv("ENTROPIC_CACHE", str(tmp_path / "cache"))


def _job(sha256: str, **params) -> dict:
    return {"corpus": "english", "sha256": sha256, "corpus_dir": None, "sources": ["user_dir", "shared", "download"],
            "max_chars": None, "block": 2048, "val_every": 20, "tail_fraction": 0.05, "context": 64} | params


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_corpus_that_is_present_planned_and_long_enough_passes(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    monkeypatch.setenv("ENTROPIC_CORPORA", str(tmp_path))
    (tmp_path / "english.txt").write_text(TEXT)
    preflight.check_planned([_job(_digest(TEXT)), _job(_digest(TEXT)), {"corpus": "routing"}], "text_rank")


@pytest.mark.parametrize("content, message", [
    (None, r"corpus 'english', which 2 jobs of text_rank read, is on no path of this machine: `make corpora` "
           r"fetches App\. B's six pinned corpora, or put english\.txt in the folder ENTROPIC_CORPORA names$"),
    ("hello", r"corpus file .*/english\.txt, from the folder ENTROPIC_CORPORA names, is too short for the split 2 "
              r"jobs of text_rank cut: 5 characters in blocks of 2048 .*; `make corpora` fetches"),
    ("", r"corpus file .*/english\.txt is empty \(2 jobs of text_rank read it\): `make corpora` fetches"),
    (b"\x00\x01\x02binary", r"corpus file .*/english\.txt holds NUL bytes: binary, not text \(2 jobs of text_rank "
                            r"read it\): `make corpora`"),
    (TEXT + "changed", r"corpus file .*/english\.txt, from the folder ENTROPIC_CORPORA names, is not the text 2 "
                       r"jobs of text_rank were planned on: sha256 \w+…, planned \w+…; `make corpora` fetches"),
])
def test_each_fault_of_a_corpus_is_refused_in_one_line_naming_the_file_where_it_came_from_and_make_corpora(
        tmp_path, monkeypatch, content, message):
    _isolated(tmp_path, monkeypatch)
    folder = tmp_path / "mine"
    folder.mkdir()
    monkeypatch.setenv("ENTROPIC_CORPORA", str(folder))
    if isinstance(content, bytes):
        (folder / "english.txt").write_bytes(content)
    elif content is not None:
        (folder / "english.txt").write_text(content)
    planned = content if content == "hello" else TEXT  # a short file given when the jobs were planned: its own text
    with pytest.raises(ValueError, match=message) as refused:
        preflight.check_planned([_job(_digest(planned))] * 2, "text_rank")
    assert "\n" not in str(refused.value)


def test_a_prefix_too_short_for_the_split_is_refused_though_the_file_is_long(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    (tmp_path / "english.txt").write_text(TEXT)
    with pytest.raises(ValueError, match=r"corpus_dir=.*is too short .*: 3000 characters in blocks of 2048"):
        preflight.check_planned([_job(_digest(TEXT), corpus_dir=str(tmp_path), max_chars=3000)], "real_corpora")


@pytest.mark.parametrize("args", [["run", "text_rank", "--no-book"], ["run", "real_corpora", "--no-book"],
                                  ["book", "--profile", "quick", "--no-html"]])
def test_a_run_that_needs_a_missing_corpus_is_refused_before_its_first_job(tmp_path, monkeypatch, capsys, args):
    """``make book PROFILE=quick`` included: it is refused before the surrogate, the first section, computes."""
    _isolated(tmp_path, monkeypatch)
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    code, _, err = cli(args, capsys)
    assert code == 2 and err.startswith("error: corpus 'english', which ") and "make corpora" in err, err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.json"))
