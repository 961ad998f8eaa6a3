import functools
import hashlib
import http.server
import re
import sysconfig
import threading
from pathlib import Path

import pytest

from entropic.engine.corpus import corpora
from entropic.engine.corpus import provenance as corpus_provenance
from entropic.engine.corpus import tokens as corpus_tokens

TEXT = "To be, or not to be: that is the question.\n"


def _isolated(tmp_path, monkeypatch):
    """No real source leaks in: empty shared folder and cache, no ENTROPIC_CORPORA."""
    monkeypatch.delenv("ENTROPIC_CORPORA", raising=False)
    monkeypatch.setenv("ENTROPIC_SHARED_CORPORA", str(tmp_path / "no-shared"))
    monkeypatch.setenv("ENTROPIC_CACHE", str(tmp_path / "cache"))


def test_a_user_directory_is_read_first_and_its_provenance_recorded(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    (tmp_path / "english.txt").write_text(TEXT)
    corpus = corpora.load_corpus("english", user_dir=tmp_path)
    assert corpus.text == TEXT and corpus.provenance.source == "user_dir"
    assert corpus.provenance.sha256 == hashlib.sha256(TEXT.encode()).hexdigest()
    assert corpus.provenance.bytes == len(TEXT) and not corpus.provenance.matches_pin
    assert corpus_tokens.decode(corpus.tokens, corpus.vocab) == TEXT
    assert list(corpus.vocab) == sorted(set(TEXT))


def test_a_planned_corpus_loads_while_its_text_is_the_planned_one_and_is_refused_once_it_changed(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    (tmp_path / "english.txt").write_text(TEXT)
    planned = hashlib.sha256(TEXT.encode()).hexdigest()
    corpus = corpora.load_planned("english", planned, user_dir=tmp_path, sources=("user_dir",))
    assert corpus.text == TEXT
    (tmp_path / "english.txt").write_text(TEXT + "Whether 'tis nobler in the mind to suffer\n")
    with pytest.raises(ValueError, match=rf"'english' changed since the jobs were planned .*planned {planned[:12]}"):
        corpora.load_planned("english", planned, user_dir=tmp_path, sources=("user_dir",))


def test_the_environment_variable_names_the_user_directory(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    (tmp_path / "json.txt").write_text('{"a": 1}\n')
    monkeypatch.setenv("ENTROPIC_CORPORA", str(tmp_path))
    assert corpora.load_corpus("json").provenance.source == "user_dir"


def test_the_shared_folder_is_used_when_the_user_directory_lacks_the_file(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    shared, user = tmp_path / "shared", tmp_path / "user"
    shared.mkdir(), user.mkdir()
    (shared / "music.txt").write_text("X:1\nK:G\nGABc|\n")
    corpus = corpora.load_corpus("music", user_dir=user, shared_dir=shared)
    assert corpus.provenance.source == "shared" and corpus.provenance.location == str(shared / "music.txt")
    with pytest.raises(ValueError, match="pinned"):
        corpora.load_corpus("music", shared_dir=shared, require_pinned=True)


@pytest.fixture
def server(tmp_path):
    """A local HTTP server on 127.0.0.1 serving tmp_path/served (never the internet)."""
    served = tmp_path / "served"
    served.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_download_checks_the_pinned_sha256_and_caches_the_file(tmp_path, monkeypatch, server):
    _isolated(tmp_path, monkeypatch)
    served, url = server
    (served / "linux.txt").write_text(TEXT)
    pin = corpus_provenance.Pin(hashlib.sha256(TEXT.encode()).hexdigest(), 43, "test")
    monkeypatch.setitem(corpus_provenance.PINS, "linux", pin)
    with pytest.raises(corpora.CorpusUnavailable):
        corpora.load_corpus("linux", substitute=False)  # download=False by default: never fetches
    corpus = corpora.load_corpus("linux", download=True, base_url=url, substitute=False)
    assert corpus.provenance.source == "download" and corpus.provenance.matches_pin
    assert (tmp_path / "cache" / "corpora" / "linux.txt").read_text() == TEXT
    (served / "linux.txt").unlink()  # the cache now serves it without the network
    assert corpora.load_corpus("linux", substitute=False).provenance.source == "download"


def test_a_downloaded_file_with_the_wrong_sha256_is_an_error_naming_it(tmp_path, monkeypatch, server):
    _isolated(tmp_path, monkeypatch)
    served, url = server
    (served / "json.txt").write_text("[1, 2, 3]\n")
    with pytest.raises(ValueError, match=r"json\.txt.*sha256"):
        corpora.load_corpus("json", download=True, base_url=url, substitute=False)
    assert not (tmp_path / "cache" / "corpora" / "json.txt").exists()


def test_corpora_found_nowhere_are_reported_missing_with_where_to_put_them(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    loaded, missing = corpora.load_corpora(["english", "shakespeare"], substitute=False)
    assert loaded == {} and [name for name, _ in missing] == ["english", "shakespeare"]
    assert "ENTROPIC_CORPORA" in missing[0][1] and corpus_provenance.PINS["english"].sha256 in missing[0][1]


STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.mark.parametrize("name, where", [("english", str(STDLIB / "pydoc_data" / "topics.py")),
                                         ("python", str(STDLIB)),
                                         ("linux", "/usr/include/linux"),
                                         ("json", "/usr/share/iso-codes/json")])
def test_a_machine_local_substitute_is_real_text_and_labelled(tmp_path, monkeypatch, name, where):
    if not Path(where).exists():
        pytest.skip(f"{where} is absent on this machine")
    _isolated(tmp_path, monkeypatch)
    corpus = corpora.load_corpus(name, max_chars=2000)
    assert corpus.provenance.source == "substitute" and not corpus.provenance.matches_pin
    assert corpus.provenance.location == where and "substitute" in corpus.provenance.note
    assert corpus.text == corpora.substitute_text(name)[0][:2000]  # deterministic
    with pytest.raises(corpora.CorpusUnavailable):
        corpora.load_corpus(name, substitute=False)


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"\xff\xfe\x00abc", "UTF-8"),
                                              (b"ab\x00cd", "NUL")])
def test_empty_or_binary_files_raise_naming_the_file(tmp_path, monkeypatch, content, message):
    _isolated(tmp_path, monkeypatch)
    (tmp_path / "python.txt").write_bytes(content)
    with pytest.raises(ValueError, match=rf"python\.txt.*{message}"):
        corpora.load_corpus("python", user_dir=tmp_path)


def test_missing_files_and_bad_arguments_raise():
    with pytest.raises(ValueError, match="does not exist"):
        corpora.read_text_file("/nonexistent/english.txt")
    with pytest.raises(ValueError, match="klingon"):
        corpora.load_corpus("klingon")
    with pytest.raises(ValueError, match="/nonexistent-dir"):
        corpora.load_corpus("english", user_dir="/nonexistent-dir")
    with pytest.raises(ValueError, match="'z'"):
        corpus_tokens.encode("abz", ("a", "b"))


def test_sources_restrict_the_search_and_locate_checks_without_tokenizing(tmp_path, monkeypatch):
    _isolated(tmp_path, monkeypatch)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "english.txt").write_text(TEXT)
    found = corpora.locate_corpus("english", shared_dir=shared)
    assert found.source == "shared" and found.bytes == len(TEXT) and found.sha256 == hashlib.sha256(
        TEXT.encode()).hexdigest() and not found.matches_pin
    user = tmp_path / "user"
    user.mkdir()
    with pytest.raises(corpora.CorpusUnavailable, match=re.escape(str(user / "english.txt"))):
        corpora.locate_corpus("english", user_dir=user, sources=["user_dir"], shared_dir=shared)
    assert corpora.load_corpus("english", user_dir=user, sources=("user_dir", "shared"),
                               shared_dir=shared).text == TEXT
    (user / "english.txt").write_bytes(b"")
    with pytest.raises(ValueError, match=r"english\.txt.*empty"):
        corpora.locate_corpus("english", user_dir=user, shared_dir=shared)
    with pytest.raises(ValueError, match="sources"):
        corpora.locate_corpus("english", sources=["ftp"])
