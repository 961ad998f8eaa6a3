"""The training engine with both stop rules beside a naive one-student-at-a-time loop, in one run.

Workload: a slice of the §6 Table 3 grid of App. C (T=16, d=32, both teachers, the r* and n given,
seed 0): per (teacher, r*) a rank sweep r = 1 … 2r* (1,500 steps) and one over-parameterized student
(r = d, init × 0.3, 2,500 steps), exactly the jobs of ``sections/attention_native``.

* naive loop: per student its own factored model (X W_Q)(X W_K)ᵀ X V / √d and its own Adam, one after
  another, fixed steps; timed for a few steps per student and extrapolated;
* engine, fixed steps: ``engine.synthetic.train.train`` on the job's batch of students; timed for a few steps and
  extrapolated (its cost is linear in the steps);
* engine, converged: the same jobs run to the end as the section runs them under ``stop=converged``
  (sweep students leave the batch once their loss has settled, capped at the paper's steps; recovery
  students run the paper's steps): measured, not extrapolated.

With ``--grid`` the workload is the whole Table 3 grid at the paper's sizes (n = 3000, r* ∈ {1, 2, 3, 4,
6, 8}, 5 seeds, both teachers: 120 jobs, 870,000 student-steps at the fixed step counts): the naive
loop is timed on a sample of students and the engine on a sample of jobs, both extrapolated; with
``--workers W`` the grid is then computed for real, fixed steps, through the results store on a Dask
``LocalCluster`` of W worker processes (every job of the ``paper`` profile of ``attention_native``,
stored entries replaced) and its wall time measured.

Usage: python benchmarks/bench_engine.py [--n 1000] [--r-stars 2 4] [--steps 10] [--device cpu|cuda]
       python benchmarks/bench_engine.py --grid [--workers 12] [--device cuda]
Appends a dated section to benchmarks/RESULTS.md (use --no-write to only print).
"""

from __future__ import annotations

import argparse
import math
import platform
import time

import results
import torch

from entropic.engine.synthetic import protocol
from entropic.engine.synthetic.models import QKStudents
from entropic.engine.synthetic.protocol import RECOVERY_STOP
from entropic.engine.synthetic.tasks import TEACHERS, make_attention_task
from entropic.engine.synthetic.train import rank_sweep, train

T, D, SIGMA, SWEEP_STEPS, RECOVERY_STEPS = 16, 32, 0.05, 1500, 2500


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def engine_seconds_per_step(task, ranks, init, device, steps):
    """Seconds per step of the engine on one job's batch of students (after one warm-up step)."""
    students = QKStudents([task.seed], ranks, T, D, init_scale=init, softmax=task.kind == "softmax_qk")
    train(students, task.X, task.Y, steps=1, progress=False, device=device)
    _sync(device)
    start = time.perf_counter()
    train(students, task.X, task.Y, steps=steps, progress=False, device=device)
    _sync(device)
    return (time.perf_counter() - start) / steps


def naive_seconds_per_step(task, rank, device, steps, warmup=2):
    """Seconds per step of one student trained alone: own parameters, own Adam, factored form."""
    X, Y = task.X.to(device), task.Y.to(device)
    gen = torch.Generator().manual_seed(rank)
    W_Q = (torch.randn(D, rank, generator=gen) / math.sqrt(D)).to(device).requires_grad_()
    W_K = (torch.randn(D, rank, generator=gen) / math.sqrt(D)).to(device).requires_grad_()
    V = (torch.randn(D, D, generator=gen) / math.sqrt(D)).to(device).requires_grad_()
    optimizer = torch.optim.Adam([W_Q, W_K, V], lr=1e-2)
    softmax = task.kind == "softmax_qk"

    def step():
        optimizer.zero_grad(set_to_none=True)
        scores = (X @ W_Q) @ (X @ W_K).transpose(-1, -2) / math.sqrt(D)
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


GRID_R_STARS, GRID_SEEDS, GRID_N = (1, 2, 3, 4, 6, 8), 5, 3000


def grid(args, device) -> list[str]:
    """The whole Table 3 grid: naive and engine extrapolated from samples, then (``--workers``) computed."""
    total = sum(len(TEACHERS) * GRID_SEEDS * (len(rank_sweep(r)) * SWEEP_STEPS + RECOVERY_STEPS)
                for r in GRID_R_STARS)
    naive_rate, engine_seconds = [], 0.0
    for teacher in TEACHERS:
        for r_star in GRID_R_STARS:
            task = make_attention_task(teacher, T, D, r_star, GRID_N, SIGMA, seed=0)
            for rank in (1, r_star, D):  # a sample of students: narrowest, at r*, recovery
                naive_rate.append(1 / naive_seconds_per_step(task, rank, device, args.steps))
            per_job = (engine_seconds_per_step(task, rank_sweep(r_star), 1.0, device, args.steps) * SWEEP_STEPS
                       + engine_seconds_per_step(task, [D], 0.3, device, args.steps) * RECOVERY_STEPS)
            engine_seconds += per_job * GRID_SEEDS
    naive_seconds = total / (sum(naive_rate) / len(naive_rate))
    rows = [f"| naive loop (one student at a time), extrapolated | {total / naive_seconds:,.0f} | "
            f"{naive_seconds / 60:.1f} min | 1.0× |",
            f"| batched engine, one process, job after job, extrapolated | {total / engine_seconds:,.0f} | "
            f"{engine_seconds / 60:.1f} min | {naive_seconds / engine_seconds:.1f}× |"]
    if args.workers:
        from entropic.jobs import runner

        start = time.perf_counter()
        result = runner.run("attention_native", args.profile, compute=True, force=True, progress=False,
                            cluster=f"local:{args.workers}")
        seconds = time.perf_counter() - start
        done = sum(e.provenance.get("seconds", 0) for e in result.entries if e.provenance.get("worker"))
        rows.append(f"| batched engine, {args.workers} worker processes (Dask LocalCluster), measured: "
                    f"{result.computed} jobs computed through the results store | {total / seconds:,.0f} | "
                    f"{seconds:.0f} s | {naive_seconds / seconds:.1f}× |")
        rows.append("")
        rows.append(f"The {result.computed} jobs took {done:.0f} s of job time in all ({done / max(seconds, 1e-9):.1f} "
                    f"jobs running at once on average).")
    return [f"Grid: App. C Table 3 at the paper's sizes (n = {GRID_N}, both teachers, r* ∈ {list(GRID_R_STARS)}, "
            f"{GRID_SEEDS} seeds): 120 jobs, {total:,} student-steps at the fixed step counts. Samples timed for "
            f"{args.steps} steps after a warm-up: the naive loop on 3 students per (teacher, r*) (ranks 1, r*, d), "
            f"the engine on the sweep and recovery job of seed 0 of each (teacher, r*).",
            "", "| engine | student-steps/s | whole grid | speed-up over the naive loop |", "|---|---|---|---|",
            *rows, ""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="sequences per task")
    parser.add_argument("--r-stars", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--steps", type=int, default=10, help="timed steps for the extrapolated engines")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--grid", action="store_true", help="the whole Table 3 grid at the paper's sizes")
    parser.add_argument("--workers", type=int, default=0, help="with --grid: compute it on this many processes")
    parser.add_argument("--profile", default="paper", help="with --workers: the profile computed (tiny: a check)")
    args = parser.parse_args()
    device = torch.device(args.device)
    if args.grid:
        stamp = results.stamp()
        where = torch.cuda.get_device_name() if device.type == "cuda" else f"CPU ({platform.machine()})"
        lines = [f"### {stamp} — {where}, torch {torch.__version__}", "", *grid(args, device)]
        results.report(lines, write=not args.no_write)
        return
    naive = fixed = converged = 0.0
    student_steps = converged_steps = 0
    lines_per_job = []
    for teacher in TEACHERS:
        for r_star in args.r_stars:
            task = make_attention_task(teacher, T, D, r_star, args.n, SIGMA, seed=0)
            for kind, ranks, steps, init in (("sweep", rank_sweep(r_star), SWEEP_STEPS, 1.0),
                                             ("recovery", [D], RECOVERY_STEPS, 0.3)):
                fixed += engine_seconds_per_step(task, ranks, init, device, args.steps) * steps
                naive += sum(naive_seconds_per_step(task, r, device, args.steps) for r in ranks) * steps
                start = time.perf_counter()
                rows = protocol.run({
                    "kind": kind, "teacher": teacher, "T": T, "d": D, "r_star": r_star, "n": args.n,
                    "sigma": SIGMA, "seed": 0, "spectrum": "sharp", "steps": steps, "lr": 1e-2,
                    "stop": "converged" if kind == "sweep" else RECOVERY_STOP, "init_scale": init})[kind]
                _sync(device)
                seconds = time.perf_counter() - start
                converged += seconds
                student_steps += len(ranks) * steps
                converged_steps += sum(row["steps_run"] for row in rows)
                mean_steps = sum(r["steps_run"] for r in rows) / len(rows)
                lines_per_job.append(f"| {teacher} r*={r_star} {kind} | {len(ranks)} | {mean_steps:.0f} / {steps} | "
                                     f"{seconds:.1f} s |")
    stamp = results.stamp()
    where = torch.cuda.get_device_name() if device.type == "cuda" else f"CPU ({platform.machine()})"
    lines = [
        f"### {stamp} — {where}, torch {torch.__version__}, {torch.get_num_threads()} threads",
        "",
        f"Jobs: both teachers × r* ∈ {args.r_stars} × seed 0 at n = {args.n} (T = {T}, d = {D}): "
        f"{student_steps:,} student-steps at the paper's step counts; the converged rule ran "
        f"{converged_steps:,} ({converged_steps / student_steps:.0%}). The naive loop and the fixed-step "
        f"engine were timed for {args.steps} steps per student or job and extrapolated; the converged engine "
        f"was run to the end.",
        "",
        "| engine | wall time for these jobs | speed-up over the naive loop |",
        "|---|---|---|",
        f"| naive loop, fixed steps (one student at a time) | {naive / 60:.1f} min | 1.0× |",
        f"| batched engine, fixed steps | {fixed / 60:.1f} min | {naive / fixed:.1f}× |",
        f"| batched engine, converged | {converged / 60:.1f} min | {naive / converged:.1f}× |",
        "",
        "Per job under the converged rule (mean steps run of the students / cap):",
        "",
        "| job | students | steps run | wall time |",
        "|---|---|---|---|",
        *lines_per_job,
        "",
    ]
    results.report(lines, write=not args.no_write)


if __name__ == "__main__":
    main()
