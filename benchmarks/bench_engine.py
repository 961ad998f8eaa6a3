"""Batched training engine vs. a naive one-student-at-a-time loop, side by side in one run.

Workload: the §6 Table 3 grid of App. C (T=16, d=32, r* ∈ {1,2,3,4,6,8}, both teachers, 5 seeds,
n=3000): per (teacher, r*) a rank sweep r = 1 … 2r* of 1,500 steps, plus one over-parameterized
student (r = d) per task for 2,500 steps: 540 students, 870,000 student-steps.

Both engines are timed on the same device for a few steps of every student group (after a warm-up)
and the rates are extrapolated to the full grid; the script says so in its output.
The naive baseline is what one writes first: per student, its own factored model
(X W_Q)(X W_K)ᵀ X V and its own Adam, trained one student after another.

Usage: python benchmarks/bench_engine.py [--n 3000] [--steps 3] [--device cpu|cuda] [--naive-sample 12]
Appends a dated section to benchmarks/RESULTS.md (use --no-write to only print).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch
from entropic.configs import AttentionGridConfig
from entropic.results import provenance

from entropic.engine.models import QKStudents
from entropic.engine.tasks import make_attention_task
from entropic.engine.train import train

RESULTS = Path(__file__).with_name("RESULTS.md")


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def batched_rate(students, X, Y, steps, device):
    """Seconds per step of the batched engine (``entropic.train.train``) on one group of students.

    One warm-up call first; the timed call includes the trainer's final evaluation pass, which
    makes the figure slightly pessimistic for the batched engine.
    """
    train(students, X, Y, steps=1, progress=False, device=device)
    _sync(device)
    start = time.perf_counter()
    train(students, X, Y, steps=steps, progress=False, device=device)
    _sync(device)
    return (time.perf_counter() - start) / steps


def naive_seconds_per_step(X, Y, rank, softmax, steps, device, warmup=2):
    """Seconds per step of one student trained alone: own parameters, own Adam, factored form."""
    d = X.shape[-1]
    gen = torch.Generator().manual_seed(rank)
    W_Q = (torch.randn(d, rank, generator=gen) / math.sqrt(d)).to(device).requires_grad_()
    W_K = (torch.randn(d, rank, generator=gen) / math.sqrt(d)).to(device).requires_grad_()
    V = (torch.randn(d, d, generator=gen) / math.sqrt(d)).to(device).requires_grad_()
    optimizer = torch.optim.Adam([W_Q, W_K, V], lr=1e-2)

    def step():
        optimizer.zero_grad(set_to_none=True)
        scores = (X @ W_Q) @ (X @ W_K).transpose(-1, -2) / math.sqrt(d)
        mixer = scores.softmax(-1) if softmax else scores
        loss = (mixer @ (X @ V) - Y).pow(2).sum((1, 2)).mean()
        loss.backward()
        optimizer.step()

    for _ in range(warmup):
        step()
    _sync(device)
    start = time.perf_counter()
    for _ in range(steps):
        step()
    _sync(device)
    return (time.perf_counter() - start) / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--steps", type=int, default=3, help="timed steps per group (after 2 warm-up steps)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--naive-sample", type=int, default=12,
                        help="students timed in the naive loop (spread over the grid), then extrapolated")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    device = torch.device(args.device)
    cfg = AttentionGridConfig(n=args.n)

    # The whole grid as (teacher, r*, ranks, steps, groups): sweep groups and one recovery group per teacher.
    plan = []
    for teacher in cfg.teachers:
        for r_star in cfg.r_stars:
            plan.append((teacher, r_star, list(range(1, 2 * r_star + 1)), cfg.steps, len(cfg.seeds)))
        plan.append((teacher, None, [cfg.d], cfg.recovery_steps, len(cfg.seeds) * len(cfg.r_stars)))
    total_student_steps = sum(len(ranks) * steps * groups for _, _, ranks, steps, groups in plan)

    batched_seconds, naive_samples = 0.0, []
    for teacher, r_star, ranks, steps, groups in plan:
        tasks = [make_attention_task(teacher, cfg.T, cfg.d, r_star or 1, args.n, cfg.sigma, seed)
                 for seed in range(groups)]
        X = torch.stack([t.X for t in tasks]).to(device)
        Y = torch.stack([t.Y for t in tasks]).to(device)
        students = QKStudents(list(range(groups)), ranks, cfg.T, cfg.d, softmax=teacher == "softmax_qk")
        per_step = batched_rate(students, X, Y, args.steps, device)
        batched_seconds += per_step * steps
        print(f"batched  {teacher:10s} r*={r_star!s:4s} {groups}×{len(ranks):2d} students: "
              f"{per_step * 1e3:8.1f} ms/step → {groups * len(ranks) / per_step:8.0f} student-steps/s")
        naive_samples += [(teacher, rank, X[0], Y[0]) for rank in ranks]

    # Ablation on one representative group: the same students, whole batch vs. sample chunks.
    tasks = [make_attention_task("softmax_qk", cfg.T, cfg.d, 4, args.n, cfg.sigma, seed) for seed in range(5)]
    X = torch.stack([t.X for t in tasks]).to(device)
    Y = torch.stack([t.Y for t in tasks]).to(device)
    ablation = {}
    for label, budget in (("one full batch", 10**15), ("sample chunks (default)", None)):
        students = QKStudents(list(range(5)), list(range(1, 9)), cfg.T, cfg.d, softmax=True)
        train(students, X, Y, steps=1, progress=False, device=device, chunk_elements=budget)
        _sync(device)
        start = time.perf_counter()
        train(students, X, Y, steps=args.steps, progress=False, device=device, chunk_elements=budget)
        _sync(device)
        ablation[label] = (time.perf_counter() - start) / args.steps

    stride = max(1, len(naive_samples) // args.naive_sample)
    timed = naive_samples[::stride][: args.naive_sample]
    naive_per_step = [naive_seconds_per_step(X, Y, rank, teacher == "softmax_qk", args.steps, device)
                      for teacher, rank, X, Y in timed]
    naive_rate = len(naive_per_step) / sum(naive_per_step)  # student-steps per second
    batched_rate_total = total_student_steps / batched_seconds
    naive_seconds = total_student_steps / naive_rate
    info = provenance()
    lines = [
        f"### {info['date']} — {info['device']}, torch {info['torch']}, {info['threads']} threads",
        "",
        f"Grid: App. C Table 3 at n = {args.n}: {sum(len(r) * g for _, _, r, _, g in plan)} students, "
        f"{total_student_steps:,} student-steps. Each group timed for {args.steps} steps after a warm-up; "
        f"the naive loop timed on {len(timed)} students spread over the grid; both extrapolated.",
        "",
        "| engine | student-steps/s | whole grid (extrapolated) |",
        "|---|---|---|",
        f"| naive loop (one student at a time) | {naive_rate:,.0f} | {naive_seconds / 60:.1f} min |",
        f"| batched engine | {batched_rate_total:,.0f} | {batched_seconds / 60:.1f} min |",
        "",
        f"Speed-up of the batched engine over the naive loop on the same device: "
        f"**{batched_rate_total / naive_rate:.1f}×**.",
        "",
        "Ablation, softmax teacher r* = 4 (5 seeds × 8 ranks = 40 students), seconds per step: "
        + "; ".join(f"{label} {seconds:.2f} s" for label, seconds in ablation.items()) + ".",
        "",
    ]
    print("\n".join(lines))
    if not args.no_write:
        with RESULTS.open("a") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
