"""The copying corpus (engine/corpus/copying.py) and the routing teacher's zero-kernel cross-entropy."""

import math

import numpy as np
import pytest

from entropic.engine.corpus import copying, routing


def test_the_floor_lies_below_the_zero_kernel_teacher_and_both_below_a_uniform_guess():
    made = copying.copying_corpus(symbols=16, r_star=2, context=16, train_docs=50, val_docs=400, seed=3)
    assert made.vocab_size == 16 and len(made.val) == 400 * 16 and len(made.train) == 50 * 16
    assert np.linalg.matrix_rank(made.kernel) == 2
    assert 0 < made.floor < made.blind < math.log(16)  # the kernel carries information; a copy is never uniform


def test_a_copy_repeats_an_earlier_symbol_of_its_document_more_often_than_a_fresh_draw_would():
    made = copying.copying_corpus(symbols=32, r_star=4, share=0.9, context=32, train_docs=10, val_docs=500)
    docs = made.val.reshape(-1, 32)
    seen = np.mean([docs[d, t + 1] in docs[d, :t + 1] for d in range(500) for t in range(8, 31)])
    assert seen > 0.9  # with c = 0.9 nearly every next symbol is one the document already holds


def test_the_corpus_is_a_function_of_its_seed_and_bad_input_is_refused():
    a, b = (copying.copying_corpus(symbols=8, r_star=2, context=8, train_docs=5, val_docs=5, seed=1) for _ in "ab")
    assert np.array_equal(a.train, b.train) and a.floor == b.floor
    for bad in ({"share": 0.0}, {"share": 1.0}, {"symbols": 1}, {"context": 1}, {"val_docs": 0}, {"r_star": 9}):
        with pytest.raises(ValueError):
            copying.copying_corpus(**({"symbols": 8, "r_star": 2, "context": 8, "train_docs": 5, "val_docs": 5}
                                      | bad))


def test_the_routing_teachers_zero_kernel_cross_entropy_exceeds_its_floor_and_equals_it_for_a_zero_kernel():
    made = routing.routing_corpus(keys=8, values=2, r_star=2, context=16, train_docs=20, val_docs=300)
    assert routing.routing_blind(made, 2, 16) > made.floor
    # scale → 0 makes the kernel uniform: the teacher is its own zero-kernel version
    flat = routing.routing_corpus(keys=8, values=2, r_star=2, score_scale=1e-9, context=16, train_docs=20,
                                  val_docs=300)
    assert routing.routing_blind(flat, 2, 16) == pytest.approx(flat.floor, abs=1e-7)
