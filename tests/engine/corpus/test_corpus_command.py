"""``make corpora`` (``python -m entropic corpora``): the six corpora fetched and checked against their pins, tried
against mirrors served on 127.0.0.1 (this machine has no network), with the sibling shared folder hidden."""

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import urllib.parse

import pytest

from entropic import paths
from entropic.engine.corpus import corpora

SHARED = paths.ROOT.parent / "shared" / "corpora"


@pytest.fixture
def served(tmp_path):
    """A folder served over HTTP on 127.0.0.1 for the test's length: (folder, its base URL)."""
    folder = tmp_path / "mirror"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *_: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _corpora(tmp_path, *args) -> subprocess.CompletedProcess:
    """The documented command, alone: no sibling corpora, no corpus folder, a cache of its own."""
    env = {k: v for k, v in os.environ.items() if k != "ENTROPIC_CORPORA"} | {
        "ENTROPIC_SHARED_CORPORA": str(tmp_path / "no-shared"), "ENTROPIC_CACHE": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "entropic", "corpora", *args], cwd=paths.ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def _need_shared(name: str = "the six corpora"):
    if not SHARED.is_dir():
        pytest.skip(f"{name} to serve from a local mirror are not beside this clone ({SHARED}); `make corpora` "
                    f"fetches them from their public sources")


def test_the_six_pinned_files_from_a_mirror_are_checked_cached_and_then_found_here(tmp_path, served):
    _need_shared()
    folder, url = served
    for name in corpora.CORPUS_NAMES:
        shutil.copy(SHARED / f"{name}.txt", folder / f"{name}.txt")
    done = _corpora(tmp_path, "--files", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("fetched and checked against its pinned sha256") == 6
    assert sorted(p.name for p in (tmp_path / "corpora").glob("*.txt")) == sorted(f"{n}.txt" for n in
                                                                                  corpora.CORPUS_NAMES)
    again = _corpora(tmp_path, "--files", url)
    assert again.returncode == 0 and again.stdout.count("already here") == 6


def test_a_public_source_read_through_a_mirror_is_checked_and_a_doctored_one_refused(tmp_path, served):
    _need_shared("shakespeare's text")
    folder, url = served
    public = urllib.parse.urlparse(corpora.PINS["shakespeare"].verbatim_url)
    target = folder / public.netloc / public.path.lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_bytes(b"To be, or not to be\n" * 1000)  # not the pinned text
    doctored = _corpora(tmp_path, "--mirror", url)
    assert doctored.returncode == 1 and "corpus 'shakespeare' assembled from its sources has sha256" in doctored.stdout
    assert "at the mirror, http://127.0.0.1" in doctored.stdout  # a missing source names the address it tried
    assert not (tmp_path / "corpora" / "shakespeare.txt").exists()
    shutil.copy(SHARED / "shakespeare.txt", target)
    done = _corpora(tmp_path, "--mirror", url)
    assert done.returncode == 1 and "corpus shakespeare: fetched and checked" in done.stdout  # the other five: absent
    assert "5 corpora could not be fetched" in done.stderr and "the others are in place" in done.stderr
    assert (tmp_path / "corpora" / "shakespeare.txt").read_bytes() == (SHARED / "shakespeare.txt").read_bytes()


def test_a_mirror_that_is_not_an_address_is_refused_before_any_work(tmp_path):
    refused = _corpora(tmp_path, "--mirror", "ftp://example.org")
    assert refused.returncode == 2 and "is not an http:// or https:// address" in refused.stderr
