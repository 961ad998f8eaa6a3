"""Rebuild App. B's six corpora from the public sources that ``shared/corpora/SOURCES.md`` names.

Each corpus has a recipe: the files it was assembled from (at a fixed commit, package version or Debian
package version) and the rule that assembled them, as SOURCES.md states it. :func:`fetch_corpus`
downloads the sources, assembles the text, checks its sha256 against the pin (``corpora.PINS``) and
writes it to the corpus cache (:func:`corpora.default_cache_dir`), where :func:`corpora.load_corpus`
finds it (source ``download``). Without a network, or when every source of a corpus is gone, it raises
:class:`corpora.CorpusUnavailable` saying which addresses failed and where to put the file instead.

Used by ``python -m entropic corpora`` (``make corpora``) and by App. B's page when it is launched outside the
project (Binder, Colab): both call :func:`fetch_missing`.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from . import corpora

RAW = "https://raw.githubusercontent.com"
CODELOAD = "https://codeload.github.com"
DEBIAN = "https://deb.debian.org"
SNAPSHOT = "https://snapshot.debian.org/mr/binary"  # Debian's permanent archive, for packages gone from the pool
GUTENBERG = ("GITenberg/Pride-and-Prejudice_1342", "81db45c9c48c592f0b77f01fc59e677ad0a5634e")
JSON_REPO = ("dariusk/corpora", "cf30ca27ab176b63623af1ddcfa2447ac07305ba")
NOTTINGHAM = ("jukedeck/nottingham-dataset", "0992bb6cd864f6d4b90d6663e08c0ef53ffaa08f")
MUSIC21 = ("https://files.pythonhosted.org/packages/15/12/dee0eef7c82a63e83eea94bdcde97c66ab55213d89cee1347d2d1"
           "1601faa/music21-10.5.1-py3-none-any.whl",
           "dc3309498c4c95cebdf8d4f20c868deb6b63bce1d929cad4f51a7ccc982987b1")
# Debian packages: (package, version, pool paths tried first). Bookworm's 3.11.2-6+deb12u8 holds the same 23
# modules as the pinned +deb12u6 (the assembled text matches the pin); +deb12u9 changed csv.py.
PYTHON_DEBS = [(f"libpython3.11-{part}", "3.11.2-6+deb12u6",
                (f"/debian/pool/main/p/python3.11/libpython3.11-{part}_3.11.2-6+deb12u8_amd64.deb",))
               for part in ("minimal", "stdlib")]
LINUX_DEB = ("linux-source-6.1", "6.1.192-3", ("/debian-security/pool/updates/main/l/linux/"
                                               "linux-source-6.1_6.1.192-3_all.deb",))
PYTHON_MODULES = ("abc argparse ast bisect calendar configparser contextlib copy csv dataclasses datetime difflib "
                  "enum fractions functools gettext glob gzip heapq inspect pathlib pickle random").split()
NOTTINGHAM_FILES = ("ashover hpps jigs morris playford reelsa-c reelsd-g reelsh-l reelsm-q reelsr-t reelsu-z slip "
                    "waltzes xmas").split()
LIMIT = 1_000_000  # "taken until the total reached 1,000,000 bytes"

Opener = Callable[..., object]


def _get(url: str, opener: Opener, timeout: float) -> bytes:
    with opener(url, timeout=timeout) as response:
        return response.read()


def _first(urls: Sequence[str], opener: Opener, timeout: float, name: str) -> bytes:
    """The bytes of the first address that answers; every failure is named in the error."""
    failures = []
    for url in urls:
        try:
            return _get(url, opener, timeout)
        except (urllib.error.URLError, OSError, ValueError) as error:  # no network, 404, timeout
            failures.append(f"{url}: {getattr(error, 'reason', error)}")
    pin = corpora.PINS[name]
    raise corpora.CorpusUnavailable(
        f"corpus {name!r}: none of its sources could be downloaded (is there a network connection?) — "
        + "; ".join(failures) + f". Without a network, put the pinned file ({pin.origin}, sha256 {pin.sha256}) "
        f"at {corpora.default_cache_dir() / (name + '.txt')} or in a directory named by ENTROPIC_CORPORA.")


def _deb(package: str, version: str, pool: Sequence[str], opener: Opener, timeout: float, name: str) -> bytes:
    """A Debian package's data archive (``data.tar.*`` of the .deb): from the pool, else from the snapshot
    archive (which keeps every version ever published)."""
    urls = [DEBIAN + path for path in pool]
    try:
        deb = _first(urls, opener, timeout, name)
    except corpora.CorpusUnavailable as first_error:
        try:
            files = json.loads(_get(f"{SNAPSHOT}/{package}/{version}/binfiles", opener, timeout))["result"]
            deb = _first([f"https://snapshot.debian.org/file/{f['hash']}" for f in files], opener, timeout, name)
        except (urllib.error.URLError, OSError, ValueError, KeyError):
            raise first_error from None
    return ar_member(deb, "data.tar")


def ar_member(archive: bytes, prefix: str) -> bytes:
    """The first member of an ``ar`` archive (a .deb) whose name starts with ``prefix``."""
    if not archive.startswith(b"!<arch>\n"):
        raise ValueError("not a Debian package (no ar header)")
    at = 8
    while at + 60 <= len(archive):
        header = archive[at:at + 60]
        member, size = header[:16].decode().strip().rstrip("/"), int(header[48:58])
        if member.startswith(prefix):
            return archive[at + 60:at + 60 + size]
        at += 60 + size + size % 2
    raise ValueError(f"the package has no member {prefix}*")


def _tar_files(data: bytes, keep: Callable[[str], bool]) -> dict[str, bytes]:
    """``path -> bytes`` of the regular files of a (compressed) tar archive whose path ``keep`` accepts."""
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return {m.name: archive.extractfile(m).read() for m in archive if m.isfile() and keep(m.name)}


def _until_limit(parts: list[bytes]) -> list[bytes]:
    """The leading parts, whole, up to and including the one at which their total reaches ``LIMIT``."""
    taken, total, limit = [], 0, LIMIT
    for part in parts:
        taken.append(part)
        total += len(part)
        if total >= limit:
            break
    return taken


def english(opener: Opener, timeout: float) -> bytes:
    """Gutenberg #1342 at the pinned commit, its Project Gutenberg header, credit and licence removed."""
    repo, commit = GUTENBERG
    text = _first([f"{RAW}/{repo}/{commit}/1342.txt"], opener, timeout, "english").decode("ascii")
    text = text.replace("\r\n", "\n")
    text = text.split("*** START OF THIS PROJECT GUTENBERG EBOOK", 1)[1].split("\n", 1)[1]
    text = re.sub(r"^\s*Produced by [^\n]*\n", "", text)
    text = text.split("End of the Project Gutenberg EBook", 1)[0]
    return (text.strip("\n") + "\n").encode()


def shakespeare(opener: Opener, timeout: float) -> bytes:
    """Tiny Shakespeare, verbatim."""
    return _first([corpora.PINS["shakespeare"].verbatim_url], opener, timeout, "shakespeare")


def python(opener: Opener, timeout: float) -> bytes:
    """23 whole modules of Debian's CPython 3.11.2 standard library, joined by one newline."""
    files = {}
    for package, version, pool in PYTHON_DEBS:
        files |= _tar_files(_deb(package, version, pool, opener, timeout, "python"),
                            lambda p: re.fullmatch(r"\./usr/lib/python3\.11/\w+\.py", p) is not None)
    return b"\n".join(files[f"./usr/lib/python3.11/{module}.py"] for module in PYTHON_MODULES)


def linux(opener: Opener, timeout: float) -> bytes:
    """Whole top-level ``kernel/*.c|h`` files of Debian's linux-source-6.1, sorted by name, up to 1 MB."""
    data = _deb(*LINUX_DEB, opener, timeout, "linux")
    inner = _tar_files(data, lambda p: p.endswith("/linux-source-6.1.tar.xz"))
    if not inner:
        raise ValueError("linux-source-6.1 holds no linux-source-6.1.tar.xz")
    with tempfile.TemporaryFile() as spool:  # the kernel tree is large: stream it, keep only kernel/
        spool.write(next(iter(inner.values())))
        spool.seek(0)
        kept = {}
        with tarfile.open(fileobj=spool, mode="r|xz") as archive:
            for member in archive:
                if member.isfile() and re.fullmatch(r"linux-source-6\.1/kernel/[^/]+\.[ch]", member.name):
                    kept[member.name.rsplit("/", 1)[1]] = archive.extractfile(member).read()
    return b"\n".join(_until_limit([kept[n] for n in sorted(kept)]))


def _codeload(repo_commit: tuple[str, str], opener: Opener, timeout: float, name: str,
              keep: Callable[[str], bool]) -> dict[str, bytes]:
    """``path -> bytes`` (paths inside the repository) of a GitHub repository at a commit."""
    repo, commit = repo_commit
    data = _first([f"{CODELOAD}/{repo}/tar.gz/{commit}"], opener, timeout, name)
    return {p.split("/", 1)[1]: b for p, b in _tar_files(data, lambda p: keep(p.split("/", 1)[-1])).items()}


def _is_small_ascii_json(data: bytes) -> bool:
    if len(data) > 60_000 or not data.isascii():
        return False
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def json_corpus(opener: Opener, timeout: float) -> bytes:
    """Whole small, ASCII, valid JSON files of dariusk/corpora ``data/``, sorted by path, up to 1 MB,
    separated by one blank line."""
    files = _codeload(JSON_REPO, opener, timeout, "json", lambda p: p.startswith("data/") and p.endswith(".json"))
    chosen = [files[p] if files[p].endswith(b"\n") else files[p] + b"\n" for p in sorted(files)
              if _is_small_ascii_json(files[p])]
    return b"\n".join(_until_limit(chosen))


def music(opener: Opener, timeout: float) -> bytes:
    """The 14 Nottingham ABC files, then whole O'Neill tunes of music21's corpus (a new ``X:`` number
    each), until the total reaches 1 MB; one blank line between files and tunes."""
    files = _codeload(NOTTINGHAM, opener, timeout, "music", lambda p: p.startswith("ABC_original/"))
    parts = [files[f"ABC_original/{n}.abc"].decode().strip("\n") for n in NOTTINGHAM_FILES]
    wheel = _first([MUSIC21[0]], opener, timeout, "music")
    if hashlib.sha256(wheel).hexdigest() != MUSIC21[1]:
        raise ValueError(f"the music21 wheel from {MUSIC21[0]} does not match its sha256 {MUSIC21[1]}")
    seen, total = set(), sum(len(p.encode()) + 2 for p in parts)
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        names = sorted(n for n in archive.namelist() if re.fullmatch(r"music21/corpus/oneills1850/[^/]+\.abc", n))
        for name in names:
            for tune in re.split(r"\n(?=X:)", archive.read(name).decode()):
                number = re.match(r"X:\s*(\d+)", tune)
                if number is None or number[1] in seen or total >= LIMIT:
                    continue
                seen.add(number[1])
                parts.append(tune.strip("\n"))
                total += len(parts[-1].encode()) + 2
    return ("\n\n".join(parts) + "\n").encode()


RECIPES: dict[str, Callable[[Opener, float], bytes]] = {
    "english": english, "shakespeare": shakespeare, "python": python, "linux": linux, "json": json_corpus,
    "music": music}


def fetch_corpus(name: str, cache_dir: str | Path | None = None, opener: Opener = urllib.request.urlopen,
                 timeout: float = 120.0) -> Path:
    """Download corpus ``name``'s sources, assemble it, check it against its pin and cache it.

    Returns
    -------
    The cached file, ``<cache_dir>/<name>.txt`` (default :func:`corpora.default_cache_dir`).

    Raises
    ------
    corpora.CorpusUnavailable : no source could be downloaded (the message names each address tried).
    ValueError : an unknown name, or the assembled text does not match the pinned sha256.
    """
    if name not in RECIPES:
        raise ValueError(f"unknown corpus {name!r}; expected one of {corpora.CORPUS_NAMES}")
    data = RECIPES[name](opener, timeout)
    pin, digest = corpora.PINS[name], hashlib.sha256(data).hexdigest()
    if digest != pin.sha256:
        raise ValueError(f"corpus {name!r} assembled from its sources has sha256 {digest}, not the pinned "
                         f"{pin.sha256}: a source changed since it was pinned ({pin.origin})")
    target = Path(cache_dir or corpora.default_cache_dir()) / f"{name}.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def mirrored(mirror: str, opener: Opener = urllib.request.urlopen) -> Opener:
    """An opener that reads every public address ``scheme://HOST/PATH`` at ``<mirror>/HOST/PATH`` instead: a mirror
    of the sources (a folder laid out by host, served over HTTP), for a machine without the network."""
    if not re.match(r"https?://", mirror):
        raise ValueError(f"mirror {mirror!r} is not an http:// or https:// address")
    base = mirror.rstrip("/")

    def open_(url: str, timeout: float):
        there = re.sub(r"^https?://", base + "/", url)
        try:
            return opener(there, timeout=timeout)
        except (urllib.error.URLError, OSError) as error:  # name the address tried, not the public one
            raise urllib.error.URLError(f"{getattr(error, 'reason', error)} (at the mirror, {there})") from error

    return open_


def fetch_missing(names: Sequence[str] = corpora.CORPUS_NAMES, log: Callable[[str], None] = print,
                  **kwargs) -> dict[str, Path]:
    """Fetch (:func:`fetch_corpus`) each corpus no local source holds yet; ``name -> file`` of them all."""
    found = {}
    for name in names:
        try:
            found[name] = Path(corpora.locate_corpus(name, substitute=False).location)
        except corpora.CorpusUnavailable:
            log(f"corpus {name}: downloading its sources and checking them against the pinned sha256")
            found[name] = fetch_corpus(name, **kwargs)
    return found


def fetch_each(names: Sequence[str] = corpora.CORPUS_NAMES, mirror: str | None = None, files: str | None = None,
               log: Callable[[str], None] = print, timeout: float = 120.0) -> dict[str, str]:
    """Every corpus of ``names`` that no local source holds, fetched and checked against its pin, one at a time
    (each cached as soon as it is checked, so that a failure loses none fetched before it): from its public sources
    (read through ``mirror``, :func:`mirrored`, when given) or, with ``files``, from a mirror of the pinned files
    themselves (``<files>/<name>.txt``). Returns ``name -> what failed`` for the corpora that could not be had."""
    if files is not None and not re.match(r"https?://", files):
        raise ValueError(f"files {files!r} is not an http:// or https:// address")
    opener = mirrored(mirror) if mirror else urllib.request.urlopen
    failed = {}
    for name in names:
        try:
            here = corpora.locate_corpus(name, substitute=False)
            log(f"corpus {name}: already here, {here.location} (sha256 checked against its pin)")
            continue
        except corpora.CorpusUnavailable:
            pass
        try:
            if files is not None:
                path = corpora.download_corpus(name, base_url=files, timeout=timeout)
            else:
                path = fetch_corpus(name, opener=opener, timeout=timeout)
            log(f"corpus {name}: fetched and checked against its pinned sha256, now at {path}")
        except (corpora.CorpusUnavailable, ValueError, urllib.error.URLError, OSError) as error:
            failed[name] = str(error)
            log(f"corpus {name}: not fetched: {error}")
    return failed
