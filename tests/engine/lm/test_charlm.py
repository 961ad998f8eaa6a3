import numpy as np
import pytest
import torch

from entropic.engine.corpus import corpora
from entropic.engine.lm import charlm
from entropic.engine.lm import train as lm_train


def _tiny(seeds=(0,), V=11, T=8, D=16):
    return charlm.CharLM(list(seeds), vocab_size=V, context=T, d_model=D, n_layers=2, n_heads=4)


def test_attention_rows_sum_to_one_and_are_causal():
    model = _tiny(seeds=(0, 1))
    idx = torch.randint(0, 11, (2, 3, 8), generator=torch.Generator().manual_seed(0))
    logits, attention = model(idx, return_attention=True)
    assert logits.shape == (2, 3, 8, 11) and len(attention) == 2
    for A in attention:
        assert A.shape == (2, 3, 4, 8, 8)
        torch.testing.assert_close(A.sum(-1), torch.ones(2, 3, 4, 8))
        assert (A.triu(1) == 0).all()


def test_changing_a_future_token_leaves_earlier_logits_unchanged():
    model = _tiny()
    idx = torch.randint(0, 11, (1, 2, 8), generator=torch.Generator().manual_seed(1))
    changed = idx.clone()
    changed[..., 5] = (changed[..., 5] + 1) % 11
    before, after = model(idx), model(changed)
    torch.testing.assert_close(before[..., :5, :], after[..., :5, :])
    assert not torch.allclose(before[..., 5:, :], after[..., 5:, :])


def test_kernels_have_rank_at_most_the_head_width_and_hidden_states_are_returned():
    model = _tiny(D=16)
    W = model.qk_kernels()
    assert W.shape == (1, 2, 4, 16, 16)
    assert (torch.linalg.matrix_rank(W) <= 4).all()
    _, hidden = model(torch.zeros(1, 2, 8, dtype=torch.int64), return_hidden=True)
    assert len(hidden) == 2 and hidden[0].shape == (1, 2, 8, 16)
    W1, W2 = model.ffn_weights()
    assert W1.shape == (1, 2, 16, 64) and W2.shape == (1, 2, 64, 16)


def test_a_few_steps_lower_the_loss_on_a_real_corpus():
    path = corpora.shared_corpora_dir() / "english.txt"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    corpus = corpora.load_corpus("english", max_chars=20_000)
    train, val = corpus.split(0.1)
    model = charlm.CharLM([0], corpus.vocab_size, context=16, d_model=32)
    before = charlm.evaluate(model, val, max_windows=32)
    result = lm_train.train_charlm(model, train, steps=40, batch_size=16, lr=1e-2, val_tokens=val,
                                 max_val_windows=32, progress=False)
    assert result.history.shape == (40, 1)
    assert result.val_loss[0] < before[0] - 0.3
    assert before[0] == pytest.approx(np.log(corpus.vocab_size), abs=0.3)  # untrained ≈ uniform


def test_models_in_a_batch_train_exactly_as_each_trained_alone():
    tokens = np.random.default_rng(0).integers(0, 11, 2000)
    batch = _tiny(seeds=(3, 4))
    batched = lm_train.train_charlm(batch, tokens, steps=5, batch_size=4, progress=False)
    for m, seed in enumerate((3, 4)):
        alone = _tiny(seeds=(seed,))
        looped = lm_train.train_charlm(alone, tokens, steps=5, batch_size=4, progress=False)
        np.testing.assert_allclose(batched.history[:, m], looped.history[:, 0], rtol=1e-5)
        torch.testing.assert_close(batch.qk_kernels()[m], alone.qk_kernels()[0], rtol=1e-4, atol=1e-6)


def test_same_seed_gives_identical_numbers():
    tokens = np.random.default_rng(1).integers(0, 11, 1000)
    runs = [lm_train.train_charlm(_tiny(seeds=(7,)), tokens, steps=4, batch_size=4, val_tokens=tokens[:200],
                                progress=False) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].history, runs[1].history)
    np.testing.assert_array_equal(runs[0].val_loss, runs[1].val_loss)


@pytest.mark.parametrize("kwargs, message", [
    (dict(vocab_size=0), "vocab_size"), (dict(d_model=18), "divisible"), (dict(context=-1), "context"),
])
def test_bad_model_arguments_raise(kwargs, message):
    args = dict(seeds=[0], vocab_size=5, context=8, d_model=16) | kwargs
    with pytest.raises(ValueError, match=message):
        charlm.CharLM(**args)


def test_bad_training_arguments_and_inputs_raise():
    model, tokens = _tiny(), np.zeros(100, dtype=np.int64)
    with pytest.raises(ValueError, match="steps"):
        lm_train.train_charlm(model, tokens, steps=0, progress=False)
    with pytest.raises(ValueError, match="11"):
        lm_train.train_charlm(model, np.full(100, 11), steps=1, progress=False)
    with pytest.raises(ValueError, match="longer than context"):
        lm_train.train_charlm(model, tokens[:5], steps=1, progress=False)
    with pytest.raises(ValueError, match="sequence length 9"):
        model(torch.zeros(1, 1, 9, dtype=torch.int64))


def test_fused_training_attention_equals_the_explicit_weights_used_for_measurement():
    model = _tiny(seeds=(0, 1))
    idx = torch.randint(0, 11, (2, 3, 8), generator=torch.Generator().manual_seed(2))
    torch.testing.assert_close(model(idx), model(idx, return_attention=True)[0])


def test_checkpoints_see_the_model_at_their_step_and_a_resumed_run_ends_exactly_as_an_uninterrupted_one(tmp_path):
    tokens = np.random.default_rng(3).integers(0, 11, 3000)
    seen = lambda step, model: (step, float(model.W_Q.detach().abs().sum()))  # noqa: E731
    whole = lm_train.train_charlm(_tiny(seeds=(1, 2)), tokens, steps=9, batch_size=4, checkpoints=[3, 6],
                                  on_checkpoint=seen, progress=False)
    assert [step for step, _ in whole.checkpoints] == [3, 6]
    state = tmp_path / "state.pt"

    class Stop(Exception):
        pass

    def interrupt(step, model):
        if step == 6:
            raise Stop
        return seen(step, model)

    with pytest.raises(Stop):  # killed while measuring at step 6: the state of step 3 is on disk
        lm_train.train_charlm(_tiny(seeds=(1, 2)), tokens, steps=9, batch_size=4, checkpoints=[3, 6],
                              on_checkpoint=interrupt, state_path=state, progress=False)
    resumed = lm_train.train_charlm(_tiny(seeds=(1, 2)), tokens, steps=9, batch_size=4, checkpoints=[3, 6],
                                    on_checkpoint=seen, state_path=state, progress=False)
    assert resumed.resumed_from == 3
    np.testing.assert_array_equal(resumed.history, whole.history)
    assert resumed.checkpoints == whole.checkpoints


def test_a_corrupt_or_foreign_training_state_is_named_not_used(tmp_path):
    tokens = np.random.default_rng(4).integers(0, 11, 1000)
    state = tmp_path / "state.pt"
    state.write_bytes(b"not a state")
    with pytest.raises(ValueError, match=r"state\.pt is unreadable"):
        lm_train.train_charlm(_tiny(), tokens, steps=2, batch_size=2, state_path=state, progress=False)
    state.unlink()
    lm_train.train_charlm(_tiny(seeds=(0,)), tokens, steps=2, batch_size=2, checkpoints=[1], state_path=state,
                          progress=False)
    with pytest.raises(ValueError, match="another run"):
        lm_train.train_charlm(_tiny(seeds=(5,)), tokens, steps=2, batch_size=2, state_path=state, progress=False)
