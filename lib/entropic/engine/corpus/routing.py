"""A char corpus of known routing rank: the teacher–student construction of §6 at the character level.

A document is ``context`` characters that alternate two kinds:

* a **memory** character at every even position: a fresh key k ∈ [0, K) and a fresh value u ∈ [0, U), both
  uniform, written as the character k·U + u;
* an **answer** character at every odd position, from its own alphabet of U characters (K·U + u): the value of
  one earlier memory of the document, chosen by a softmax over a query–key kernel on keys. After the memory
  at position 2j (key k_j), the answer is the value u_i of memory i ≤ j with probability
  softmax_i(S[k_j, k_i]).

S : (K, K) has rank r* and a flat spectrum (S = c · Q_q Q_kᵀ, Q_q and Q_k with orthonormal columns, c set so
that the entries' root mean square is ``score_scale``). The routing — which earlier memory an answer copies —
is the only thing a model must learn that no table of the current character gives: the next key is fresh and
the copied value is independent of the key that routes to it, so no bigram statistic shortcuts it, and a
single attention head whose kernel has rank ≥ r* on keys realizes the teacher exactly. A head of rank r < r*
realizes it only approximately (the capacity sweep's deficiency). Documents are independent: a model reads
windows that start at a document (``align`` = ``context`` in ``charlm.sample_windows``).

The floor is the teacher's own cross-entropy per character: the entropy log(K·U) of every memory character
and, for every answer, the entropy of the teacher's distribution over values (computed exactly for each
document, not sampled).

Used by the attention-native rank of real text (``sections/text_rank``), as its power check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["RoutingCorpus", "routing_blind", "routing_corpus", "routing_kernel"]


@dataclass(frozen=True)
class RoutingCorpus:
    """What :func:`routing_corpus` returns.

    Attributes
    ----------
    train, val : (N,) token streams of whole documents (N a multiple of ``context``), independent draws.
    vocab_size : K·U + U characters.
    floor : the teacher's cross-entropy (nats/char) over the predictions a model of context ``context`` makes on
        ``val`` (every window one document; its last target is the next document's first memory).
    kernel : (K, K) the routing kernel S.
    """

    train: np.ndarray
    val: np.ndarray
    vocab_size: int
    floor: float
    kernel: np.ndarray


def routing_kernel(keys: int, r_star: int, score_scale: float, seed: int) -> np.ndarray:
    """S = c · Q_q Q_kᵀ : (keys, keys), rank r*, flat spectrum, entries of root mean square ``score_scale``."""
    if not 1 <= r_star <= keys:
        raise ValueError(f"r_star must lie in [1, keys={keys}], got {r_star}")
    if not score_scale > 0:
        raise ValueError(f"score_scale must be positive, got {score_scale}")
    rng = np.random.default_rng(seed)
    Qq = np.linalg.qr(rng.standard_normal((keys, r_star)))[0]
    Qk = np.linalg.qr(rng.standard_normal((keys, r_star)))[0]
    S = Qq @ Qk.T  # ‖S‖_F² = r*, so the entries' mean square is r*/keys²
    return S * score_scale * keys / math.sqrt(r_star)


def _documents(S: np.ndarray, values: int, context: int, docs: int, rng: np.random.Generator):
    """``docs`` documents (docs, context) and the summed entropy of their answers' teacher distributions."""
    K = S.shape[0]
    memories = (context + 1) // 2
    keys = rng.integers(0, K, size=(docs, memories))
    vals = rng.integers(0, values, size=(docs, memories))
    answers = np.zeros((docs, memories), dtype=np.int64)
    rows, entropy = np.arange(docs), 0.0
    for j in range(context // 2):
        score = S[keys[:, j][:, None], keys[:, :j + 1]]  # (docs, j+1): the query key against every memory so far
        weight = np.exp(score - score.max(1, keepdims=True))
        weight /= weight.sum(1, keepdims=True)
        prob = np.zeros((docs, values))
        np.add.at(prob, (rows[:, None], vals[:, :j + 1]), weight)
        entropy += float(-(prob * np.log(np.where(prob > 0, prob, 1.0))).sum())
        answers[:, j] = (rng.random(docs)[:, None] > prob.cumsum(1)).sum(1).clip(max=values - 1)
    text = np.empty((docs, 2 * memories), dtype=np.int64)
    text[:, 0::2] = keys * values + vals
    text[:, 1::2] = K * values + answers
    return text[:, :context], entropy


def routing_corpus(keys: int = 32, values: int = 4, r_star: int = 8, score_scale: float = 6.0, context: int = 64,
                   train_docs: int = 120_000, val_docs: int = 4096, seed: int = 0) -> RoutingCorpus:
    """The corpus of the module docstring: ``train_docs`` and ``val_docs`` independent documents.

    Parameters
    ----------
    keys, values : K and U (K·U memory characters, U answer characters).
    r_star : rank of the routing kernel S; score_scale : root mean square of its entries.
    context : characters per document (even, ≥ 2: the window a model reads).
    seed : the kernel and every document depend on it alone.
    """
    for label, value in (("keys", keys), ("values", values), ("train_docs", train_docs), ("val_docs", val_docs)):
        if int(value) < 1:
            raise ValueError(f"{label} must be positive, got {value}")
    if values < 2:
        raise ValueError(f"values must be at least 2 (a copied value must carry information), got {values}")
    if context < 2 or context % 2:
        raise ValueError(f"context must be even and at least 2 (memory and answer alternate), got {context}")
    S = routing_kernel(keys, r_star, score_scale, seed)
    rng = np.random.default_rng([seed, 1])
    train, _ = _documents(S, values, context, train_docs, rng)
    val, answer_entropy = _documents(S, values, context, val_docs, rng)
    # per window: context/2 memory targets (the last one the next document's first memory) and context/2 answers
    floor = (val_docs * (context // 2) * math.log(keys * values) + answer_entropy) / (val_docs * context)
    return RoutingCorpus(train.reshape(-1), val.reshape(-1), keys * values + values, float(floor), S)


def routing_blind(made: RoutingCorpus, values: int, context: int) -> float:
    """The cross-entropy (nats/char) on ``made.val`` of the routing teacher with its kernel replaced by zero (every
    earlier memory equally likely to be copied), on the predictions ``RoutingCorpus.floor`` averages over: what a
    model that has not learned the kernel at all reaches. Computed exactly from the documents, as the floor is."""
    K = made.kernel.shape[0]
    docs = made.val.reshape(-1, context)
    keys, vals = docs[:, 0::2] // values, docs[:, 0::2] % values  # (docs, memories)
    rows, cross = np.arange(len(docs))[:, None], 0.0
    for j in range(context // 2):
        score = made.kernel[keys[:, j][:, None], keys[:, :j + 1]]
        weight = np.exp(score - score.max(1, keepdims=True))
        weight /= weight.sum(1, keepdims=True)
        prob, flat = np.zeros((len(docs), values)), np.zeros((len(docs), values))
        np.add.at(prob, (rows, vals[:, :j + 1]), weight)
        np.add.at(flat, (rows, vals[:, :j + 1]), 1 / (j + 1))
        cross += float(-(prob * np.log(np.where(flat > 0, flat, 1.0))).sum())
    memories = len(docs) * (context // 2) * math.log(K * values)
    return (memories + cross) / (len(docs) * context)
