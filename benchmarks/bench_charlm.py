"""The App. B char LM: the batched engine, a plain one-model loop and the capacity sweep's engine, beside the CPU's
SGEMM rate, in one run.

Workload: the App. B training step at our settings (2 layers, 4 heads, context 64, 16 windows per step and
model, AdamW), five seeds, on random tokens over a 90-symbol alphabet, at d_model ∈ {64, 128, 256}:

* SGEMM: a 2048³ float32 matrix product, the rate the arithmetic of this CPU reaches, on 2 threads and on 1;
* naive: a plain ``nn.Module`` Transformer of the same shape (``nn.Linear``, PyTorch's causal attention),
  one model at a time for the five seeds, each with its own AdamW;
* batched: ``engine.lm.train.train_charlm`` on ``engine.lm.charlm.CharLM`` holding the five seeds as one
  tensor program (App. B's engine);
* sweep: ``train_charlm`` on ``engine.lm.ranked.RankedLM`` (full query–key width), one model at a time, with
  AdamW's fused kernel: the engine that trains the capacity sweep (``sections/text_rank``), on 2 threads and on
  the 1 it runs on.

FLOPs per token and model: 6 per parameter plus 6·L·T·d for attention (Kaplan et al.), so the share of
the SGEMM rate a training run reaches is comparable across widths and threads. ``--profile`` prints where one
d_model = 128 step of the batched and the sweep engine spends its time (PyTorch's profiler, by operator).
Run alone: two torch processes on two cores slow each other several times over.

Usage: python benchmarks/bench_charlm.py [--steps 30] [--no-write] [--profile]
Appends a dated section to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import results
import torch
import torch.nn.functional as F
from torch import nn

from entropic.engine.lm import charlm, ranked
from entropic.engine.lm import train as lm_train

V, T, B, L, H, SEEDS = 90, 64, 16, 2, 4, 5


def sgemm_rate(size: int = 2048, reps: int = 10) -> float:
    """GFLOP/s of a size³ float32 matrix product (best of ``reps``, after a warm-up)."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    best = min(_timed(lambda: a @ b) for _ in range(reps))
    return 2 * size**3 / best / 1e9


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def flops_per_token(model: nn.Module, d_model: int) -> float:
    params = sum(p.numel() for p in model.parameters())
    return 6 * params + 6 * L * T * d_model


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.ffn = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, H, d // H).permute(2, 0, 3, 1, 4)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))
        return x + self.ffn(self.ln2(x))


class PlainLM(nn.Module):
    """The naive baseline: one causal char Transformer of App. B's shape, written with nn.Linear."""

    def __init__(self, d):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, d), nn.Parameter(torch.zeros(T, d))
        self.blocks = nn.ModuleList(Block(d) for _ in range(L))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, V, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos[: idx.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def naive_rate(d: int, steps: int, tokens: np.ndarray) -> tuple[float, float]:
    """(tokens/s over the five seeds trained one after another, FLOPs per token of one model)."""
    seconds = 0.0
    for seed in range(SEEDS):
        torch.manual_seed(seed)
        model = PlainLM(d)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(seed)

        def step(model=model, optimizer=optimizer, gen=gen):
            x, y = charlm.sample_windows(tokens, B, T, gen)
            optimizer.zero_grad(set_to_none=True)
            F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1)).backward()
            optimizer.step()

        step()
        seconds += sum(_timed(step) for _ in range(steps))
    return SEEDS * steps * B * T / seconds, flops_per_token(PlainLM(d), d)


def batched_rate(d: int, steps: int, tokens: np.ndarray, explicit: bool = False, compiled: bool = False) -> float:
    """Tokens/s of ``train_charlm`` on five seeds as one program (after one warm-up step)."""
    model = charlm.CharLM(list(range(SEEDS)), V, T, d, L, H)
    if explicit:  # the attention weights materialized, as the measurements need them
        forward = model.forward
        model.forward = lambda idx, **kw: forward(idx, return_attention=True)[0]
    if compiled:
        model.forward = torch.compile(model.forward)
    lm_train.train_charlm(model, tokens, steps=2, batch_size=B, progress=False)
    result = lm_train.train_charlm(model, tokens, steps=steps, batch_size=B, progress=False)
    return SEEDS * steps * B * T / result.seconds


def sweep_rate(d: int, steps: int, tokens: np.ndarray) -> float:
    """Tokens/s of the sweep's engine (``RankedLM`` at full width, AdamW fused), the five seeds one after another."""
    seconds = 0.0
    for seed in range(SEEDS):
        model = ranked.RankedLM(seed, V, T, d, L, H)
        lm_train.train_charlm(model, tokens, steps=2, batch_size=B, progress=False, fused=True)
        seconds += lm_train.train_charlm(model, tokens, steps=steps, batch_size=B, progress=False, fused=True).seconds
    return SEEDS * steps * B * T / seconds


def profile(tokens: np.ndarray, d: int = 128, steps: int = 10) -> list[str]:
    """Where one step of the batched and of the sweep engine spends its time at ``d``: the heaviest operators."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as profiled

    lines = []
    for label, model, fused in (("batched engine, five seeds", charlm.CharLM(list(range(SEEDS)), V, T, d, L, H), False),
                                ("sweep engine, one model", ranked.RankedLM(0, V, T, d, L, H), True)):
        lm_train.train_charlm(model, tokens, steps=3, batch_size=B, progress=False, fused=fused)
        with profiled(activities=[ProfilerActivity.CPU]) as found:
            lm_train.train_charlm(model, tokens, steps=steps, batch_size=B, progress=False, fused=fused)
        events = sorted(found.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
        total = sum(e.self_cpu_time_total for e in events)
        top = ", ".join(f"{e.key.removeprefix('aten::')} {100 * e.self_cpu_time_total / total:.0f} %"
                        for e in events[:8])
        lines.append(f"- {label}, d_model = {d}: {total / steps / 1e3:.1f} ms a step; {top}.")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--profile", action="store_true", help="where a d_model = 128 step spends its time")
    args = parser.parse_args()
    tokens = np.random.default_rng(0).integers(0, V, 200_000)
    torch.set_num_threads(1)
    sgemm_one = sgemm_rate()
    torch.set_num_threads(2)
    sgemm = sgemm_rate()
    rows = []
    for d in (64, 128, 256):
        naive, flops = naive_rate(d, args.steps, tokens)
        batched = batched_rate(d, args.steps, tokens)
        sweep = sweep_rate(d, args.steps, tokens)
        torch.set_num_threads(1)
        sweep_one = sweep_rate(d, args.steps, tokens)
        torch.set_num_threads(2)
        share = lambda rate, rate_of=sgemm, flops=flops: rate * flops / 1e9 / rate_of  # noqa: E731
        rows.append(f"| {d} | {flops / 1e6:.2f} | {naive:,.0f} ({share(naive):.0%}) | {batched:,.0f} "
                    f"({share(batched):.0%}) | {sweep:,.0f} ({share(sweep):.0%}) | {sweep / batched:.2f}× | "
                    f"{sweep_one:,.0f} ({share(sweep_one, sgemm_one):.0%}) |")
        print(rows[-1], flush=True)
    lines = [
        f"### {results.stamp()} — App. B char LM and the capacity sweep's engine, CPU ({platform.machine()}), "
        f"torch {torch.__version__}",
        "",
        f"Large SGEMM (2048³, float32): **{sgemm:.0f} GFLOP/s** on 2 threads, **{sgemm_one:.0f} GFLOP/s** on 1. "
        f"Training steps of five seeds (2 layers, 4 heads, context {T}, {B} windows per step and model, AdamW), "
        f"{args.steps} timed steps after a warm-up; tokens/s summed over the five models, and in brackets the share "
        f"of the SGEMM rate at the same thread count (6 FLOPs per parameter and token plus 6·L·T·d for attention).",
        "",
        "| d_model | MFLOP per token | naive loop, one model at a time | batched engine | sweep engine | sweep / "
        "batched | sweep engine, 1 thread |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]
    if args.profile:
        lines += ["Where a step's time goes (PyTorch's profiler, self time by operator, 2 threads):", "",
                  *profile(tokens), ""]
    results.report(lines, write=not args.no_write)


if __name__ == "__main__":
    main()
