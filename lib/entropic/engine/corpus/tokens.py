"""A char-level corpus as tokens: the :class:`Corpus` record, its vocabulary, encoding and decoding, and
the deterministic train/validation splits of a token stream.

:func:`corpora.load_corpus` finds and reads the text (``corpora``) and builds the :class:`Corpus` here;
the training jobs cut its tokens with :func:`split_blocks`. ``corpora`` re-exports these names.

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .provenance import Provenance

__all__ = ["Corpus", "Splits", "build_vocab", "decode", "encode", "split", "split_blocks"]


@dataclass
class Corpus:
    """One char-level corpus.

    Attributes
    ----------
    name : one of ``corpora.CORPUS_NAMES``.
    text : the characters used (a prefix of the source text when ``max_chars`` was given).
    vocab : the sorted distinct characters of ``text``; token id i is ``vocab[i]``.
    tokens : (T,) int64 token ids of ``text``.
    provenance : where the text came from.
    """

    name: str
    text: str
    vocab: tuple[str, ...]
    tokens: np.ndarray = field(repr=False)
    provenance: Provenance

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def split(self, val_fraction: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
        """(train, validation) token arrays; see :func:`split`."""
        return split(self.tokens, val_fraction)


def build_vocab(text: str) -> tuple[str, ...]:
    """Sorted distinct characters of ``text`` (the per-corpus char vocabulary)."""
    if not text:
        raise ValueError("cannot build a vocabulary from an empty text")
    return tuple(sorted(set(text)))


def encode(text: str, vocab: Sequence[str]) -> np.ndarray:
    """Token ids (T,) int64 of ``text`` under ``vocab``; a character outside it raises ValueError."""
    index = {c: i for i, c in enumerate(vocab)}
    try:
        return np.fromiter((index[c] for c in text), dtype=np.int64, count=len(text))
    except KeyError as err:
        raise ValueError(f"character {err.args[0]!r} is not in the vocabulary") from None


def decode(tokens, vocab: Sequence[str]) -> str:
    """Inverse of :func:`encode`."""
    return "".join(vocab[int(i)] for i in np.asarray(tokens).ravel())


def split(tokens, val_fraction: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic split: the first ``1 - val_fraction`` of the stream trains, the rest validates.

    A contiguous tail (not a random subset) keeps validation windows unseen by any training window.

    Parameters
    ----------
    tokens : (T,) token ids.
    val_fraction : in (0, 1); both parts must be non-empty.
    """
    tokens = np.asarray(tokens)
    if tokens.ndim != 1:
        raise ValueError(f"tokens must be one-dimensional, got shape {tokens.shape}")
    if not 0 < val_fraction < 1:
        raise ValueError(f"val_fraction must lie in (0, 1), got {val_fraction}")
    cut = round(len(tokens) * (1 - val_fraction))
    if cut <= 0 or cut >= len(tokens):
        raise ValueError(f"a split of {len(tokens)} tokens at val_fraction={val_fraction} leaves a part empty")
    return tokens[:cut], tokens[cut:]


@dataclass(frozen=True)
class Splits:
    """A corpus cut into a training stream and two held-out parts (see :func:`split_blocks`)."""

    train: np.ndarray
    interleaved: np.ndarray
    tail: np.ndarray


def split_blocks(tokens, block: int = 2048, every: int = 20, tail_fraction: float = 0.05) -> Splits:
    """Hold out two validation parts: the corpus's last ``tail_fraction`` (the tail, as a plain split would),
    and, of the rest, every ``every``-th block of ``block`` tokens (interleaved, so validation samples the
    whole corpus, not only how it ends: a JSON or music file's tail can differ from its body). The
    remaining blocks, concatenated in order, train; a training window can span the seam of two blocks
    (1 window in block/context).

    Parameters
    ----------
    tokens : (T,) token ids; block, every : block size and period (every ≥ 2); tail_fraction : in (0, 1).
    """
    tokens = np.asarray(tokens)
    if tokens.ndim != 1:
        raise ValueError(f"tokens must be one-dimensional, got shape {tokens.shape}")
    if block < 1 or every < 2 or not 0 < tail_fraction < 1:
        raise ValueError(f"need block ≥ 1, every ≥ 2 and tail_fraction in (0, 1), got {block}, {every}, "
                         f"{tail_fraction}")
    body, tail = split(tokens, tail_fraction)
    starts = np.arange(0, len(body), block)
    held = (np.arange(len(starts)) % every) == every - 1
    parts = {flag: [body[s:s + block] for s, h in zip(starts, held, strict=True) if h == flag] for flag in (0, 1)}
    if not parts[0] or not parts[1]:
        raise ValueError(f"{len(body)} tokens in blocks of {block} leave no interleaved validation block "
                         f"(every {every}-th); use a smaller block or a longer corpus")
    return Splits(np.concatenate(parts[0]), np.concatenate(parts[1]), tail)
