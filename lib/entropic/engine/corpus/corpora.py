"""The six char-level corpora of Appendix B (real-corpus diagnostics), with provenance.

Sources, tried in this order for each corpus ``name``:

1. ``user_dir``: a directory the caller names (argument, or the environment variable
   ``ENTROPIC_CORPORA``) holding ``<name>.txt``;
2. ``shared``: the project's shared folder ``<project root>/../shared/corpora/``, real texts pinned by
   sha256 in its ``SOURCES.md`` (the pins are copied into :data:`PINS`);
3. ``download``: a copy cached earlier by :func:`download_corpus`, or, only when ``download=True``, a
   fresh download: from ``base_url`` (a mirror of the shared folder: ``<base_url>/<name>.txt``) or from
   the corpus's public origin where that origin is the pinned file itself (shakespeare). The sha256
   must match the pin, else ``ValueError`` naming the file;
4. ``substitute``: machine-local real text, labelled as such (english: the running Python's language-reference
   help topics, ``pydoc_data``; python: its standard library; linux: kernel UAPI headers ``/usr/include/linux/*.h``;
   json: Debian ``iso-codes`` JSON; music: music21's ABC corpus when music21 is installed). shakespeare has none.

``ENTROPIC_SHARED_CORPORA`` (or ``shared_dir=``) replaces the shared folder; ``ENTROPIC_CACHE`` the
cache root. ``sources=`` restricts the search to some of the four kinds above (:data:`SOURCES`), e.g.
``("user_dir",)`` to read only the caller's directory. :func:`locate_corpus` reads and checks the file
and returns its :class:`Provenance` without tokenizing it (cheap: for validating before any work).
Nothing is ever synthesized. A corpus found nowhere raises :class:`CorpusUnavailable` (a
``ValueError``) that says where the file was looked for and where to put it.

This module finds, reads and checks the files. The pins and the provenance record live in
``corpus_provenance``, the :class:`Corpus` record and its token splits in ``corpus_tokens``; both are
re-exported here, so that App. B reads its corpora through one module.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sysconfig
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

from ... import paths
from .provenance import PINS, Pin, Provenance
from .tokens import Corpus, Splits, build_vocab, decode, encode, split, split_blocks

__all__ = [
    "CORPUS_NAMES", "PINS", "SOURCES", "Corpus", "CorpusUnavailable", "Pin", "Provenance", "Splits", "build_vocab",
    "decode", "default_cache_dir", "download_corpus", "encode", "load_corpora", "load_corpus", "load_planned",
    "locate_corpus", "read_text_file", "shared_corpora_dir", "split", "split_blocks", "substitute_text",
]

CORPUS_NAMES = ("english", "shakespeare", "python", "linux", "json", "music")
SOURCES = ("user_dir", "shared", "download", "substitute")  # the search order of the module docstring
SUBSTITUTE_CHARS = 1_000_000  # a substitute is cut to about the size of the pinned texts


class CorpusUnavailable(ValueError):
    """No source holds the corpus; the message lists every place tried and where to put the file."""


def _check_text(data: bytes, where: str) -> str:
    if not data:
        raise ValueError(f"corpus file {where} is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"corpus file {where} is not UTF-8 text (binary?): {err}") from None
    if "\x00" in text:
        raise ValueError(f"corpus file {where} holds NUL bytes: binary, not text")
    if not text.strip():
        raise ValueError(f"corpus file {where} holds only whitespace ({len(data)} bytes): no text to model")
    return text


def read_text_file(path: str | os.PathLike) -> str:
    """Read a UTF-8 text file; a missing, empty or binary file raises ValueError naming it."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"corpus file {path} does not exist")
    return _check_text(path.read_bytes(), str(path))


def shared_corpora_dir() -> Path:
    """``<project root>/../shared/corpora``, the project root being the checkout (``paths.CHECKOUT``)."""
    return paths.CHECKOUT.parent / "shared" / "corpora"


def default_cache_dir() -> Path:
    """``$ENTROPIC_CACHE/corpora``, else ``$XDG_CACHE_HOME/entropic/corpora``, else ``~/.cache/entropic/corpora``."""
    if os.environ.get("ENTROPIC_CACHE"):
        return Path(os.environ["ENTROPIC_CACHE"]) / "corpora"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "entropic" / "corpora"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_name(name: str) -> Pin:
    if name not in PINS:
        raise ValueError(f"unknown corpus {name!r}; expected one of {CORPUS_NAMES}")
    return PINS[name]


def download_corpus(name: str, cache_dir: str | os.PathLike | None = None, base_url: str | None = None,
                    opener: Callable = urllib.request.urlopen, timeout: float = 60.0) -> Path:
    """Fetch a pinned corpus file, check its sha256 and cache it; returns the cached path.

    Parameters
    ----------
    name : corpus name.
    cache_dir : where to cache (default :func:`default_cache_dir`).
    base_url : a mirror of the shared folder serving ``<base_url>/<name>.txt``; without one, the
        corpus's public origin is used where it serves the pinned bytes verbatim (shakespeare only;
        the other five pinned files were assembled from many source files, see ``SOURCES.md``).
    opener : ``urlopen``-like callable (injectable for tests).

    Raises
    ------
    CorpusUnavailable : no URL serves this corpus verbatim.
    ValueError : the fetched bytes are empty, binary, or do not match the pinned sha256.
    """
    pin = _check_name(name)
    url = f"{base_url.rstrip('/')}/{name}.txt" if base_url else pin.verbatim_url
    if url is None:
        raise CorpusUnavailable(f"corpus {name!r}: no public URL serves the pinned file verbatim (it was "
                                f"assembled from {pin.origin}); pass base_url= a mirror of shared/corpora")
    with opener(url, timeout=timeout) as response:
        data = response.read()
    target = Path(cache_dir or default_cache_dir()) / f"{name}.txt"
    text = _check_text(data, f"{target.name} from {url}")
    digest = _sha256(text)
    if digest != pin.sha256:
        raise ValueError(f"corpus file {name}.txt from {url} has sha256 {digest}, expected the pinned {pin.sha256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)  # atomic: a half-written file never looks cached
    return target


def _substitute_files(name: str) -> tuple[list[Path], Path | None, str]:
    if name == "python":
        root = Path(sysconfig.get_paths()["stdlib"])
        return sorted(root.glob("*.py")), root, "the running Python's standard library"
    if name == "linux":
        root = Path("/usr/include/linux")
        return sorted(root.glob("*.h")), root, "kernel UAPI headers (Debian linux-libc-dev)"
    if name == "json":
        root = Path("/usr/share/iso-codes/json")
        return sorted(root.glob("*.json")), root, "Debian iso-codes JSON"
    if name == "music":
        spec = importlib.util.find_spec("music21")
        if spec is None or not spec.submodule_search_locations:
            return [], None, "music21 ABC corpus (music21 not installed)"
        root = Path(next(iter(spec.submodule_search_locations))) / "corpus"
        return sorted(root.rglob("*.abc")), root, "music21 ABC corpus"
    return [], None, "none: no machine-local text stands in for this corpus"


def substitute_text(name: str, max_chars: int = SUBSTITUTE_CHARS) -> tuple[str, str, str] | None:
    """Machine-local real text standing in for corpus ``name``, or None where there is none.

    Whole files of a sorted listing are joined by one newline until the total reaches ``max_chars``
    (files that are not UTF-8 are skipped). Returns ``(text, location, note)``.
    """
    _check_name(name)
    if name == "english":  # prose, not files: the language reference's help topics, whole, in the order of their names
        from pydoc_data import topics

        texts, root = [topics.topics[key] for key in sorted(topics.topics)], Path(topics.__file__)
        label, unit = "the Python language reference's help topics (pydoc_data)", "topics"
    else:
        files, root, label = _substitute_files(name)
        texts, unit = (_readable(path) for path in files), "files"
    parts, total = [], 0
    for part in texts:
        if part is None:
            continue
        parts.append(part)
        total += len(part) + 1
        if total >= max_chars:
            break
    if not parts:
        return None
    return "\n".join(parts), str(root), f"substitute for {name}: {label}, {len(parts)} {unit}"


def _readable(path: Path) -> str | None:
    """A substitute's file as text, None where it is not UTF-8 text."""
    try:
        return _check_text(path.read_bytes(), str(path))
    except (ValueError, OSError):
        return None


def _check_sources(sources) -> tuple[str, ...]:
    sources = tuple(SOURCES if sources is None else sources)
    unknown = [k for k in sources if k not in SOURCES]
    if unknown or not sources:
        raise ValueError(f"sources must be a non-empty subset of {SOURCES}, got {sources}")
    return sources


def _candidates(name: str, user_dir, cache_dir, shared_dir=None, sources=SOURCES) -> list[tuple[str, Path]]:
    out = []
    user_dir = user_dir if user_dir is not None else os.environ.get("ENTROPIC_CORPORA") or None
    if user_dir is not None and "user_dir" in sources:
        if not Path(user_dir).is_dir():
            raise ValueError(f"corpus directory {user_dir} does not exist")
        out.append(("user_dir", Path(user_dir) / f"{name}.txt"))
    if "shared" in sources:
        shared = shared_dir or os.environ.get("ENTROPIC_SHARED_CORPORA") or shared_corpora_dir()
        out.append(("shared", Path(shared) / f"{name}.txt"))
    if "download" in sources:
        out.append(("download", Path(cache_dir or default_cache_dir()) / f"{name}.txt"))
    return out


def _find(name: str, user_dir, cache_dir, shared_dir, sources, download, base_url, opener,
          substitute) -> tuple[str, str, str, str]:
    """(kind, location, whole text, note) from the first source that holds ``name``."""
    pin = _check_name(name)
    sources = _check_sources(sources)
    candidates = _candidates(name, user_dir, cache_dir, shared_dir, sources)
    for kind, path in candidates:
        if path.is_file():
            return kind, str(path), read_text_file(path), ""
        if path.exists():  # a folder where the file should be: said, never passed over for the next source
            raise ValueError(f"corpus {name!r}: {path} exists but is not a file; remove it or put the text file there")
    if download and "download" in sources:
        path = download_corpus(name, cache_dir, base_url, opener)
        return "download", str(path), read_text_file(path), "downloaded"
    if substitute and "substitute" in sources and (sub := substitute_text(name)) is not None:
        return "substitute", sub[1], sub[0], sub[2]
    tried = ", ".join(str(p) for _, p in candidates) or "nowhere"
    target = candidates[0][1] if candidates else shared_corpora_dir() / f"{name}.txt"
    raise CorpusUnavailable(
        f"corpus {name!r} not found (looked at {tried}; sources={list(sources)}; download={download}; no "
        f"offline substitute{'' if substitute and 'substitute' in sources else ' allowed'}). Put the file from "
        f"{pin.origin} (sha256 {pin.sha256}) at {target} or in a directory named by ENTROPIC_CORPORA.")


def _provenance(name: str, kind: str, location: str, text: str, note: str) -> Provenance:
    pin, digest = PINS[name], _sha256(text)
    return Provenance(kind, location, len(text.encode("utf-8")), digest, pin.sha256,
                      digest == pin.sha256 and kind != "substitute", note)


def locate_corpus(name: str, *, user_dir: str | os.PathLike | None = None, sources: Sequence[str] | None = None,
                  substitute: bool = True, cache_dir: str | os.PathLike | None = None,
                  shared_dir: str | os.PathLike | None = None) -> Provenance:
    """Where :func:`load_corpus` would read corpus ``name`` from (no download), with the file checked.

    Reads the whole file, checks it is non-empty UTF-8 text and hashes it, but builds no tokens.

    Raises
    ------
    CorpusUnavailable : no allowed source holds the corpus (the message says where to put it).
    ValueError : the file found is empty or binary (naming it), or an argument is invalid.
    """
    kind, location, text, note = _find(name, user_dir, cache_dir, shared_dir, sources, False, None,
                                       urllib.request.urlopen, substitute)
    return _provenance(name, kind, location, text, note)


def load_corpus(name: str, *, user_dir: str | os.PathLike | None = None, max_chars: int | None = None,
                download: bool = False, base_url: str | None = None, cache_dir: str | os.PathLike | None = None,
                substitute: bool = True, require_pinned: bool = False, opener: Callable = urllib.request.urlopen,
                shared_dir: str | os.PathLike | None = None, sources: Sequence[str] | None = None) -> Corpus:
    """Load one corpus from the first source that holds it (see the module docstring).

    Parameters
    ----------
    name : one of :data:`CORPUS_NAMES`.
    user_dir : directory with ``<name>.txt`` (default: ``$ENTROPIC_CORPORA``, if set).
    max_chars : use only this many leading characters (a deterministic prefix), for quick runs.
    download : allow a network download when no local source holds the file (never implicit).
    base_url, cache_dir, opener : passed to :func:`download_corpus`.
    substitute : allow a machine-local labelled substitute as the last resort.
    require_pinned : raise ValueError unless the text read matches the pinned sha256.
    shared_dir : stands in for the shared folder (default :func:`shared_corpora_dir`).
    sources : the kinds of source searched, a subset of :data:`SOURCES` (default: all four).

    Returns
    -------
    Corpus, with ``vocab``/``tokens`` built from the characters used.
    """
    _check_name(name)
    if max_chars is not None and max_chars < 2:
        raise ValueError(f"max_chars must be at least 2, got {max_chars}")
    kind, location, text, note = _find(name, user_dir, cache_dir, shared_dir, sources, download, base_url,
                                       opener, substitute)
    provenance = _provenance(name, kind, location, text, note)
    if require_pinned and not provenance.matches_pin:
        raise ValueError(f"corpus file {location} has sha256 {provenance.sha256}, not the pinned "
                         f"{provenance.pinned_sha256}")
    used = text if max_chars is None else text[:max_chars]
    vocab = build_vocab(used)
    return Corpus(name, used, vocab, encode(used, vocab), provenance)


def load_planned(name: str, sha256: str, *, user_dir: str | os.PathLike | None = None, max_chars: int | None = None,
                 sources: Sequence[str] | None = None) -> Corpus:
    """The corpus a job was planned on: :func:`load_corpus` from ``sources`` (a labelled substitute only where they
    name ``"substitute"``), refused unless its text still has the ``sha256`` the plan recorded.

    Raises
    ------
    ValueError : the file changed since the jobs were planned (both digests named), or as :func:`load_corpus`.
    """
    corpus = load_corpus(name, user_dir=user_dir, max_chars=max_chars, sources=sources,
                         substitute="substitute" in (sources or ()))
    if corpus.provenance.sha256 != sha256:
        raise ValueError(f"corpus {name!r} changed since the jobs were planned (sha256 "
                         f"{corpus.provenance.sha256[:12]}…, planned {sha256[:12]}…)")
    return corpus


def load_corpora(names: Sequence[str] = CORPUS_NAMES, **kwargs) -> tuple[dict[str, Corpus], list[tuple[str, str]]]:
    """Load several corpora; those found nowhere are reported, not raised.

    Returns
    -------
    loaded : name → Corpus, in the order of ``names``.
    missing : (name, human-readable reason) for each corpus no source holds.
    """
    loaded, missing = {}, []
    for name in names:
        try:
            loaded[name] = load_corpus(name, **kwargs)
        except CorpusUnavailable as err:
            missing.append((name, str(err)))
    return loaded, missing
