"""§4's specification: the section's parameters (``Config``), the paper's claims (``CLAIMS``) and its jobs:
per seed, the rank sweep r = 1 … 2r* (one batch of students), the over-parameterized recovery student
(r = T, small initialization), and the data-only estimate of r* (no training)."""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.synthetic.protocol import RECOVERY_STOP
from ...engine.synthetic.tasks import SPECTRA
from ...engine.synthetic.train import STOP_RULES
from ...jobs.config import SectionConfig, distinct_ints, learning_rate, noise_level, one_of, param, positive_int, scale
from ...jobs.store import Job
from ...report.verdicts import Claim

TITLE = "§4 The linear surrogate (Table 1)"
TABLE = "tbl-surrogate-table1"  # the label of the page's table beside the paper (the ledger links to it)

# What the paper says (§4, "Empirical validation", and Table 1; T=16, d=12, r*=3).
CLAIMS = {
    "excess_r1": Claim("28.5", 28.5, "§4, Table 1"),
    "excess_r2": Claim("8.8", 8.8, "§4, Table 1"),
    "excess_at_r_star": Claim("≈ 2×10⁻⁴", 2e-4, "§4, Table 1"),
    "mp_corrected": Claim("2.97", 2.97, "§4, Table 1"),
    "data_only_rank": Claim("exactly 3", 3, "§4, Table 1"),
}
# What is claimed where the paper's numbers do not apply, and the paper's noise floor (Table 1's caption).
DEFICIENCY = Claim("> floor (Theorem 1)", None, "§4, Theorem 1")
PAPER_FLOOR = 0.48


@dataclass(frozen=True)
class Config(SectionConfig):
    T: int = param(16, "tokens per sequence", positive_int)
    d: int = param(12, "width", positive_int)
    r_star: int = param(3, "rank of the teacher operator A*", positive_int)
    sigma: float = param(0.05, "observation noise standard deviation", noise_level)
    n: int = param(3000, "training sequences per seed", positive_int)
    seeds: tuple = param((0, 1, 2, 3, 4), "one task per seed", distinct_ints(0))
    steps: int = param(1500, "Adam steps of the rank sweep r = 1 … 2r*", positive_int)
    recovery_steps: int = param(2500, "Adam steps of the over-parameterized (r = T) student", positive_int)
    recovery_init: float = param(0.3, "initialization scale of the recovery student", scale)
    lr: float = param(0.01, "Adam learning rate, full batch", learning_rate)
    spectrum: str = param("sharp", "teacher spectrum: sharp (eq. 8), power_law or flat (App. D)", one_of(*SPECTRA))
    stop: str = param("fixed", "stop rule: fixed (the paper's steps) or converged", one_of(*STOP_RULES))

    def validate(self):
        if 2 * self.r_star > self.T:
            raise ValueError(f"the rank sweep r = 1 … 2·r_star needs 2·r_star <= T, got r_star={self.r_star}, "
                             f"T={self.T}")

    @property
    def paper_setting(self) -> bool:
        """Whether the paper's Table 1 numbers apply (same task; sizes of training may differ)."""
        return self.same_as_paper("T", "d", "r_star", "sigma", "spectrum")


def jobs(cfg: Config) -> list[Job]:
    out = []
    for seed in cfg.seeds:
        task = cfg.slice("T", "d", "r_star", "sigma", "n", "spectrum", seed=seed)
        out.append(Job(f"seed{seed}-sweep", {"kind": "sweep", **task, **cfg.slice("steps", "lr", "stop")}))
        out.append(Job(f"seed{seed}-recovery", {"kind": "recovery", **task, **cfg.slice("lr"), "stop": RECOVERY_STOP,
                                                "steps": cfg.recovery_steps, "init_scale": cfg.recovery_init}))
        out.append(Job(f"seed{seed}-data", {"kind": "data_only", **task}))
    return out
