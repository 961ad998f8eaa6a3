"""Where App. B's corpora come from: the pinned file of each corpus (its sha256, size and origin, as
``shared/corpora/SOURCES.md`` records them) and the :class:`Provenance` of a text read, which says
whether it matches its pin.

``corpora`` checks every text it reads against :data:`PINS` and records its :class:`Provenance`;
``corpus_sources`` rebuilds the pinned files from their origins.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PINS", "Pin", "Provenance"]


@dataclass(frozen=True)
class Pin:
    """One row of ``shared/corpora/SOURCES.md``: the pinned file and where it came from."""

    sha256: str
    bytes: int
    origin: str
    verbatim_url: str | None = None  # a public URL serving exactly the pinned bytes, where one exists


PINS: dict[str, Pin] = {
    "english": Pin("dfc684d4f857fa938268f9ab9c5567b64bd0691251eca959644adeabe6287a4d", 684768,
                   "GitHub GITenberg/Pride-and-Prejudice_1342@81db45c9 1342.txt, Gutenberg boilerplate removed"),
    "shakespeare": Pin("86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed", 1115394,
                       "GitHub karpathy/char-rnn@6f9487a6 data/tinyshakespeare/input.txt (verbatim)",
                       "https://raw.githubusercontent.com/karpathy/char-rnn/6f9487a6fe5b420b7ca9afb0d7c078e37c1d1b4e"
                       "/data/tinyshakespeare/input.txt"),
    "python": Pin("cbf913c1549b7e7f6ba86f19292b719b2b40c53b3195cc7f6bcad6cd572c3953", 1027601,
                  "Debian 12 libpython3.11-stdlib 3.11.2-6+deb12u6, 23 whole modules"),
    "linux": Pin("bfad17f77cfb8ab8a295b55cc0091ba25212df3fd25ad5146a0a4261bb043649", 1004488,
                 "Debian 12 linux-source-6.1 6.1.192-3, kernel/*.c|h, 54 whole files"),
    "json": Pin("cbde92da0c78a5706480ba6ab589d9554ecbe30ac06289c3436c205e4d227320", 1000767,
                "GitHub dariusk/corpora@cf30ca27 data/**/*.json, 162 whole ASCII files"),
    "music": Pin("9951a8f9849786b561b23bacec4a58d5d943a097912267a04dda02b8fbb9d57d", 1000416,
                 "GitHub jukedeck/nottingham-dataset@0992bb6c ABC_original + music21 10.5.1 oneills1850"),
}


@dataclass(frozen=True)
class Provenance:
    """Where a corpus's text came from.

    Attributes
    ----------
    source : ``"user_dir"``, ``"shared"``, ``"download"`` or ``"substitute"``.
    location : the file, directory or URL read.
    bytes : size of the whole text read (before ``max_chars``).
    sha256 : sha256 of those bytes (UTF-8 encoded).
    pinned_sha256 : the pin of ``SOURCES.md`` for this corpus.
    matches_pin : whether ``sha256 == pinned_sha256`` (always False for a substitute).
    note : a human-readable label (for a substitute: what it stands in for).
    """

    source: str
    location: str
    bytes: int
    sha256: str
    pinned_sha256: str
    matches_pin: bool
    note: str = ""

