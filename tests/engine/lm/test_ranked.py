"""The capacity sweep's student (engine/lm/ranked.py): App. B's model at full query–key width, every head's kernel of
rank at most r below it, trained by App. B's trainer."""

import numpy as np
import pytest
import torch

from entropic.engine.lm import charlm, ranked
from entropic.engine.lm.train import train_charlm


def _copy(source: charlm.CharLM, target: ranked.RankedLM) -> None:
    with torch.no_grad():
        for name in ("tok_emb", "pos_emb", "lnf_g", "lnf_b", "W_out", "ln1_g", "ln1_b", "ln2_g", "ln2_b", "W_O", "W_1",
                     "b_1", "W_2", "b_2"):
            getattr(target, name).copy_(getattr(source, name)[0])
        target.W_QKV.copy_(torch.cat([source.W_Q[0], source.W_K[0], source.W_V[0]], -1))


def test_at_full_width_it_computes_app_b_s_model_and_its_kernels():
    torch.manual_seed(0)
    source = charlm.CharLM([3], vocab_size=20, context=16, d_model=16, n_layers=2, n_heads=4)
    with torch.no_grad():
        for p in source.parameters():
            p.add_(0.3 * torch.randn_like(p))  # away from the initialization's symmetries
    target = ranked.RankedLM(3, 20, 16, 16, 2, 4)
    _copy(source, target)
    idx = torch.randint(0, 20, (5, 16))
    assert torch.allclose(source(idx), target(idx), atol=1e-5)
    assert torch.allclose(source.qk_kernels(), target.qk_kernels(), atol=1e-6)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_every_heads_kernel_has_rank_at_most_r_and_the_score_keeps_app_b_s_scale(r):
    model = ranked.RankedLM(0, 20, 16, 16, 2, 4, qk_width=r)
    with torch.no_grad():
        model.W_QKV.normal_()
    ranks = torch.linalg.matrix_rank(model.qk_kernels()[0])
    assert (ranks == r).all()  # a random (D, r) pair of maps has rank exactly r
    wide = ranked.RankedLM(0, 20, 16, 16, 2, 4)
    assert model.W_QKV.shape[-1] == 4 * (2 * r + 4) and wide.W_QKV.shape[-1] == 4 * (2 * 4 + 4)


def test_bad_widths_are_refused_naming_the_bound():
    with pytest.raises(ValueError, match=r"qk_width must lie in \[1, d_model/n_heads = 4\]"):
        ranked.RankedLM(0, 20, 16, 16, 2, 4, qk_width=5)
    with pytest.raises(ValueError, match="not divisible"):
        ranked.RankedLM(0, 20, 16, 18, 2, 4)


def test_app_b_s_trainer_trains_it_deterministically_and_document_windows_start_a_document():
    tokens = np.random.default_rng(0).integers(0, 20, 4_000)
    runs = [train_charlm(ranked.RankedLM(1, 20, 16, 16, 2, 4, qk_width=2), tokens, 20, 4, fused=True, progress=False,
                         val_tokens=tokens[:400]) for _ in range(2)]
    assert np.array_equal(runs[0].history, runs[1].history) and runs[0].history[-1, 0] < runs[0].history[0, 0]
    gen = torch.Generator().manual_seed(0)
    x, _ = charlm.sample_windows(np.arange(17 * 10), 50, 16, gen, align=17)
    assert (x[:, 0] % 17 == 0).all()
