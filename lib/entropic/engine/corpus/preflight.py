"""The corpora a run will read, checked before its first job: each present on a path of this machine, with the text
its jobs were planned on (the pinned one, or the one found when they were planned), and long enough for the split
its jobs cut it by. A corpus that fails is refused in one line that names the file, the variable or folder it came
from, and ``make corpora``: the run stops before any work, where a job would otherwise fail hours into it.

Used by App. B's section (``sections/real_corpora``) and the capacity sweep (``sections/text_rank``), whose jobs
carry the corpus they read in their parameters (``corpus``, ``sha256``, ``corpus_dir``, ``sources``, ``max_chars``,
``block``, ``val_every``, ``tail_fraction``, ``context``).
"""

from __future__ import annotations

import os

import numpy as np

from .corpora import CorpusUnavailable, locate_corpus, read_text_file, substitute_text
from .provenance import PINS
from .tokens import split_blocks

__all__ = ["check_planned"]

FETCH = "`make corpora` fetches App. B's six pinned corpora"
READ = ("corpus", "sha256", "corpus_dir", "sources", "max_chars", "block", "val_every", "tail_fraction")


def _origin(kind: str, location: str, corpus_dir) -> str:
    """Where a corpus file came from, in the words of the setting that put it there."""
    if kind == "user_dir":
        return f"corpus_dir={corpus_dir}" if corpus_dir else "the folder ENTROPIC_CORPORA names"
    if kind == "shared":
        return "the folder ENTROPIC_SHARED_CORPORA names" if os.environ.get("ENTROPIC_SHARED_CORPORA") else \
            "the shared folder beside the clone"
    return {"download": "the download cache", "substitute": "a local substitute"}.get(kind, kind)


def check_planned(jobs: list[dict], section: str) -> None:
    """Check every corpus the jobs of ``section`` (their parameters) read, once each; raise ``ValueError`` in one line
    for the first that is missing, empty or binary, changed since its jobs were planned, or too short for their
    split. Jobs that read no real corpus (no ``sha256``) are passed over."""
    groups: dict[tuple, list[dict]] = {}
    for params in jobs:
        if "sha256" in params:
            groups.setdefault(tuple(_key(params.get(k)) for k in READ), []).append(params)
    for key, own in groups.items():
        name, sha256, corpus_dir, sources, max_chars, block, every, tail = key
        needed = f"{len(own)} job{'s' if len(own) > 1 else ''} of {section}"
        try:
            found = locate_corpus(name, user_dir=corpus_dir, sources=sources, substitute="substitute" in sources)
        except CorpusUnavailable:
            place = f"{corpus_dir}/{name}.txt" if corpus_dir else f"{name}.txt in the folder ENTROPIC_CORPORA names"
            raise ValueError(f"corpus {name!r}, which {needed} read, is on no path of this machine: {FETCH}, or put "
                             f"{place}") from None
        except ValueError as error:  # found but empty, binary or not a file: the message names the file
            raise ValueError(f"{error} ({needed} read it): {FETCH}") from None
        location, digest = found.location, found.sha256
        origin = _origin(found.source, location, corpus_dir)
        if digest != sha256:
            pinned = " (the pinned text)" if name in PINS and PINS[name].sha256 == sha256 else ""
            raise ValueError(f"corpus file {location}, from {origin}, is not the text {needed} were planned on"
                             f"{pinned}: sha256 {digest[:12]}…, planned {sha256[:12]}…; {FETCH}")
        text = substitute_text(name)[0] if found.source == "substitute" else read_text_file(location)
        used = len(text) if max_chars is None else min(len(text), max_chars)
        context = max(int(p.get("context", 1)) for p in own)
        try:
            parts = split_blocks(np.arange(used), block, every, tail)
            short = min(len(parts.train), len(parts.interleaved), len(parts.tail)) <= context
        except ValueError:
            short = True
        if short:
            raise ValueError(f"corpus file {location}, from {origin}, is too short for the split {needed} cut: "
                             f"{used} characters in blocks of {block} (every {every}-th held out, the last "
                             f"{tail:g} as a tail) leave a part of at most {context} characters, the window; "
                             f"{FETCH}")


def _key(value):
    return tuple(value) if isinstance(value, list) else value
