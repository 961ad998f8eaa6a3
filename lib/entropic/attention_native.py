"""§6, Table 3: the attention-native intrinsic rank on the full teacher grid (App. C).

Used by ``notebooks/attention_native.md``. For each teacher type and r*, the rank sweep r = 1 … 2r*
of every seed trains as one batched program (students of a task share X); the over-parameterized
recovery students (r = d, initialized × ``recovery_init``) of all r* and seeds of a teacher train as
another. Memory stays bounded because the trainer accumulates each step over chunks of samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch

from . import paper, results, spectral
from .configs import AttentionGridConfig
from .models import QKStudents
from .tasks import Task, make_attention_task
from .train import train

RECOVERY_TOLERANCE = 0.10  # |R̃_eff(K) − R̃_eff(K*)| ≤ 10 % of R̃_eff(K*) counts as tracking the teacher


@dataclass
class GridResults:
    """sweep: teacher, r_star, seed, r, loss, excess. recovery: teacher, r_star, seed, loss, excess,
    effective_rank, energy_effective_rank (learned K), teacher_effective_rank, teacher_energy_effective_rank."""

    config: AttentionGridConfig
    sweep: pd.DataFrame
    recovery: pd.DataFrame
    noise_floor: float


def train_grid_batch(tasks: list[Task], ranks: list[int], cfg: AttentionGridConfig, steps: int,
                     init_scale: float, progress: bool, desc: str) -> tuple[torch.Tensor, list[float]]:
    """Train students of ``ranks`` on every task (one group per task) as one batched program;
    returns the learned kernels (G, S, D, D) and the final losses, group-major."""
    students = QKStudents([t.seed for t in tasks], ranks, cfg.T, cfg.d, init_scale=init_scale,
                          softmax=tasks[0].kind == "softmax_qk")
    X, Y = torch.stack([t.X for t in tasks]), torch.stack([t.Y for t in tasks])
    fit = train(students, X, Y, steps, cfg.lr, progress, desc=desc)
    return students.kernel().detach().cpu(), fit.final_loss.reshape(-1).tolist()


def run(cfg: AttentionGridConfig, progress: bool = True) -> GridResults:
    sweep_rows, recovery_rows = [], []
    floor = None
    for teacher in cfg.teachers:
        all_tasks = []
        for r_star in cfg.r_stars:
            tasks = [make_attention_task(teacher, cfg.T, cfg.d, r_star, cfg.n, cfg.sigma, seed, cfg.spectrum)
                     for seed in cfg.seeds]
            floor = tasks[0].noise_floor
            all_tasks += tasks
            ranks = list(range(1, 2 * r_star + 1))
            _, losses = train_grid_batch(tasks, ranks, cfg, cfg.steps, 1.0, progress, f"§6 {teacher} r*={r_star}")
            students = [(t.seed, r) for t in tasks for r in ranks]  # group-major, like the losses
            sweep_rows += [{"teacher": teacher, "r_star": r_star, "seed": seed, "r": r, "loss": loss,
                            "excess": loss - floor} for (seed, r), loss in zip(students, losses, strict=True)]
        kernels, losses = train_grid_batch(all_tasks, [cfg.d], cfg, cfg.recovery_steps, cfg.recovery_init,
                                           progress, f"§6 {teacher} recovery")
        K, K_star = kernels[:, 0], torch.stack([t.operator for t in all_tasks])
        stats = {"effective_rank": spectral.effective_rank(K),
                 "energy_effective_rank": spectral.energy_effective_rank(K),
                 "teacher_effective_rank": spectral.effective_rank(K_star),
                 "teacher_energy_effective_rank": spectral.energy_effective_rank(K_star)}
        recovery_rows += [{"teacher": teacher, "r_star": t.r_star, "seed": t.seed, "loss": loss,
                           "excess": loss - floor, **{k: float(v[g]) for k, v in stats.items()}}
                          for g, (t, loss) in enumerate(zip(all_tasks, losses, strict=True))]
    return GridResults(cfg, pd.DataFrame(sweep_rows), pd.DataFrame(recovery_rows), floor)


def per_r_star(res: GridResults) -> pd.DataFrame:
    """The Table 3 grid: one row per (teacher, r*), seed means, recovery flags and CV_seed."""
    sweep = res.sweep.assign(offset=res.sweep["r"] - res.sweep["r_star"])
    excess = sweep.pivot_table(index=["teacher", "r_star"], columns="offset", values="excess", aggfunc="mean")
    table = pd.DataFrame({
        "excess at r*−1": excess.get(-1),
        "excess at r*": excess[0],
        "max |excess| for r ≥ r*": sweep[sweep["offset"] >= 0].groupby(["teacher", "r_star"])["excess"]
        .apply(lambda e: e.abs().max()),
    })
    rec = res.recovery.groupby(["teacher", "r_star"])
    table["R_eff(K)"] = rec["effective_rank"].mean()
    table["R̃_eff(K)"] = rec["energy_effective_rank"].mean()
    table["R_eff(K*)"] = rec["teacher_effective_rank"].mean()
    table["R̃_eff(K*)"] = rec["teacher_energy_effective_rank"].mean()
    table["CV_seed"] = rec["effective_rank"].apply(results.coefficient_of_variation)
    table["round(R_eff) = r*"] = table["R_eff(K)"].round() == table.index.get_level_values("r_star")
    table["R̃_eff tracks K*"] = ((table["R̃_eff(K)"] - table["R̃_eff(K*)"]).abs()
                                 <= RECOVERY_TOLERANCE * table["R̃_eff(K*)"])
    return table


def compare(res: GridResults) -> pd.DataFrame:
    """Table 3 beside the paper, per teacher: deficiency, achievability, recovery, seed stability."""
    grid, floor, rows = per_r_star(res), res.noise_floor, []
    for teacher in res.config.teachers:
        t = grid.loc[teacher]
        deficient = t["excess at r*−1"].dropna()
        key = f"deficiency_{teacher.removesuffix('_qk')}_at_r_star_minus_1"
        if len(deficient):
            at_r_star = t.loc[deficient.index, "excess at r*"].abs()
            margin = (10 * at_r_star).clip(lower=results.FLOOR_TOLERANCE * floor)
            rows.append(results.comparison_row(
                f"{teacher}: mean excess at r = r*−1", float(deficient.mean()), paper.TABLE3[key],
                "deficiency: excess at r*−1 > 10 × |excess at r*| for every r* ≥ 2", bool((deficient > margin).all())))
        rows.append(results.achievability_row(
            f"{teacher}: max |excess| at r ≥ r*", float(t["max |excess| for r ≥ r*"].max()),
            paper.TABLE3["excess_at_r_star"], floor, " for every r ≥ r*"))
        n = len(t)
        for column, label in (("round(R_eff) = r*", "recovery, round(R_eff(K)) = r*"),
                              ("R̃_eff tracks K*", f"recovery, |R̃_eff(K) − R̃_eff(K*)| ≤ {RECOVERY_TOLERANCE:.0%}")):
            hits = int(t[column].sum())
            rows.append(results.comparison_row(
                f"{teacher}: {label} (count of {n})", hits, paper.TABLE3["recovery_count"] * n / 6,
                f"holds for all {n} values of r*", hits == n, rtol=0.0))
        rows.append(results.comparison_row(
            f"{teacher}: max CV_seed of R_eff(K)", float(t["CV_seed"].max()), paper.TABLE3["cv_seed_max"],
            "seed stability: CV_seed ≤ 0.10 (the paper's threshold)", bool(t["CV_seed"].max() <= 0.10),
            upper_bound=True))
    return results.comparison_table(rows)
