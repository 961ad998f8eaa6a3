"""A char corpus of known copying rank: copies chosen by content, a second structure beside ``routing``.

A document is ``context`` symbols of one alphabet of K. Its first symbol is uniform; after symbol x_t, the next is

* with probability 1 − c a fresh uniform draw from the K symbols;
* with probability c a **copy** of an earlier symbol of the document, x_i for i ≤ t (the current one included),
  chosen with probability softmax_i(S[x_t, x_i]).

S : (K, K) is ``routing.routing_kernel``'s: rank r*, flat spectrum, entries of root mean square ``score_scale``.
Unlike the routing corpus, the query and the keys are the symbols themselves, what is copied is the key's own
symbol, and every position is of one kind (a model is not told whether the next symbol is fresh or copied). A
single attention head whose kernel has rank ≥ r* on symbols realizes the teacher's choice of copy exactly.

The floor is the teacher's own cross-entropy per character, computed exactly from each validation document: the
entropy of its predictive distribution p_t(v) = (1 − c)/K + c Σ_{i ≤ t} softmax_i(S[x_t, x_i]) 1[x_i = v] at every
position, and log K for the next document's first symbol (a window's last target). ``blind`` is the cross-entropy
of the same teacher with S replaced by zero (every earlier symbol equally likely to be copied) on the same
documents: what a model that has not learned the kernel at all reaches.

Used by the attention-native rank of real text (``sections/text_rank``), to calibrate its reading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .routing import routing_kernel

__all__ = ["CopyingCorpus", "copying_corpus"]


@dataclass(frozen=True)
class CopyingCorpus:
    """What :func:`copying_corpus` returns.

    Attributes
    ----------
    train, val : (N,) token streams of whole documents (N a multiple of ``context``), independent draws.
    vocab_size : K symbols.
    floor : the teacher's cross-entropy (nats/char) over the predictions a model of context ``context`` makes on
        ``val`` (every window one document; its last target is the next document's first symbol).
    blind : the cross-entropy (nats/char) of the teacher with a zero kernel on the same predictions.
    kernel : (K, K) the copying kernel S.
    """

    train: np.ndarray
    val: np.ndarray
    vocab_size: int
    floor: float
    blind: float
    kernel: np.ndarray


def _documents(S: np.ndarray, share: float, context: int, docs: int, rng: np.random.Generator):
    """``docs`` documents (docs, context), and over their predictions the summed entropy of the teacher's
    distributions and the summed cross-entropy of the zero-kernel teacher against them."""
    K = S.shape[0]
    text = np.empty((docs, context), dtype=np.int64)
    text[:, 0] = rng.integers(0, K, size=docs)
    rows, entropy, blind = np.arange(docs)[:, None], 0.0, 0.0
    for t in range(context - 1):
        seen = text[:, :t + 1]  # (docs, t+1)
        score = S[text[:, t][:, None], seen]
        weight = np.exp(score - score.max(1, keepdims=True))
        weight /= weight.sum(1, keepdims=True)
        prob = np.full((docs, K), (1 - share) / K)
        np.add.at(prob, (rows, seen), share * weight)
        flat = np.full((docs, K), (1 - share) / K)
        np.add.at(flat, (rows, seen), share / (t + 1))
        entropy += float(-(prob * np.log(prob)).sum())
        blind += float(-(prob * np.log(flat)).sum())
        text[:, t + 1] = (rng.random(docs)[:, None] > prob.cumsum(1)).sum(1).clip(max=K - 1)
    return text, entropy, blind


def copying_corpus(symbols: int = 32, r_star: int = 4, share: float = 0.5, score_scale: float = 6.0,
                   context: int = 64, train_docs: int = 120_000, val_docs: int = 4096, seed: int = 0) -> CopyingCorpus:
    """The corpus of the module docstring: ``train_docs`` and ``val_docs`` independent documents.

    Parameters
    ----------
    symbols : K; r_star : rank of the copying kernel S; score_scale : root mean square of its entries.
    share : c, the probability that the next symbol is a copy (0 < c < 1).
    context : symbols per document (≥ 2: the window a model reads).
    seed : the kernel and every document depend on it alone.
    """
    for label, value, least in (("symbols", symbols, 2), ("train_docs", train_docs, 1), ("val_docs", val_docs, 1)):
        if int(value) < least:
            raise ValueError(f"{label} must be at least {least}, got {value}")
    if not 0 < share < 1:
        raise ValueError(f"share must lie strictly between 0 and 1, got {share}")
    if context < 2:
        raise ValueError(f"context must be at least 2, got {context}")
    S = routing_kernel(symbols, r_star, score_scale, seed)
    rng = np.random.default_rng([seed, 2])
    train, _, _ = _documents(S, share, context, train_docs, rng)
    val, entropy, blind = _documents(S, share, context, val_docs, rng)
    first = val_docs * math.log(symbols)  # every window's last target: the next document's first symbol
    per_char = val_docs * context
    return CopyingCorpus(train.reshape(-1), val.reshape(-1), symbols, (first + entropy) / per_char,
                         (first + blind) / per_char, S)
