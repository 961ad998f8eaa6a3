"""§6, Table 3: the attention-native intrinsic rank on the full teacher grid (App. C).

Jobs, per (teacher, r*, seed): the rank sweep r = 1 … 2r* (one batch of students sharing the task's
X) and the over-parameterized recovery student (r = d, initialized × ``recovery_init``); for the teachers in
``trace_teachers``, the recovery student once more with its kernel read at every step (``trace``: the rank at the
loss minimum beside the rank at the last step).
Used by ``notebooks/attention_native.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.statistics import coefficient_of_variation
from ..engine.synthetic import protocol
from ..engine.synthetic.tasks import TEACHERS
from ..engine.synthetic.trace import recovery_trace
from ..engine.synthetic.train import STOP_RULES
from ..jobs.config import (
    learning_rate,
    one_of,
    param,
    positive_int,
    scale,
    some_of,
)
from ..jobs.grids import AttentionTaskGrid
from ..jobs.store import Job
from ..report import figures, verdicts
from ..report.numbers import counted, listed, number
from ..report.verdicts import Claim

TITLE = "§6 The attention-native grid (Table 3)"
TABLE = "tbl-attention_native-table3"  # the label of the page's table beside the paper (the ledger links to it)

# What the paper says (§6, Table 3 and its caption; App. C: T=16, d=32, 5 seeds).
CLAIMS = {
    "deficiency_linear_qk": Claim("∼450 at r = r*−1", 450.0, "§6, Table 3 caption"),
    "deficiency_softmax_qk": Claim("∼2.5 at r = r*−1", 2.5, "§6, Table 3 caption"),
}
TEACHER_WORDS = {"linear_qk": "linear", "softmax_qk": "softmax"}
CLEAN_CV = 0.10  # §6: the threshold of a clean signal, two orders of magnitude above the CV_seed ≤ 0.003 it states
# Table 3 states these for both teachers: each teacher's is a claim of its own (its place names the teacher), so
# the two can earn different verdicts.
CLAIMS |= {f"{key}_{teacher}": Claim(says, value, f"{where}, {TEACHER_WORDS[teacher]} teacher")
           for teacher in TEACHER_WORDS for key, (says, value, where) in {
               "achievability": ("≈ 0", None, "§6, Table 3"),
               "negative": ("slightly negative at r ≥ r* (finite-sample fitting of the noise)", None, "App. C.1"),
               "recovery": ("6/6 (R_eff(K) → r*)", 1.0, "§6, Table 3"),
               "cv_seed": ("≤ 0.003", 0.003, "§6")}.items()}


@dataclass(frozen=True)
class Config(AttentionTaskGrid):
    steps: int = param(1500, "Adam steps of the rank sweep r = 1 … 2r*", positive_int)
    recovery_steps: int = param(2500, "Adam steps of the over-parameterized (r = d) students", positive_int)
    recovery_init: float = param(0.3, "initialization scale of W_Q, W_K for recovery (App. C.4)", scale)
    lr: float = param(0.01, "Adam learning rate, full batch", learning_rate)
    stop: str = param("fixed", "stop rule: fixed (the paper's steps) or converged", one_of(*STOP_RULES))
    trace_teachers: tuple = param(("linear_qk",), "teachers whose recovery students are trained again with the "
                                  "kernel read at every step (the unstable ones)", some_of(*TEACHERS), stated=False)

    def validate(self):
        if 2 * max(self.r_stars) > self.d:
            raise ValueError(f"r_stars must lie in [1, d/2] so that the sweep r = 1 … 2·r* fits in d={self.d}, "
                             f"got {list(self.r_stars)}")

    @property
    def paper_setting(self) -> bool:
        return self.same_as_paper("T", "d", "sigma", "spectrum")


def jobs(cfg: Config) -> list[Job]:
    out = []
    for teacher in cfg.teachers:
        for r_star in cfg.r_stars:
            for seed in cfg.seeds:
                task = cfg.slice("T", "d", "n", "sigma", "spectrum", "lr", "stop", teacher=teacher, r_star=r_star,
                                 seed=seed)
                units = protocol.units(task, cfg.steps, cfg.recovery_steps, cfg.recovery_init)
                out += [Job(f"{teacher}-r{r_star}-seed{seed}-{kind}", params) for kind, params in units.items()]
    for teacher in [t for t in cfg.teachers if t in cfg.trace_teachers]:
        for r_star in cfg.r_stars:
            for seed in cfg.seeds:
                out.append(Job(f"{teacher}-r{r_star}-seed{seed}-trace", {
                    "kind": "trace", **cfg.slice("T", "d", "n", "sigma", "spectrum", "lr", teacher=teacher,
                                                 r_star=r_star, seed=seed, steps=cfg.recovery_steps,
                                                 init_scale=cfg.recovery_init)}))
    return out


def fit(job: Job) -> dict[str, list[dict]]:
    """A sweep job trains r = 1 … 2r*; a recovery job one student of rank d and measures its kernel."""
    return protocol.run(job.params)


def fit_trace(job: Job) -> dict[str, list[dict]]:
    """A trace job trains a recovery student again, reading its kernel at every step."""
    p = {k: v for k, v in job.params.items() if k != "kind"}
    return recovery_trace(**p)


# The trace has its own function, so its version key covers only the code it runs (sweep and recovery: ``fit``).
FITS = {"trace": fit_trace}


def noise_floor(results) -> float:
    return float(results["sweep"]["noise_floor"].iloc[0])


def grid(results) -> pd.DataFrame:
    """One row per (teacher, r*): seed means, the recovery checks, CV_seed and the students flagged unstable,
    in the rank sweep and among the recovery students apart."""
    sweep = results["sweep"].assign(offset=lambda s: s["r"] - s["r_star"])
    rec = results["recovery"]
    keys = ["teacher", "r_star"]
    excess = sweep.pivot_table(index=keys, columns="offset", values="excess", aggfunc="mean")
    out = pd.DataFrame({
        "excess at r*−1": excess.get(-1),
        "excess at r*": excess[0],
        "max |excess|, r ≥ r*": sweep[sweep["offset"] >= 0].groupby(keys)["excess"].apply(lambda e: e.abs().max()),
    })
    by = rec.groupby(keys)
    out["R_eff(K)"] = by["effective_rank"].mean()
    out["R̃_eff(K)"] = by["energy_effective_rank"].mean()
    out["R_eff(K*)"] = by["teacher_effective_rank"].mean()
    out["R̃_eff(K*)"] = by["teacher_energy_effective_rank"].mean()
    out["CV_seed"] = by["effective_rank"].apply(coefficient_of_variation)
    out["round(R_eff(K)) = r*"] = out["R_eff(K)"].round() == out.index.get_level_values("r_star")
    out["R̃_eff(K) tracks K*"] = by.apply(lambda g: verdicts.tracks_teacher(
        g["energy_effective_rank"], g["teacher_energy_effective_rank"]))
    out["unstable, rank sweep"] = sweep.groupby(keys)["unstable"].sum().astype(int)
    out["unstable, recovery"] = by["unstable"].sum().astype(int)
    return out


EXCESS_COLUMNS = ["excess at r*−1", "excess at r*", "max |excess|, r ≥ r*", "unstable, rank sweep"]
RECOVERY_COLUMNS = ["R_eff(K)", "R̃_eff(K)", "R_eff(K*)", "R̃_eff(K*)", "CV_seed", "R̃_eff(K) tracks K*",
                    "round(R_eff(K)) = r*", "unstable, recovery"]


def _max_cv(recovery: pd.DataFrame) -> float:
    """The largest CV_seed of R_eff(K) over the (teacher, r*) cells of ``recovery``."""
    return float(recovery.groupby(["teacher", "r_star"])["effective_rank"].apply(coefficient_of_variation)
                 .max())


def traced(results) -> pd.DataFrame:
    """Per (teacher, r*) of the retrained recovery students (``trace``): how many spike, the largest change of
    R̃_eff between the loss minimum and the last step, and whether recovery (R̃_eff within 10 % of the teacher's,
    every seed) holds read at the loss minimum and read at the last step."""
    if "trace" not in results.tables:
        return pd.DataFrame()
    trace = results["trace"].assign(moved=lambda t: (t["energy_rank_at_last"] - t["energy_rank_at_lowest"]).abs())
    by = trace.groupby(["teacher", "r_star"])
    return pd.DataFrame({
        "students": by.size(),
        "spiking": by["spikes"].sum().astype(int),
        "loss at last / at minimum (largest)": by.apply(lambda g: (g["last_loss"] / g["lowest_loss"]).max()),
        "steps of the minimum": by["lowest_step"].agg(lambda s: f"{s.min()}–{s.max()}"),
        "R̃_eff(K) at minimum": by["energy_rank_at_lowest"].mean(),
        "R̃_eff(K) at last step": by["energy_rank_at_last"].mean(),
        "largest change of R̃_eff(K)": by["moved"].max(),
        "recovered at minimum": by.apply(lambda g: verdicts.tracks_teacher(g["energy_rank_at_lowest"],
                                                                            g["teacher_energy_effective_rank"])),
        "recovered at last step": by.apply(lambda g: verdicts.tracks_teacher(g["energy_rank_at_last"],
                                                                              g["teacher_energy_effective_rank"])),
    })


def traced_shown(results) -> pd.DataFrame:
    """``traced`` as the page shows it, narrow enough for a desktop's column: each pair (at the loss minimum, at the
    last step) in one cell, "minimum → last"."""
    table = traced(results)
    if table.empty:
        return table
    pair = lambda a, b: [f"{x} → {y}" for x, y in zip(a, b, strict=True)]  # noqa: E731
    marks = {True: "✓", False: "✗"}
    return pd.DataFrame({
        "students (spiking)": [f"{n} ({k})" for n, k in zip(table["students"], table["spiking"], strict=True)],
        "largest loss rise, last / minimum": [number(v, 3) for v in table["loss at last / at minimum (largest)"]],
        "steps of the minimum": list(table["steps of the minimum"]),
        "R̃_eff(K), minimum → last": pair([f"{v:.2f}" for v in table["R̃_eff(K) at minimum"]],
                                         [f"{v:.2f}" for v in table["R̃_eff(K) at last step"]]),
        "largest change": [number(v, 2) for v in table["largest change of R̃_eff(K)"]],
        "recovered, minimum → last": pair(table["recovered at minimum"].map(marks),
                                          table["recovered at last step"].map(marks)),
    }, index=pd.MultiIndex.from_tuples([(WORDS[t], r) for t, r in table.index], names=["teacher", "r*"]))


def _trace_disagrees(results, teacher: str) -> bool:
    """Whether recovery read at the loss minimum and at the last step differ for some traced cell of ``teacher``."""
    table = traced(results)
    if table.empty or teacher not in table.index.get_level_values("teacher"):
        return False
    own = table.loc[teacher]
    return bool((own["recovered at minimum"] != own["recovered at last step"]).any())


def _of(teacher: str, key: str) -> Claim:
    """The paper's claim ``key`` for one teacher's row."""
    return CLAIMS[f"{key}_{teacher}"]


def compare(results) -> pd.DataFrame:
    """Table 3 beside the paper, per teacher: deficiency, achievability, recovery (by our criterion and by
    the paper's own reading), seed stability."""
    cfg, floor, rows = results.cfg, noise_floor(results), []
    sweep, cells = results["sweep"], grid(results)
    for teacher in [t for t in cfg.teachers if t in set(sweep["teacher"])]:  # (a partial run may lack some)
        own = sweep[sweep["teacher"] == teacher]
        deficient = own[own["r"] < own["r_star"]]
        if len(deficient):
            last = own[own["r"] == own["r_star"] - 1]
            claim = CLAIMS[f"deficiency_{teacher}"] if cfg.paper_setting else Claim("clearly positive", None, "§6")
            rows.append(verdicts.row(f"{teacher}: mean excess at r = r*−1", last["excess"].mean(), claim, "deficiency",
                                     verdicts.clearly_above_floor(deficient["excess"], floor), estimator="training",
                                     se=verdicts.mean_se(last, "excess")))
        above = own[own["r"] >= own["r_star"]]
        rows.append(verdicts.row(f"{teacher}: max |excess| at r ≥ r*", above["excess"].abs().max(),
                                 _of(teacher, "achievability"), "achievability",
                                 verdicts.at_floor(above["excess"], floor),
                                 estimator="training", se=verdicts.max_abs_se(above, "excess")))
        band = verdicts.FLOOR_BAND * floor
        mean_above = above["excess"].mean()
        rows.append(verdicts.row(f"{teacher}: mean excess at r ≥ r* [in (−{band:.2g}, 0)]", mean_above,
                                 _of(teacher, "negative"), "range", -band < mean_above < 0, estimator="training"))
        mine = cells.loc[teacher].dropna(subset=["R̃_eff(K)"])  # cells whose recovery students exist
        if mine.empty:
            continue
        hits = int(mine["R̃_eff(K) tracks K*"].astype(bool).sum())
        rows.append(verdicts.row(f"{teacher}: fraction of r* recovered, R̃_eff(K) ({hits}/{len(mine)}), read at the "
                                 f"last step", hits / len(mine), _of(teacher, "recovery"), "recovery",
                                 hits == len(mine), exact=True, estimator="training",
                                 undecided="the loss spikes move the rank" if _trace_disagrees(results, teacher)
                                 else None))
        rounded = int(mine["round(R_eff(K)) = r*"].astype(bool).sum())
        rows.append(verdicts.row(f"{teacher}: fraction of r* with round(R_eff(K)) = r* ({rounded}/{len(mine)})",
                                 rounded / len(mine), _of(teacher, "recovery"), "recovery (paper's reading)",
                                 rounded == len(mine), exact=True, estimator="training"))
        rec = results["recovery"][results["recovery"]["teacher"] == teacher]
        worst = _max_cv(rec)
        rows.append(verdicts.row(f"{teacher}: max CV_seed of R_eff(K)", worst, _of(teacher, "cv_seed"),
                                 "seed stability", verdicts.seed_stable(worst), upper_bound=True,
                                 se=verdicts.seed_se(rec, _max_cv), estimator="training"))
    return verdicts.table(rows)


def facts(results, table: pd.DataFrame | None = None) -> dict:
    """Every number and sentence the page's prose quotes; ``table``: the comparison the page shows (``compare``),
    computed here where the caller has none."""
    cfg, cells = results.cfg, grid(results)
    deficiency = cells["excess at r*−1"].groupby("teacher").mean()
    recovered = cells.dropna(subset=["R̃_eff(K)"])  # a partial run may lack some recovery students
    top_r_star = int(recovered.index.get_level_values("r_star").max())
    top = recovered.xs(top_r_star, level="r_star")
    misses = recovered[recovered["R̃_eff(K) tracks K*"].astype(bool)
                       & ~recovered["round(R_eff(K)) = r*"]].reset_index()
    missed = ", ".join(f"`{t}` at $r^* = {r}$" for t, r in zip(misses["teacher"], misses["r_star"], strict=True))
    unstable = results["recovery"][results["recovery"]["unstable"]]
    out = {
        "floor": noise_floor(results), "n": cfg.n, "cells": len(recovered), "top_r_star": top_r_star,
        "def_linear": float(deficiency.get("linear_qk", float("nan"))),
        "def_softmax": float(deficiency.get("softmax_qk", float("nan"))),
        "cv_max": float(cells["CV_seed"].max()),
        "round_hits": int(recovered["round(R_eff(K)) = r*"].sum()),
        "energy_hits": int(recovered["R̃_eff(K) tracks K*"].astype(bool).sum()),
        "top_teacher_reff": float(top["R_eff(K*)"].iloc[0]), "top_teacher_energy": float(top["R̃_eff(K*)"].iloc[0]),
        "round_fail_cells": missed or "no cell",
        "unstable_recovery": len(unstable), "unstable_sweep": int(results["sweep"]["unstable"].sum()),
        "unstable_by_teacher": ", ".join(f"{int((unstable['teacher'] == t).sum())} with the {WORDS[t]} teacher"
                                         for t in dict.fromkeys(results["recovery"]["teacher"])),
    }
    return out | _trace_facts(results, out) | {"cv_sentence": cv_sentence(out["cv_max"]),
                                               "excess_reading": excess_reading(results),
                                               "recovery_reading": recovery_reading(cells),
                                               "differing": verdicts.differing(compare(results) if table is None
                                                                               else table)}


def excess_reading(results) -> str:
    """What the excess figure shows, from the students: where the deficient students and those at r ≥ r* lie
    against the achievability band, and how far apart the two teachers' mean excess at r = r*−1 lies, in decades."""
    sweep, band = results["sweep"], verdicts.FLOOR_BAND * noise_floor(results)
    deficient, enough = sweep[sweep["r"] < sweep["r_star"]], sweep[sweep["r"] >= sweep["r_star"]]
    parts = []
    if len(deficient):
        parts.append(f"{counted((deficient['excess'] > band).sum(), len(deficient), 'deficient students')} lie above "
                     "the band")
    inside = counted((enough["excess"].abs() <= band).sum(), len(enough), "students")
    parts.append(f"{inside} at $r \\ge r^*$ inside it")
    text = listed(parts)
    step = sweep[sweep["r"] == sweep["r_star"] - 1].groupby("teacher")["excess"].mean()
    if {"linear_qk", "softmax_qk"} <= set(step.index) and (step > 0).all():
        decades = float(np.log10(step["linear_qk"] / step["softmax_qk"]))
        text += (f"; the mean excess at $r = r^*-1$ is {number(abs(decades), 2)} decades "
                 f"{'smaller' if decades > 0 else 'larger'} for softmax than for linear")
    return text[:1].upper() + text[1:] + "."


def recovery_reading(cells: pd.DataFrame) -> str:
    """What the recovery figure shows, from the seed means: in how many (teacher, r*) cells the learned energy rank
    lies within 10 % of the teacher's and how far at most, and in how many the learned Shannon rank lies above it."""
    cells = cells.dropna(subset=["R̃_eff(K)"])
    if cells.empty:
        return ""
    gap = (cells["R̃_eff(K)"] - cells["R̃_eff(K*)"]).abs().max()
    hits = int(cells["R̃_eff(K) tracks K*"].astype(bool).sum())
    above = int((cells["R_eff(K)"] > cells["R̃_eff(K*)"]).sum())
    within = f"{100 * verdicts.RECOVERY_TOLERANCE:g} %"
    return (f"Every seed's learned energy rank lies within {within} of the teacher's in "
            f"{counted(hits, len(cells), 'cells')} (the seed means at most {number(gap, 2)} apart), and the learned "
            f"Shannon rank above the teacher's energy rank in {counted(above, len(cells), 'cells')}.")


def cv_sentence(cv: float) -> str:
    """Where the largest seed CV lies against the paper's two numbers, in words the value decides."""
    def side(limit: float) -> str:
        return "below" if cv < limit else "above" if cv > limit else "at"

    stated = CLAIMS["cv_seed_linear_qk"].value
    return (f"The largest $\\mathrm{{CV}}_\\mathrm{{seed}}$ is {number(cv, 3)}, {side(CLEAN_CV)} the paper's threshold "
            f"of {CLEAN_CV:.2f} for a clean signal and {side(stated)} its stated {number(stated, 3)}.")


WORDS = TEACHER_WORDS


def _trace_facts(results, f: dict) -> dict:
    """The sentences on unstable students: where their rank is read, and whether the spikes move it."""
    unstable = (f"Adam at learning rate 10⁻² makes the loss of an over-parameterized linear student spike again and "
                f"again. The reported loss is the tail minimum, which a spike cannot raise; students whose loss rose "
                f"by more than 5 % within one step of the final window are flagged: {f['unstable_recovery']} recovery "
                f"students ({f['unstable_by_teacher']}) and {f['unstable_sweep']} rank-sweep students. The learned "
                f"kernel's rank is read at the last step, step {results.cfg.recovery_steps:,}.")
    table = traced(results)
    if table.empty:
        return {"trace_sentence": "", "unstable_text": unstable}
    n, spiking = int(table["students"].sum()), int(table["spiking"].sum())
    moved = float(table["largest change of R̃_eff(K)"].max())
    agree = bool((table["recovered at minimum"] == table["recovered at last step"]).all())
    teachers = " and ".join(WORDS[t] for t in dict.fromkeys(table.index.get_level_values("teacher")))
    sentence = (f"The spikes of the unstable {teachers}-teacher students do not move the rank read at their last "
                f"step: {n} of them trained again with the kernel read at every step ({spiking} spike) show "
                f"R̃_eff(K) at the loss minimum within {number(moved, 2)} of the last step's"
                + (", and recovery holds read at either." if agree else
                   ", but recovery read at the loss minimum differs from the last step's, so it is undecided."))
    return {"trace_sentence": sentence,
            "unstable_text": unstable + " " + sentence.replace("The spikes", "Their spikes", 1)}


def figure_excess(results):
    """Excess risk against r / r*, one line per r*, one panel per teacher."""
    sweep = results["sweep"].assign(ratio=lambda s: s["r"] / s["r_star"])
    return figures.excess_vs_rank(sweep, noise_floor(results), x="ratio", hue="r_star", col="teacher", mark=1.0,
                                  hue_name="r*", xlabel="r / r*")


def figure_recovery(results):
    """Effective and energy effective rank of the learned kernel against r*, and the teacher's own."""
    labels = {"effective_rank": "R_eff(K), learned (eq. 1)", "energy_effective_rank": "R̃_eff(K), learned (eq. 2)",
              "teacher_energy_effective_rank": "R̃_eff(K*), teacher (eq. 2)"}
    long = results["recovery"].rename(columns=labels).melt(
        id_vars=["teacher", "r_star", "seed"], value_vars=list(labels.values()), var_name="measure",
        value_name="rank")
    return figures.ranks_against_r_star(long, col="teacher")
