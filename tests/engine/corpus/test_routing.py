"""The power check's corpus (engine/corpus/routing.py): documents of memories and answers routed by a rank-r* kernel."""

import math

import numpy as np
import pytest

from entropic.engine.corpus import routing


def test_the_kernel_has_rank_r_star_a_flat_spectrum_and_the_entries_scale_asked():
    S = routing.routing_kernel(keys=12, r_star=3, score_scale=2.0, seed=0)
    sv = np.linalg.svd(S, compute_uv=False)
    assert np.allclose(sv[:3], sv[0]) and np.allclose(sv[3:], 0, atol=1e-9)
    assert math.isclose(float(np.sqrt((S**2).mean())), 2.0, rel_tol=1e-9)


def test_documents_alternate_fresh_memories_and_answers_copied_from_an_earlier_memory():
    made = routing.routing_corpus(keys=6, values=3, r_star=2, context=8, train_docs=200, val_docs=50, seed=1)
    docs = made.train.reshape(-1, 8)
    memories, answers = docs[:, 0::2], docs[:, 1::2]
    assert made.vocab_size == 6 * 3 + 3 and (memories < 18).all() and (answers >= 18).all()
    copied = answers - 18
    for doc_memories, doc_answers in zip(memories, copied, strict=True):
        for j, value in enumerate(doc_answers):
            assert value in doc_memories[:j + 1] % 3  # the value of a memory at or before its query
    # the floor lies between a perfect router and no router: log(K·U) per memory target, less than log U per answer
    assert 0.5 * math.log(18) < made.floor < 0.5 * (math.log(18) + math.log(3))


def test_a_corpus_is_a_function_of_its_seed_and_bad_sizes_are_refused():
    a = routing.routing_corpus(keys=6, values=3, r_star=2, context=8, train_docs=20, val_docs=10, seed=4)
    b = routing.routing_corpus(keys=6, values=3, r_star=2, context=8, train_docs=20, val_docs=10, seed=4)
    assert np.array_equal(a.train, b.train) and a.floor == b.floor
    with pytest.raises(ValueError, match="even"):
        routing.routing_corpus(context=7)
    with pytest.raises(ValueError, match="r_star"):
        routing.routing_kernel(4, 5, 1.0, 0)
    with pytest.raises(ValueError, match="values"):
        routing.routing_corpus(values=1)
