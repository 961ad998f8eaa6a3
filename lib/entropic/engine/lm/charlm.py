"""Causal char-level Transformers for the real-corpus diagnostics (Appendix B), M models at once.

``CharLM`` holds M independent models (e.g. several seeds of one size) as one tensor program: every
parameter has a leading model axis M. Models never interact: the summed loss gives each model
exactly its own gradient, AdamW is elementwise, and each model draws its own initial weights and its
own training windows from generators seeded by its own seed, so model m trained in a batch equals
the same model trained alone (up to float round-off). M = 1 is the plain single model.

Architecture (Appendix B.1 fixes only two layers, four heads and d_model ∈ {64, 128, 256}):

* learned token and position embeddings; L pre-LayerNorm blocks x ← x + Attn(LN₁(x)),
  x ← x + FFN(LN₂(x)); a final LayerNorm; an *untied* output matrix (D, V) without bias, so the
  token embedding is measured on its own;
* attention without biases on Q, K, V, O, so the score between rows is exactly
  x̃_t W_Q^h (W_K^h)ᵀ x̃_sᵀ / √d_h with x̃ = LN₁(x): the kernel W_QK^h = W_Q^h W_K^hᵀ is (D, D) of
  rank ≤ d_h = D/H. Training uses PyTorch's fused causal attention (the (T, T) weights are never
  stored); a forward that returns the weights for measurement computes softmax(QKᵀ/√d_h + causal
  mask) explicitly (a test checks the two agree);
* FFN: Linear(D, 4D) → GELU → Linear(4D, D), with biases; no dropout;
* initialization (GPT-2): weights ~ N(0, 0.02²), the two residual output projections ~ N(0, (0.02/√(2L))²),
  biases 0, LayerNorm gains 1.

Training is in ``lm_train``. Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["CharLM", "check_shape", "eval_windows", "evaluate", "sample_windows"]

# name -> (shape after (M,), kind); kind: "w" normal 0.02, "proj" residual projection, "zero", "one"
_INIT_STD = 0.02


def check_shape(vocab_size: int, context: int, d_model: int, n_layers: int, n_heads: int) -> None:
    """Raise ValueError naming the offending value unless V, T, D, L, H are positive and H divides D (the shape
    every char LM of App. B's architecture needs: ``CharLM`` and ``ranked.RankedLM``)."""
    for label, value in (("vocab_size", vocab_size), ("context", context), ("d_model", d_model),
                         ("n_layers", n_layers), ("n_heads", n_heads)):
        if int(value) < 1:
            raise ValueError(f"{label} must be positive, got {value}")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")


def _param_specs(V: int, T: int, D: int, L: int, H: int) -> dict[str, tuple[tuple[int, ...], str]]:
    return {
        "tok_emb": ((V, D), "w"), "pos_emb": ((T, D), "w"),
        "ln1_g": ((L, D), "one"), "ln1_b": ((L, D), "zero"),
        "W_Q": ((L, D, D), "w"), "W_K": ((L, D, D), "w"), "W_V": ((L, D, D), "w"), "W_O": ((L, D, D), "proj"),
        "ln2_g": ((L, D), "one"), "ln2_b": ((L, D), "zero"),
        "W_1": ((L, D, 4 * D), "w"), "b_1": ((L, 4 * D), "zero"),
        "W_2": ((L, 4 * D, D), "proj"), "b_2": ((L, D), "zero"),
        "lnf_g": ((D,), "one"), "lnf_b": ((D,), "zero"),
        "W_out": ((D, V), "w"),
    }


_NO_DECAY = {"ln1_g", "ln1_b", "ln2_g", "ln2_b", "lnf_g", "lnf_b", "b_1", "b_2", "pos_emb"}


class CharLM(nn.Module):
    """M independent causal char-level Transformers as one module.

    Parameters
    ----------
    seeds : one initialization seed per model (M = len(seeds)).
    vocab_size : V, the number of characters.
    context : T, the longest input (size of the position embedding).
    d_model : D, divisible by ``n_heads``.
    n_layers, n_heads : L and H (the paper: 2 and 4).

    Shapes: parameters are ``(M, ...)``; ``W_Q``, ``W_K``, ``W_V``, ``W_O`` are (M, L, D, D) with
    head h owning columns ``h·d_h:(h+1)·d_h`` of W_Q, W_K, W_V; ``W_1`` (M, L, D, 4D), ``W_2``
    (M, L, 4D, D); ``W_out`` (M, D, V).
    """

    def __init__(self, seeds: Sequence[int], vocab_size: int, context: int, d_model: int = 64,
                 n_layers: int = 2, n_heads: int = 4):
        super().__init__()
        seeds = [int(s) for s in seeds]
        if not seeds:
            raise ValueError(f"need at least one seed, got {seeds}")
        check_shape(vocab_size, context, d_model, n_layers, n_heads)
        self.seeds, self.M, self.V, self.T = seeds, len(seeds), vocab_size, context
        self.D, self.L, self.H, self.dh = d_model, n_layers, n_heads, d_model // n_heads
        specs = _param_specs(vocab_size, context, d_model, n_layers, n_heads)
        proj_std = _INIT_STD / math.sqrt(2 * n_layers)
        tensors = {name: torch.empty(self.M, *shape) for name, (shape, _) in specs.items()}
        for m, seed in enumerate(seeds):
            gen = torch.Generator().manual_seed(seed)  # model m's weights depend on its seed only
            for name, (shape, kind) in specs.items():
                if kind in ("w", "proj"):
                    tensors[name][m] = torch.randn(*shape, generator=gen) * (_INIT_STD if kind == "w" else proj_std)
                else:
                    tensors[name][m] = 1.0 if kind == "one" else 0.0
        for name, tensor in tensors.items():
            self.register_parameter(name, nn.Parameter(tensor))
        self.register_buffer("causal", torch.ones(context, context, dtype=torch.bool).tril())

    def qk_kernels(self) -> torch.Tensor:
        """Static kernels W_QK^h = W_Q^h W_K^hᵀ: (M, L, H, D, D), each of rank ≤ d_h."""
        M, L, D, H, dh = self.M, self.L, self.D, self.H, self.dh
        Wq = self.W_Q.detach().reshape(M, L, D, H, dh).permute(0, 1, 3, 2, 4)  # (M, L, H, D, dh)
        Wk = self.W_K.detach().reshape(M, L, D, H, dh).permute(0, 1, 3, 2, 4)
        return Wq @ Wk.transpose(-1, -2)

    def ffn_weights(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(W_1 : (M, L, D, 4D), W_2 : (M, L, 4D, D)), detached."""
        return self.W_1.detach(), self.W_2.detach()

    @staticmethod
    def _ln(x: torch.Tensor, g: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        # x : (M, B, T, D); g, b : (M, D)
        return F.layer_norm(x, x.shape[-1:]) * g[:, None, None] + b[:, None, None]

    def forward(self, idx: torch.Tensor, return_attention: bool = False, return_hidden: bool = False):
        """Logits for every position.

        Parameters
        ----------
        idx : (M, B, T) int64 token ids, T ≤ context (a (B, T) input is used for every model).
        return_attention : also return, per layer, the attention weights (M, B, H, T, T).
        return_hidden : also return, per layer, the LayerNormed states entering its attention,
            LN₁(x) : (M, B, T, D) (the inputs W_QK acts on, for Σ_X).

        Returns
        -------
        logits : (M, B, T, V); followed by the list of attentions and/or the list of states if asked.
        """
        if idx.ndim == 2:
            idx = idx.unsqueeze(0).expand(self.M, -1, -1)
        if idx.ndim != 3 or idx.shape[0] != self.M:
            raise ValueError(f"idx must be (M={self.M}, B, T) or (B, T), got shape {tuple(idx.shape)}")
        M, B, T = idx.shape
        if T > self.T or T < 1:
            raise ValueError(f"sequence length {T} must lie in [1, context={self.T}]")
        H, dh, D = self.H, self.dh, self.D
        x = self.tok_emb[torch.arange(M)[:, None, None], idx] + self.pos_emb[:, None, :T]  # (M, B, T, D)
        mask = self.causal[:T, :T]
        attentions, hidden = [], []
        for layer in range(self.L):
            z = self._ln(x, self.ln1_g[:, layer], self.ln1_b[:, layer])
            if return_hidden:
                hidden.append(z.detach())
            flat = z.reshape(M, B * T, D)

            def heads(W, flat=flat):
                return (flat @ W).reshape(M, B, T, H, dh).transpose(2, 3)  # (M, B, H, T, dh)

            q, k, v = heads(self.W_Q[:, layer]), heads(self.W_K[:, layer]), heads(self.W_V[:, layer])
            if return_attention:  # explicit weights, (M, B, H, T, T), for the measures
                att = ((q @ k.transpose(-1, -2)) / math.sqrt(dh)).masked_fill(~mask, float("-inf")).softmax(-1)
                attentions.append(att.detach())
                mixed = att @ v
            else:
                mixed = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            out = mixed.transpose(2, 3).reshape(M, B * T, D) @ self.W_O[:, layer]
            x = x + out.reshape(M, B, T, D)
            u = self._ln(x, self.ln2_g[:, layer], self.ln2_b[:, layer]).reshape(M, B * T, D)
            u = F.gelu(torch.baddbmm(self.b_1[:, layer, None], u, self.W_1[:, layer]))
            x = x + torch.baddbmm(self.b_2[:, layer, None], u, self.W_2[:, layer]).reshape(M, B, T, D)
        x = self._ln(x, self.lnf_g, self.lnf_b)
        logits = (x.reshape(M, B * T, D) @ self.W_out).reshape(M, B, T, self.V)
        extra = ([attentions] if return_attention else []) + ([hidden] if return_hidden else [])
        return (logits, *extra) if extra else logits

    def loss(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy (nats/char) per model: (M,). idx, targets : (M, B, T)."""
        logits = self(idx)
        ce = F.cross_entropy(logits.reshape(-1, self.V), targets.reshape(-1), reduction="none")
        return ce.reshape(self.M, -1).mean(-1)


def _as_tokens(tokens) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(tokens), dtype=torch.int64)
    if t.ndim != 1:
        raise ValueError(f"tokens must be one-dimensional, got shape {tuple(t.shape)}")
    return t


def sample_windows(tokens, batch_size: int, context: int, generator: torch.Generator, align: int | None = None):
    """Random windows of a token stream: inputs and next-token targets, each (batch_size, context).

    Starts are drawn uniformly from ``generator``; the stream needs at least ``context + 1`` tokens. With
    ``align``, starts are multiples of ``align`` (a stream of documents of that length: every window starts
    a document).
    """
    t = _as_tokens(tokens)
    if len(t) < context + 1:
        raise ValueError(f"a stream of {len(t)} tokens is too short for windows of context={context}")
    if align is None:
        starts = torch.randint(0, len(t) - context, (batch_size,), generator=generator)
    else:
        starts = torch.randint(0, (len(t) - context - 1) // align + 1, (batch_size,), generator=generator) * align
    rows = starts[:, None] + torch.arange(context + 1)
    window = t[rows]
    return window[:, :-1], window[:, 1:]


def eval_windows(tokens, context: int, max_windows: int | None = None):
    """Deterministic validation windows: non-overlapping, evenly spaced over the stream.

    Returns inputs and targets, each (N, context) with N ≤ ``max_windows``.
    """
    t = _as_tokens(tokens)
    count = (len(t) - 1) // context
    if count < 1:
        raise ValueError(f"a stream of {len(t)} tokens is too short for one window of context={context}")
    chosen = np.arange(count) if max_windows is None or max_windows >= count else \
        np.linspace(0, count - 1, max_windows).round().astype(int)
    rows = torch.as_tensor(chosen * context)[:, None] + torch.arange(context + 1)
    window = t[rows]
    return window[:, :-1], window[:, 1:]


@torch.no_grad()
def evaluate(model: CharLM, tokens, context: int | None = None, max_windows: int | None = 256,
             batch_size: int = 64) -> np.ndarray:
    """Mean cross-entropy (nats/char) of every model on :func:`eval_windows` of ``tokens``: (M,)."""
    context = context or model.T
    x, y = eval_windows(tokens, context, max_windows)
    device = next(model.parameters()).device
    total = torch.zeros(model.M, dtype=torch.float64)
    for i in range(0, len(x), batch_size):
        xb, yb = x[i:i + batch_size].to(device), y[i:i + batch_size].to(device)
        expand = (model.M, -1, -1)
        total += model.loss(xb.expand(*expand), yb.expand(*expand)).double().cpu() * len(xb)
    return (total / len(x)).numpy()
