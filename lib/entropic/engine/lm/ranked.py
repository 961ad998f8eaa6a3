"""One char-level Transformer of App. B's shape whose heads' query and key maps have width r: the student of
the attention-native capacity sweep on real text.

``RankedLM`` is the architecture of ``charlm.CharLM`` (learned token and position embeddings, L pre-LayerNorm
blocks of H-head causal attention without biases and a GELU FFN of width 4D, a final LayerNorm, an untied
output matrix; GPT-2 initialization) with one change: W_Q^h and W_K^h are (D, r) instead of (D, D/H), so every
head's kernel W_QK^h = W_Q^h W_K^hᵀ has rank ≤ r. Values and outputs keep their width D/H, and the score keeps
App. B's scale 1/√(D/H) whatever r is, so at r = D/H the model is App. B's.

It holds one model and trains as a plain program, not as ``CharLM``'s batch of M models: on a CPU the one-model
step is the faster one (``benchmarks/bench_charlm.py``). What makes the step fast, each kept because it was
measured to help: the query, key and value maps are one matrix product; queries and keys are padded with
zeros to D/H so that PyTorch's fused (flash) attention runs (a zero column changes no score); the token
embedding is an ``F.embedding`` lookup; LayerNorm applies its gain and bias in the same kernel. It exposes
the attributes ``train_charlm`` and ``evaluate`` use (``seeds``, ``M`` = 1, ``V``, ``T``, ``loss``), so the
trainer, its checkpoints and its resumption are App. B's.

Used by the attention-native rank of real text (``sections/text_rank``).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .charlm import check_shape

__all__ = ["RankedLM"]

_INIT_STD = 0.02


class RankedLM(nn.Module):
    """One causal char-level Transformer whose heads' query and key maps have width ``qk_width``.

    Parameters
    ----------
    seed : initialization seed (the model's weights depend on it alone).
    vocab_size, context, d_model, n_layers, n_heads : V, T, D, L, H as in ``CharLM``.
    qk_width : r, the width of every head's query and key map, 1 ≤ r ≤ D/H.

    Shapes: ``W_QKV`` (L, D, H·(2r + D/H)) holds, per layer, the columns of W_Q (H·r, head h owning
    ``h·r:(h+1)·r``), then W_K (H·r), then W_V (D); ``W_O`` (L, D, D); ``W_1`` (L, D, 4D); ``W_2`` (L, 4D, D);
    ``W_out`` (D, V).
    """

    def __init__(self, seed: int, vocab_size: int, context: int, d_model: int = 128, n_layers: int = 2,
                 n_heads: int = 4, qk_width: int | None = None):
        super().__init__()
        check_shape(vocab_size, context, d_model, n_layers, n_heads)
        dh = d_model // n_heads
        r = dh if qk_width is None else int(qk_width)
        if not 1 <= r <= dh:
            raise ValueError(f"qk_width must lie in [1, d_model/n_heads = {dh}], got {qk_width}")
        self.seeds, self.M, self.V, self.T = [int(seed)], 1, vocab_size, context
        self.D, self.L, self.H, self.dh, self.r = d_model, n_layers, n_heads, dh, r
        gen = torch.Generator().manual_seed(int(seed))
        proj = _INIT_STD / math.sqrt(2 * n_layers)

        def normal(*shape, std=_INIT_STD):
            return nn.Parameter(torch.randn(*shape, generator=gen) * std)

        D, L = d_model, n_layers
        self.tok_emb, self.pos_emb = normal(vocab_size, D), normal(context, D)
        self.ln1_g, self.ln1_b = nn.Parameter(torch.ones(L, D)), nn.Parameter(torch.zeros(L, D))
        self.W_QKV = normal(L, D, n_heads * (2 * r + dh))
        self.W_O = normal(L, D, D, std=proj)
        self.ln2_g, self.ln2_b = nn.Parameter(torch.ones(L, D)), nn.Parameter(torch.zeros(L, D))
        self.W_1, self.b_1 = normal(L, D, 4 * D), nn.Parameter(torch.zeros(L, 4 * D))
        self.W_2, self.b_2 = normal(L, 4 * D, D, std=proj), nn.Parameter(torch.zeros(L, D))
        self.lnf_g, self.lnf_b = nn.Parameter(torch.ones(D)), nn.Parameter(torch.zeros(D))
        self.W_out = normal(D, vocab_size)

    def qk_kernels(self) -> torch.Tensor:
        """Static kernels W_QK^h = W_Q^h W_K^hᵀ: (M = 1, L, H, D, D), each of rank ≤ r."""
        H, r = self.H, self.r
        W = self.W_QKV.detach()
        Wq = W[..., :H * r].reshape(self.L, self.D, H, r).permute(0, 2, 1, 3)  # (L, H, D, r)
        Wk = W[..., H * r:2 * H * r].reshape(self.L, self.D, H, r).permute(0, 2, 1, 3)
        return (Wq @ Wk.transpose(-1, -2))[None]

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Logits (1, B, T, V) for token ids ``idx`` : (1, B, T) or (B, T)."""
        if idx.ndim == 3:
            if idx.shape[0] != 1:
                raise ValueError(f"idx must be (1, B, T) or (B, T), got shape {tuple(idx.shape)}")
            idx = idx[0]
        if idx.ndim != 2:
            raise ValueError(f"idx must be (1, B, T) or (B, T), got shape {tuple(idx.shape)}")
        B, T = idx.shape
        if not 1 <= T <= self.T:
            raise ValueError(f"sequence length {T} must lie in [1, context={self.T}]")
        D, H, dh, r = self.D, self.H, self.dh, self.r
        x = F.embedding(idx, self.tok_emb) + self.pos_emb[:T]  # (B, T, D)
        for layer in range(self.L):
            z = F.layer_norm(x, (D,), self.ln1_g[layer], self.ln1_b[layer])
            qkv = z @ self.W_QKV[layer]  # (B, T, H·(2r + dh))
            q, k, v = qkv.split((H * r, H * r, D), dim=-1)
            q, k = (t.reshape(B, T, H, r).transpose(1, 2) for t in (q, k))  # (B, H, T, r)
            if r < dh:  # zero columns: the scores are unchanged and the fused attention kernel applies
                q, k = F.pad(q, (0, dh - r)), F.pad(k, (0, dh - r))
            v = v.reshape(B, T, H, dh).transpose(1, 2)  # (B, H, T, dh)
            mixed = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1 / math.sqrt(dh))
            x = x + mixed.transpose(1, 2).reshape(B, T, D) @ self.W_O[layer]
            u = F.layer_norm(x, (D,), self.ln2_g[layer], self.ln2_b[layer])
            x = x + torch.addmm(self.b_2[layer], F.gelu(torch.addmm(
                self.b_1[layer], u.reshape(B * T, D), self.W_1[layer])), self.W_2[layer]).reshape(B, T, D)
        x = F.layer_norm(x, (D,), self.lnf_g, self.lnf_b)
        return (x @ self.W_out)[None]

    def loss(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy (nats/char): (1,). idx, targets : (1, B, T) or (B, T)."""
        logits = self(idx)
        return F.cross_entropy(logits.reshape(-1, self.V), targets.reshape(-1))[None]
