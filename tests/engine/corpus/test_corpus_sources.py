"""App. B's corpora rebuilt from their sources (engine/corpus/sources.py): each recipe's rules, the pin
check, the cache that load_corpus reads, and a clear message without a network. One opt-in test downloads the
python corpus's Debian packages and checks the assembled text against its pin."""

import io
import json
import os
import tarfile
import urllib.error

import pytest

from entropic import paths
from entropic.engine.corpus import corpora, sources

SHARED = paths.ROOT.parent / "shared" / "corpora"


def serving(table: dict[str, bytes]):
    """An ``urlopen`` stand-in that serves ``table`` and fails like a missing page otherwise."""
    def opener(url, timeout=None):
        if url not in table:
            raise urllib.error.HTTPError(url, 404, "Not Found", None, None)
        return io.BytesIO(table[url])
    return opener


def offline(url, timeout=None):
    raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")


def _tarball(prefix: str, files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{prefix}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_the_english_recipe_strips_the_gutenberg_header_credit_and_licence():
    raw = ("The Project Gutenberg EBook of X\r\n\r\n*** START OF THIS PROJECT GUTENBERG EBOOK X ***\r\n\r\n\r\n"
           "Produced by Someone\r\n\r\n\r\nPRIDE AND PREJUDICE\r\n\r\nIt is a truth.\r\n\r\n\r\n"
           "End of the Project Gutenberg EBook of X\r\nlicence text\r\n").encode("ascii")
    repo, commit = sources.GUTENBERG
    text = sources.english(serving({f"{sources.RAW}/{repo}/{commit}/1342.txt": raw}), 1)
    assert text == b"PRIDE AND PREJUDICE\n\nIt is a truth.\n"


def test_the_json_recipe_takes_whole_small_ascii_valid_files_in_path_order_up_to_the_limit(monkeypatch):
    repo, commit = sources.JSON_REPO
    files = {"data/b/two.json": b'{"b": 2}', "data/a/one.json": b'["a"]\n',
             "data/c/big.json": b"[" + b"1," * 40_000 + b"1]", "data/d/accent.json": '["é"]'.encode(),
             "data/e/broken.json": b"{", "data/f/three.json": b"[3]", "data/g/four.json": b"[4]",
             "README.md": b"# corpora"}
    opener = serving({f"{sources.CODELOAD}/{repo}/tar.gz/{commit}": _tarball(f"corpora-{commit}", files)})
    monkeypatch.setattr(sources, "LIMIT", 19)
    text = sources.json_corpus(opener, 1)
    # sorted by path, one blank line apart, stopped once 19 bytes are reached
    assert text == b'["a"]\n\n{"b": 2}\n\n[3]\n'
    assert [json.loads(part) for part in text.decode().split("\n\n")] == [["a"], {"b": 2}, [3]]


def test_a_deb_yields_its_data_archive_and_anything_else_is_refused():
    member = b"payload!"
    header = f"{'data.tar.xz':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(member):<10}`\n".encode()
    assert sources.ar_member(b"!<arch>\n" + header + member, "data.tar") == member
    with pytest.raises(ValueError, match="no ar header"):
        sources.ar_member(b"PK\x03\x04", "data.tar")
    with pytest.raises(ValueError, match="no member control"):
        sources.ar_member(b"!<arch>\n" + header + member, "control")


def test_without_a_network_the_message_names_every_address_and_where_to_put_the_file(tmp_path):
    with pytest.raises(corpora.CorpusUnavailable) as caught:
        sources.fetch_corpus("english", cache_dir=tmp_path, opener=offline)
    message = str(caught.value)
    assert "network" in message and "raw.githubusercontent.com/GITenberg" in message
    assert corpora.PINS["english"].sha256 in message and "ENTROPIC_CORPORA" in message
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_a_text_that_does_not_match_its_pin_is_refused(tmp_path):
    opener = serving({corpora.PINS["shakespeare"].verbatim_url: b"First Citizen:\nBefore we proceed any further.\n"})
    with pytest.raises(ValueError, match="not the pinned"):
        sources.fetch_corpus("shakespeare", cache_dir=tmp_path, opener=opener)
    with pytest.raises(ValueError, match="unknown corpus"):
        sources.fetch_corpus("klingon", cache_dir=tmp_path, opener=opener)


@pytest.mark.skipif(not (SHARED / "shakespeare.txt").is_file(), reason="the shared corpora are not beside the clone")
def test_a_fetched_corpus_is_cached_where_load_corpus_finds_it_pinned(tmp_path, monkeypatch):
    pinned = (SHARED / "shakespeare.txt").read_bytes()
    opener = serving({corpora.PINS["shakespeare"].verbatim_url: pinned})
    monkeypatch.setenv("ENTROPIC_CACHE", str(tmp_path))
    monkeypatch.setenv("ENTROPIC_SHARED_CORPORA", str(tmp_path / "no-shared-folder"))
    monkeypatch.delenv("ENTROPIC_CORPORA", raising=False)
    found = sources.fetch_missing(["shakespeare"], log=lambda *_: None, opener=opener)
    assert found["shakespeare"] == tmp_path / "corpora" / "shakespeare.txt"
    corpus = corpora.load_corpus("shakespeare", max_chars=1000)
    assert corpus.provenance.source == "download" and corpus.provenance.matches_pin
    assert sources.fetch_missing(["shakespeare"], log=lambda *_: None, opener=offline) == found  # cached: no download


@pytest.mark.integration
@pytest.mark.skipif(not os.environ.get("ENTROPIC_NETWORK_TESTS"), reason="downloads from Debian's archive: the "
                    "test suite needs no network; ENTROPIC_NETWORK_TESTS=1 runs it")
def test_the_python_corpus_rebuilt_from_debians_packages_matches_its_pin(tmp_path):
    """Downloads two Debian packages (2.6 MB) from Debian's archive (opt-in: the suite never downloads)."""
    target = sources.fetch_corpus("python", cache_dir=tmp_path)
    assert target.read_bytes().startswith(b"# Copyright 2007 Google, Inc.")  # abc.py, the first module
    assert corpora.locate_corpus("python", user_dir=tmp_path, sources=("user_dir",)).matches_pin
