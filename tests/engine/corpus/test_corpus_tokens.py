import numpy as np
import pytest

from entropic.engine.corpus import tokens as corpus_tokens


def test_split_is_a_deterministic_contiguous_tail():
    tokens = np.arange(100)
    train, val = corpus_tokens.split(tokens, 0.1)
    np.testing.assert_array_equal(train, np.arange(90))
    np.testing.assert_array_equal(val, np.arange(90, 100))
    for bad in (0.0, 1.0, -0.2):
        with pytest.raises(ValueError, match=str(bad)):
            corpus_tokens.split(tokens, bad)
    with pytest.raises(ValueError, match="empty"):
        corpus_tokens.split(np.arange(3), 0.01)


def test_block_split_holds_out_the_tail_and_every_kth_block_and_trains_on_the_rest():
    tokens = np.arange(10_000)
    parts = corpus_tokens.split_blocks(tokens, block=100, every=10, tail_fraction=0.1)
    np.testing.assert_array_equal(parts.tail, np.arange(9000, 10_000))
    assert parts.interleaved[:100].tolist() == list(range(900, 1000))  # the 10th block of the body
    assert len(parts.train) + len(parts.interleaved) == 9000
    assert not set(parts.train) & set(parts.interleaved)


def test_a_body_too_short_for_one_held_out_block_is_refused():
    with pytest.raises(ValueError, match="no interleaved validation block"):
        corpus_tokens.split_blocks(np.arange(1000), block=200, every=10)
