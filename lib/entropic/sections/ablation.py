"""App. D, Table 5: the spectral-gap ablation. Is the sharp transition of §6 an artifact of the
sharp-gap teacher? The teacher kernel's top r* eigenvalues follow three profiles — sharp
(λ_i = 2 − (i−1)/(r*−1)), power-law (λ_i = 1/i), flat (λ_i = 1) — all else as in App. C.

Jobs, per (spectrum, seed): the rank sweep r = 1 … 2r* and the over-parameterized recovery student
(r = d). Used by ``notebooks/ablation.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from ..engine.synthetic import protocol
from ..engine.synthetic.tasks import SPECTRA, TEACHERS
from ..engine.synthetic.train import STOP_RULES
from ..jobs.config import (
    SectionConfig,
    distinct_ints,
    learning_rate,
    noise_level,
    one_of,
    param,
    positive_int,
    scale,
    some_of,
)
from ..jobs.store import Job
from ..report import figures, verdicts
from ..report.names import word
from ..report.numbers import listed, number, with_decimals
from ..report.verdicts import Claim

TITLE = "App. D The spectral-gap ablation (Table 5)"
TABLE = "tbl-ablation-table5"  # the label of the page's table beside the paper (the ledger links to it)

# What the paper says (App. D and Table 5: linear-QK teacher, T=10, d=12, r*=4): the recovered energy
# effective rank against the teacher kernel's, per spectrum; achievability in every regime.
CLAIMS = {
    "achievability": Claim("≈ 0 in every regime", None, "App. D, Table 5"),
    "deficiency": Claim("a transition at r* in every regime", None, "App. D, Table 5"),
    "knee": Claim("sharp gaps give abrupt transitions; gradual spectra give softer knees", None, "App. D, Table 5"),
    "flat": Claim("4.00 → 4.00", 4.00, "App. D, Table 5"),
    "sharp": Claim("3.57 → 3.57", 3.57, "App. D, Table 5"),
    "power_law": Claim("2.43 → 2.44", 2.44, "App. D, Table 5"),
}


@dataclass(frozen=True)
class Config(SectionConfig):
    teacher: str = param("linear_qk", "teacher (and student) type of eq. 9", one_of(*TEACHERS))
    spectra: tuple = param(SPECTRA, "teacher spectra over the top r* directions", some_of(*SPECTRA))
    T: int = param(10, "tokens per sequence", positive_int)
    d: int = param(12, "width", positive_int)
    r_star: int = param(4, "teacher kernel rank r*", positive_int)
    n: int = param(3000, "training sequences per task", positive_int)
    seeds: tuple = param((0, 1, 2, 3, 4), "one task per seed and spectrum", distinct_ints(0))
    sigma: float = param(0.05, "observation noise standard deviation", noise_level)
    steps: int = param(1500, "Adam steps of the rank sweep r = 1 … 2r*", positive_int)
    recovery_steps: int = param(2500, "Adam steps of the over-parameterized (r = d) student", positive_int)
    recovery_init: float = param(0.3, "initialization scale of W_Q, W_K for recovery (App. C.4)", scale)
    lr: float = param(0.01, "Adam learning rate, full batch", learning_rate)
    stop: str = param("fixed", "stop rule: fixed (the paper's steps) or converged", one_of(*STOP_RULES))

    def validate(self):
        if 2 * self.r_star > self.d:
            raise ValueError(f"the sweep r = 1 … 2·r_star needs 2·r_star <= d, got r_star={self.r_star}, d={self.d}")

    @property
    def paper_setting(self) -> bool:
        return self.same_as_paper("teacher", "T", "d", "r_star", "sigma")


def jobs(cfg: Config) -> list[Job]:
    out = []
    for spectrum in cfg.spectra:
        for seed in cfg.seeds:
            task = cfg.slice("teacher", "T", "d", "r_star", "n", "sigma", "lr", "stop", seed=seed, spectrum=spectrum)
            units = protocol.units(task, cfg.steps, cfg.recovery_steps, cfg.recovery_init)
            out += [Job(f"{cfg.teacher}-{spectrum}-r{cfg.r_star}-seed{seed}-{kind}", params)
                    for kind, params in units.items()]
    return out


def fit(job: Job) -> dict[str, list[dict]]:
    """A sweep job trains r = 1 … 2r*; a recovery job one student of rank d and measures its kernel."""
    return protocol.run(job.params)


def noise_floor(results) -> float:
    return float(results["sweep"]["noise_floor"].iloc[0])


def per_spectrum(results) -> pd.DataFrame:
    """One row per spectrum: the excess around r*, and the recovered vs the teacher's energy rank."""
    sweep, rec, r_star = results["sweep"], results["recovery"], results.cfg.r_star
    excess = sweep.pivot_table(index="spectrum", columns="r", values="excess", aggfunc="mean")
    by = rec.groupby("spectrum")
    out = pd.DataFrame({
        "excess at r*−1": excess.get(r_star - 1),
        "excess at r*": excess[r_star],
        "max |excess|, r ≥ r*": sweep[sweep["r"] >= r_star].groupby("spectrum")["excess"].agg(
            lambda e: e.abs().max()),
        "R̃_eff(K*)": by["teacher_energy_effective_rank"].mean(),
        "R̃_eff(K), learned": by["energy_effective_rank"].mean(),
        "R_eff(K), learned": by["effective_rank"].mean(),
        "unstable students": by["unstable"].sum().astype(int),
    })
    if r_star >= 2:
        out.insert(3, "knee softness", knee_softness(sweep, r_star).groupby("spectrum")["softness"].mean())
    return out.loc[[s for s in results.cfg.spectra if s in out.index]]


def knee_softness(sweep: pd.DataFrame, r_star: int) -> pd.DataFrame:
    """Per (spectrum, seed): the share of the r = 1 excess left at r = r*−1. Near 1 the excess stays up until
    the last rank before r* and drops there (an abrupt knee); near 0 it has mostly decayed before r* (a
    soft knee). For Gaussian inputs it is Σ_{j≥r*} λ_j² / Σ_{j≥2} λ_j² of the teacher's spectrum."""
    at = sweep.pivot_table(index=["spectrum", "seed"], columns="r", values="excess")
    return (at[r_star - 1] / at[1]).rename("softness").reset_index()


def regimes(results) -> pd.DataFrame:
    """Per spectrum: whether deficiency (every student below r* clearly above the floor), achievability (every
    student from r* on at the floor) and recovery (every seed's learned R̃_eff within 10 % of the teacher's) hold,
    beside the numbers each is read from (the mean excess at r*−1, the largest |excess| from r* on)."""
    cfg, floor, sweep, rec = results.cfg, noise_floor(results), results["sweep"], results["recovery"]
    rows = {}
    for spectrum in cfg.spectra:
        own, mine = sweep[sweep["spectrum"] == spectrum], rec[rec["spectrum"] == spectrum]
        above = own[own["r"] >= cfg.r_star]
        rows[spectrum] = {
            "deficiency": verdicts.clearly_above_floor(own[own["r"] < cfg.r_star]["excess"], floor),
            "achievability": verdicts.at_floor(above["excess"], floor),
            "recovery": verdicts.tracks_teacher(mine["energy_effective_rank"], mine["teacher_energy_effective_rank"]),
            "excess at r*−1": own[own["r"] == cfg.r_star - 1]["excess"].mean(),
            "max |excess| from r*": above["excess"].abs().max()}
    return pd.DataFrame.from_dict(rows, orient="index")


def compare(results) -> pd.DataFrame:
    """Table 5 beside the paper: deficiency and achievability, each one claim of the paper "in every regime", judged
    once over every spectrum; recovery per spectrum (the paper gives a number for each); the knee's softness. Each
    "ours" is written in the form of the paper's cell (``shown``): a recovery row as "teacher → learned" energy
    effective rank at the paper's two decimals ("3.57 → 3.57"), the row judged over every spectrum as its number
    then every other spectrum's, the knee as the power-law softness against the others'."""
    cfg, sweep, rec, rows = results.cfg, results["sweep"], results["recovery"], []
    regime = regimes(results)

    def every(column: str, first: str) -> str:  # the row's spectrum and number, then every other spectrum's
        rest = ", ".join(f"{s} {number(v)}" for s, v in regime[column].items() if s != first)
        return f"{number(regime.loc[first, column])} ({first}" + (f"; {rest})" if rest else ")")

    deficient = sweep[sweep["r"] == cfg.r_star - 1]
    lowest = regime["excess at r*−1"].idxmin() if regime["excess at r*−1"].notna().any() else cfg.spectra[0]
    rows.append(verdicts.row("mean excess at r = r*−1: the lowest over the spectra", regime["excess at r*−1"].min(),
                             CLAIMS["deficiency"], "deficiency", bool(regime["deficiency"].all()), estimator="training",
                             se=verdicts.seed_se(deficient, lambda f: f.groupby("spectrum")["excess"].mean().min()),
                             shown=every("excess at r*−1", lowest)))
    above = sweep[sweep["r"] >= cfg.r_star]
    rows.append(verdicts.row("max |excess| at r ≥ r*: the largest over the spectra",
                             regime["max |excess| from r*"].max(), CLAIMS["achievability"], "achievability",
                             bool(regime["achievability"].all()), estimator="training",
                             se=verdicts.max_abs_se(above, "excess"),
                             shown=every("max |excess| from r*", regime["max |excess| from r*"].idxmax())))
    for spectrum in cfg.spectra:
        mine = rec[rec["spectrum"] == spectrum]
        claim = CLAIMS[spectrum] if cfg.paper_setting else Claim("tracks R̃_eff(K*)", None,
                                                                           f"App. D, Table 5: {spectrum}")
        rows.append(verdicts.row(f"{spectrum}: R̃_eff(K*) → learned R̃_eff(K)",
                                 mine["energy_effective_rank"].mean(), claim, "recovery",
                                 bool(regime.loc[spectrum, "recovery"]), estimator="training",
                                 se=verdicts.mean_se(mine, "energy_effective_rank"),
                                 shown=_pair(mine["teacher_energy_effective_rank"].mean(),
                                             mine["energy_effective_rank"].mean())))
    spectra = set(cfg.spectra)
    if cfg.r_star >= 3 and {"power_law", "sharp"} <= spectra:
        soft = knee_softness(sweep, cfg.r_star).pivot(index="seed", columns="spectrum", values="softness")
        others = [s for s in ("sharp", "flat") if s in spectra]
        holds = bool(all((soft["power_law"] < soft[s]).all() for s in others))
        rows.append(verdicts.row("knee softness, power-law against " + " and ".join(others),
                                 soft["power_law"].mean(), CLAIMS["knee"], "knee", holds, estimator="training",
                                 shown=f"{number(soft['power_law'].mean())} against "
                                       + " and ".join(number(soft[s].mean()) for s in others)))
    return verdicts.table(rows)


def _pair(teacher: float, learned: float) -> str:
    """The teacher's and the learned energy effective rank as the paper writes them: "4.00 → 4.00"."""
    return f"{with_decimals(teacher, 2)} → {with_decimals(learned, 2)}"


def facts(results, table: pd.DataFrame | None = None) -> dict:
    """Every number and sentence the page's prose quotes; ``table``: the comparison the page shows (``compare``),
    computed here where the caller has none."""
    cfg, cells, regime = results.cfg, per_spectrum(results), regimes(results)
    table = compare(results) if table is None else table
    out = {"floor": noise_floor(results), "r_star": cfg.r_star}
    for spectrum, row in cells.iterrows():
        out[f"{spectrum}_teacher"] = float(row["R̃_eff(K*)"])
        out[f"{spectrum}_learned"] = float(row["R̃_eff(K), learned"])
        out[f"{spectrum}_knee"] = float(row["excess at r*−1"]) if pd.notna(row["excess at r*−1"]) else float("nan")
    knees = cells["excess at r*−1"].dropna()
    out["knees"] = ", ".join(f"{number(v)} ({s})" for s, v in knees.items()) or "no deficient rank trained"
    out["recovery_pairs"] = "; ".join(f"{_pair(row['R̃_eff(K*)'], row['R̃_eff(K), learned'])} ({s})"
                                      for s, row in cells.iterrows())
    out["holding"] = _holding(table, regime)
    out["differs"] = _differs(table, cells)
    out["knee_reading"] = knee_reading(cells)
    out["knee_place"] = knee_place(regime)
    return out


def knee_place(regime: pd.DataFrame) -> str:
    """Whether the knee keeps its place at r* on every spectrum (``regimes``): every deficient student above the
    band and every student from r* on inside it."""
    moved = [spectrum for spectrum, row in regime.iterrows() if not (row["deficiency"] and row["achievability"])]
    if not moved:
        return ("The knee changes shape, not place: on every spectrum each student below $r^*$ lies above the band "
                "and each from $r^*$ on inside it.")
    return (f"The knee does not keep its place at $r^*$ on the {listed([word(s) for s in moved])} "
            f"spectr{'a' if len(moved) > 1 else 'um'}: a student below $r^*$ inside the band or one from $r^*$ on "
            "above it.")


def knee_reading(cells: pd.DataFrame) -> str:
    """What the knees' figure shows one rank before r*, from the seed means: the share of its r = 1 excess each
    spectrum keeps there, the softest knee first."""
    shares = cells["knee softness"].dropna().sort_values()
    if shares.empty:
        return ""
    kept = [f"the {word(s)} spectrum keeps {number(v)}" if i == 0 else f"the {word(s)} {number(v)}"
            for i, (s, v) in enumerate(shares.items())]
    return f"At $r = r^*-1$ {listed(kept)} of its excess at $r = 1$."


def _holding(table: pd.DataFrame, regime: pd.DataFrame) -> str:
    """Which claims hold on our data, in the comparison's own words, naming the spectra where one does not (from
    ``regimes``); then the knee."""
    kinds = [kind for kind in ("deficiency", "achievability", "recovery") if kind in set(table["kind"])]
    failing = {kind: [s for s, holds in regime[kind].items() if not holds] for kind in kinds}
    holding = [kind for kind in kinds if not failing[kind]]
    parts = []
    if holding:
        parts.append(f"{listed(holding)} hold{'' if len(holding) > 1 else 's'} on our data for every spectrum")
    parts += [f"{kind} is not reproduced: it does not hold for the {listed(failing[kind])} "
              f"spectr{'a' if len(failing[kind]) > 1 else 'um'}" for kind in kinds if failing[kind]]
    text = "; ".join(parts)
    if "knee" in set(table["kind"]):
        holds = bool(table.loc[table["kind"] == "knee", "claim holds"].all())
        text += ("; " if text else "") + ("the softer knee of the power-law spectrum holds" if holds
                                          else "the softer knee of the power-law spectrum is not reproduced")
    return text[:1].upper() + text[1:] + "."


def _differs(table: pd.DataFrame, cells: pd.DataFrame) -> str:
    """Where a recovery value differs from the paper's: our student against its own teacher, beside the paper's."""
    parts = []
    for quantity, row in table[(table["kind"] == "recovery") & (table["value agrees"] == False)].iterrows():  # noqa: E712
        spectrum = quantity.partition(":")[0]
        teacher, learned = cells.loc[spectrum, "R̃_eff(K*)"], cells.loc[spectrum, "R̃_eff(K), learned"]
        text = (f"for the {spectrum} spectrum the paper reads {row['paper says']}, ours {_pair(teacher, learned)}: our "
                f"student lies within {number(abs(learned - teacher), 1)} of its teacher")
        paper = re.fullmatch(r"\s*(\d+\.\d+)\s*→\s*(\d+\.\d+)\s*", row["paper says"])
        if paper and float(paper[2]) != float(paper[1]):
            gap = float(paper[2]) - float(paper[1])
            text += f", the paper's {number(abs(gap))} {'above' if gap > 0 else 'below'} its own"
        parts.append(text)
    if not parts:
        paper = table[table["kind"] == "recovery"]["paper value"].notna().any()
        return "Every recovered value is the paper's." if paper else ""
    return "Where a value differs, " + "; ".join(parts) + "."


def figure_knees(results):
    """The three knees overlaid: excess risk against the student's rank, one line per spectrum."""
    return figures.excess_vs_rank(results["sweep"], noise_floor(results), hue="spectrum", mark=results.cfg.r_star)
