"""The frontier's specification: its parameters (``Config``), the paper's claims it judges (``CLAIMS``), the
estimators it runs and their kinds (``ESTIMATORS``), the goal and its tolerance, and its jobs (see the package
docstring for what each kind of job computes)."""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.synthetic.tasks import SPECTRA
from ...jobs.config import (
    SectionConfig,
    distinct_ints,
    non_negative,
    one_of,
    param,
    positive,
    positive_int,
    positive_values,
    some_of,
)
from ...jobs.store import Job
from ...report.verdicts import ESTIMATOR_KINDS, Claim

TITLE = "The softmax predictability frontier (beyond the paper)"
TABLE = "tbl-frontier-goal"  # the label of the page's table beside the paper (the ledger links to it)
REGIME = ("setting",)  # a re-key verifies one job of each setting (the grid, every held-out one, the phase cells)
READS = ("attention_native",)  # its page sets the Table 3 students' training cost beside the trained estimator's

# The Table 4 statements (saturation, over-estimate, no exact estimator) are decided once, on the paper's own
# estimators, by §6's Table 4 page; this page judges the limitation of §7 on an estimator of ours.
CLAIMS = {
    "limitation": Claim("Under softmax, no single pre-training estimator recovers r* across all ranks; open "
                        "problem (i): find one", None, "§7, Limitations and open problem (i)"),
}
CLOSED, ALTERNATION, CONVEX, TRAINING = "closed form", "alternation of closed forms", \
    "convex regression on recovered attention", "maximum likelihood (= training)"
ESTIMATORS = {  # name → (label on the page, given V*, kind: verdicts.ESTIMATOR_KINDS)
    "realized_mixer": ("realized mixer (the paper's)", True, CLOSED),
    "v_known_log": ("V-known log inversion with floor and centring (ours)", True, CLOSED),
    "v_known_least_squares": ("V-known least squares", True, TRAINING),
    "v_known_logistic": ("V-known logistic", True, CONVEX),
    "v_unknown_alternating": ("V-unknown alternating (the paper's scheme, our inversion)", False, ALTERNATION),
    "v_unknown_alternating_shrunk": ("V-unknown alternating, shrunk (the paper's scheme, our inversion and "
                                     "shrinkage)", False, ALTERNATION),
    "v_unknown_least_squares": ("V-unknown least squares", False, TRAINING),
    "v_unknown_logistic": ("V-unknown logistic", False, CONVEX),
}
assert all(kind in ESTIMATOR_KINDS for _, _, kind in ESTIMATORS.values())
PAPERS = ("realized_mixer",)  # the estimators run as the paper describes them; every other one is ours (or ours
# inside the paper's scheme: the alternation runs this book's inversion, with its floor and centring)
GOAL_ESTIMATOR = "v_unknown_logistic"  # the V-unknown estimator of the pre-training kind (see DECLARED)
TRAINED_ESTIMATOR = "v_unknown_least_squares"  # the maximum-likelihood fit: a trained full-rank student
GOAL_TOLERANCE = 0.15  # |R̃_eff − R̃_eff(K*)| allowed by the goal (ours), in every task
SEPARATION = 2.0  # a fit separates r* when σ_{r*}(K̂) ≥ SEPARATION · σ_{r*+1}(K̂)
PHASE = ("v_known_log", "v_unknown_least_squares")  # the two estimators of the phase diagrams
HOLDOUT = {"d16": ("d = 16", {"d": 16}), "d64": ("d = 64", {"d": 64}), "T8": ("T = 8", {"T": 8}),
           "T32": ("T = 32", {"T": 32}), "sigma0.1": ("σ = 0.1", {"sigma": 0.1}),
           "sigma0.2": ("σ = 0.2", {"sigma": 0.2}), "n300": ("n = 300", {"n": 300}),
           "n1000": ("n = 1000", {"n": 1000}), "power_law": ("power-law spectrum", {"spectrum": "power_law"}),
           "flat": ("flat spectrum", {"spectrum": "flat"})}
TASK = ("T", "d", "r_star", "n", "sigma", "seed", "spectrum")


@dataclass(frozen=True)
class Config(SectionConfig):
    T: int = param(16, "tokens per sequence", positive_int)
    d: int = param(32, "width", positive_int)
    r_stars: tuple = param((1, 2, 3, 4, 6, 8), "teacher kernel ranks r*", distinct_ints(1))
    n: int = param(3000, "sequences per task", positive_int)
    seeds: tuple = param((0, 1, 2, 3, 4), "one task per seed and r*", distinct_ints(0))
    sigma: float = param(0.05, "observation noise standard deviation", non_negative)
    spectrum: str = param("sharp", "teacher spectrum: sharp (eq. 8), power_law or flat (App. D)", one_of(*SPECTRA))
    # our choices (the paper states none): the existing estimators as on the Table 4 page, and the frontier's grids
    shrink_multiple: float = param(1.0, "shrinkage of the V-unknown alternating, in noise edges (as on the Table 4 "
                                   "page)", positive, stated=False)
    max_iter: int = param(50, "iteration cap of the V-unknown alternating (as on the Table 4 page)", positive_int,
                          stated=False)
    holdout: tuple = param(tuple(HOLDOUT), "held-out settings, each one change of the grid's", some_of(*HOLDOUT),
                           stated=False)
    holdout_r_stars: tuple = param((1, 4, 8), "ranks r* of the held-out settings", distinct_ints(1), stated=False)
    holdout_seeds: tuple = param((0, 1, 2), "seeds of the held-out settings", distinct_ints(0), stated=False)
    phase_ns: tuple = param((12, 25, 50, 100, 200, 400, 800, 3000), "sample sizes n of the phase diagrams",
                            distinct_ints(4), stated=False)
    phase_sigmas: tuple = param((0.05, 0.1, 0.2, 0.4, 0.8, 1.6), "noise levels σ of the (n, σ) diagram",
                                positive_values, stated=False)
    phase_ds: tuple = param((16, 24, 32, 48, 64), "widths d of the (n, d) diagram", distinct_ints(2), stated=False)
    phase_r_star: int = param(8, "r* of the (n, σ) and (n, d) diagrams", positive_int, stated=False)
    phase_seeds: tuple = param((0, 1, 2, 3, 4), "seeds of the phase diagrams", distinct_ints(0), stated=False)
    goal_phase_max_n: int = param(400, "largest n of the phase cells where the goal estimator runs too",
                                  positive_int, stated=False)
    student_r_stars: tuple = param((1, 4, 8), "ranks r* of the grid tasks on which an unconstrained student is "
                                   "trained beside the least-squares estimator", distinct_ints(1), stated=False)
    student_seeds: tuple = param((0,), "their seeds", distinct_ints(0), stated=False)

    def validate(self):
        widths = [self.d, *self.phase_ds] + [HOLDOUT[h][1].get("d", self.d) for h in self.holdout]
        if max(*self.r_stars, *self.holdout_r_stars, self.phase_r_star, *self.student_r_stars) > min(widths):
            raise ValueError(f"every r* (r_stars, holdout_r_stars, phase_r_star, student_r_stars) must be at most "
                             f"every width "
                             f"(d, phase_ds, held-out d), the smallest of which is {min(widths)}")

    @property
    def paper_setting(self) -> bool:
        return self.same_as_paper("T", "d", "r_stars", "n", "sigma", "spectrum")


def _params(cfg: Config, **task) -> dict:
    return {k: task.get(k, getattr(cfg, k, None)) for k in TASK}


def jobs(cfg: Config) -> list[Job]:
    out = []
    settings = [("grid", {}, cfg.r_stars, cfg.seeds)] + [(h, HOLDOUT[h][1], cfg.holdout_r_stars, cfg.holdout_seeds)
                                                         for h in cfg.holdout]
    for setting, change, r_stars, seeds in settings:
        for r_star in r_stars:
            for seed in seeds:
                task = _params(cfg, **change, r_star=r_star, seed=seed)
                for kind in ("existing", "least_squares", "logistic"):
                    extra = {"shrink_multiple": cfg.shrink_multiple, "max_iter": cfg.max_iter} if kind == "existing" \
                        else {}
                    out.append(Job(f"{setting}-r{r_star}-seed{seed}-{kind}",
                                   {"kind": kind, "setting": setting, **task, **extra}))
    cells = dict.fromkeys([(n, s, cfg.d, cfg.phase_r_star) for n in cfg.phase_ns for s in cfg.phase_sigmas]
                          + [(n, cfg.sigma, d, cfg.phase_r_star) for n in cfg.phase_ns for d in cfg.phase_ds]
                          + [(n, cfg.sigma, cfg.d, r) for n in cfg.phase_ns for r in cfg.r_stars])
    for (n, sigma, d, r_star) in cells:
        for seed in cfg.phase_seeds:
            out.append(Job(f"phase-n{n}-sigma{sigma:g}-d{d}-r{r_star}-seed{seed}",
                           {"kind": "phase", "setting": "phase",
                            **_params(cfg, n=n, sigma=sigma, d=d, r_star=r_star, seed=seed)}))
    for (n, sigma, d, r_star) in cells:
        if n > cfg.goal_phase_max_n:
            continue
        for seed in cfg.phase_seeds:
            out.append(Job(f"phase-goal-n{n}-sigma{sigma:g}-d{d}-r{r_star}-seed{seed}",
                           {"kind": "phase_goal", "setting": "phase",
                            **_params(cfg, n=n, sigma=sigma, d=d, r_star=r_star, seed=seed)}))
    for r_star in cfg.student_r_stars:
        for seed in cfg.student_seeds:
            out.append(Job(f"student-r{r_star}-seed{seed}", {"kind": "student", "setting": "student",
                                                              **_params(cfg, r_star=r_star, seed=seed)}))
    return out
