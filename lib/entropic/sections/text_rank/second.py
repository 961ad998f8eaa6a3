"""The capacity sweep read by its second declaration (``declared.SECOND``): r̂ on the non-increasing fit of the
seed means, its uncertainty over resamples of the seeds, the calibration at known ranks, and the three claims by
the second rule.

A *reading* is one corpus read with one set of students (``readings``): its seeds (three, or five where more were
trained) and, for a real corpus, where its full-width students come from (App. B's stored models, or the sweep's
engine: one engine for the whole curve). The reading that decides a corpus's outcome is its first in
``variants``; the others are shown beside it.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from . import analysis
from .analysis import APP_B, CONTRADICTED, MISSING, NOT_SIGNIFICANT, SUPPORTED, SWEEP, UNDECIDED, outcome_row
from .spec import ROUTING

RESAMPLES = 2000  # resamples of the seeds per reading
AGREEMENT = 0.90  # (a) is decided where at least this share of resamples gives the point reading's outcome
LEVEL = 0.90  # the interval of r̂ and of the CV: the 5th to the 95th percentile of the resamples
ONE_ENGINE, MIXED = "the sweep's engine", APP_B  # where a real corpus's full-width students come from


# --- one reading ---------------------------------------------------------------------------------------------


def read(losses: list[np.ndarray], grid: list[int]) -> dict:
    """r̂ of one curve by the second rule: ``losses`` holds the seeds' validation losses at each width of ``grid``
    (ascending). τ = 2 s √(2/n) (s the root mean of the per-width sample variances, n the fewest seeds); the
    curve read is the non-increasing fit of the seed means, each width weighted by its seeds; r̂ is the smallest
    width whose fitted loss is within τ of the fitted full-width loss. Returns r_hat, tau, fitted (N,)."""
    means = np.array([v.mean() for v in losses])
    s = math.sqrt(float(np.mean([v.var(ddof=1) for v in losses])))
    tau = analysis.tau_of(s, min(len(v) for v in losses))
    fitted = stats.decreasing_fit(means, [len(v) for v in losses])
    return {"r_hat": _smallest_within(fitted, tau, grid), "tau": tau, "fitted": fitted}


def _smallest_within(fitted: np.ndarray, tau: float, grid: list[int]) -> int:
    return int(grid[int(np.argmax(fitted - fitted[-1] <= tau))])


def resample(losses: list[np.ndarray], grid: list[int], seed: int, count: int = RESAMPLES) -> np.ndarray:
    """r̂ of ``count`` resamples (count,): in each, every width's seeds drawn with replacement (as many as there
    are), independently across widths, from NumPy's PCG64 generator seeded with ``seed``, and read by ``read``'s
    rule (τ recomputed from the resample)."""
    generator = np.random.default_rng(seed)
    means, variances = np.empty((count, len(losses))), np.empty((count, len(losses)))
    for i, v in enumerate(losses):
        drawn = v[generator.integers(0, len(v), size=(count, len(v)))]  # (count, seeds)
        means[:, i], variances[:, i] = drawn.mean(1), drawn.var(1, ddof=1)
    taus = analysis.tau_of(np.sqrt(variances.mean(1)), min(len(v) for v in losses))
    weights = [len(v) for v in losses]
    return np.array([_smallest_within(stats.decreasing_fit(m, weights), tau, grid)
                     for m, tau in zip(means, taus, strict=True)])


def percent(share: float) -> str:
    """A share as the page writes it: three significant digits, 99.9 % (never rounded up to 100 %)."""
    return f"{math.floor(share * 1000) / 10:g} %" if share < 1 else "100 %"


def seed_of(corpus: str) -> int:
    """The resamples' generator seed: the CRC-32 of the corpus's name (``declared.SECOND``)."""
    return zlib.crc32(corpus.encode())


def interval(draws: np.ndarray) -> tuple[int, int]:
    """The 90 % interval of resampled r̂: its 5th and 95th percentiles, each a width of the grid."""
    low, high = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], method="inverted_cdf")
    return int(low), int(high)


# --- the readings of every corpus ------------------------------------------------------------------------------


def variants(cfg, corpus: str) -> list[tuple[tuple, str]]:
    """The readings of ``corpus`` as (seeds, full width's source), the deciding one first: for a real corpus of
    ``one_engine`` the sweep's engine at every width, then App. B's full-width models with the same seeds, then
    (for a corpus of ``more_seeds_for``) the three seeds first declared; a routing corpus has one."""
    if corpus not in cfg.corpora or not cfg.reuse:
        return [(tuple(cfg.seeds_of(corpus) if corpus in cfg.corpora else cfg.seeds), SWEEP)]
    seeds = tuple(cfg.seeds_of(corpus))
    out = [(seeds, ONE_ENGINE)] if corpus in cfg.one_engine else []
    out.append((seeds, MIXED))
    if seeds != tuple(cfg.seeds):
        out.append((tuple(cfg.seeds), MIXED))
    return out


def selected(students: pd.DataFrame, cfg, seeds: tuple, source: str, tokens: int) -> pd.DataFrame:
    """The students of one reading (of one corpus's ``students``) at ``tokens``: its seeds, and at full width those
    of its ``source`` (the sweep's engine, or App. B's stored models)."""
    own = students[(students["tokens"] == tokens) & students["seed"].isin(seeds)]
    full = own["rank"] == cfg.widest
    if source == ONE_ENGINE:
        own = own[~full | (own["source"] == SWEEP)]
    elif source == MIXED:
        own = own[~full | (own["source"] == APP_B)]
    return own


def _losses(students: pd.DataFrame, cfg, seeds: tuple, source: str, tokens: int) -> dict[int, np.ndarray] | None:
    """The validation losses per width of one reading at ``tokens``; None unless every width holds every seed."""
    own = selected(students, cfg, seeds, source, tokens)
    out = {r: own[own["rank"] == r].sort_values("seed")["val_loss"].to_numpy(float) for r in cfg.ranks}
    return out if all(len(v) == len(seeds) for v in out.values()) else None


def readings(students: pd.DataFrame, cfg, budget: int, before: int | None) -> pd.DataFrame:
    """Every reading of every corpus asked (``variants``; the routing corpora first, by known rank) at ``budget``:
    seeds, full width's source, whether it decides, r̂, τ, the fitted gap of the next narrower width (nats and in
    τ), the (a) margin (the distance of the smallest fitted gap below the full width from τ), the resampled r̂
    (draws, mode and its share, 90 % interval), the agreement of (a), and r̂ at ``before`` (the budget (a) is
    checked against)."""
    grid = sorted(cfg.ranks)
    routing = [analysis.label(cfg, {"corpus": ROUTING, "routing_rank": k})
               for k in sorted({cfg.routing_rank, *cfg.known_ranks})]
    out = []
    for corpus in [*routing, *cfg.corpora]:
        own = students[students["corpus"] == corpus]
        for i, (seeds, source) in enumerate(variants(cfg, corpus)):
            row = {"corpus": corpus, "known_rank": analysis.known_rank(cfg, corpus), "seeds": len(seeds),
                   "seed_list": seeds, "full width": source, "decides": i == 0, "complete": False}
            losses = _losses(own, cfg, seeds, source, budget)
            if losses is not None:
                row |= _reading(list(losses.values()), grid, corpus, cfg.widest)
                earlier = _losses(own, cfg, seeds, source, before) if before else None
                row["r_hat_before"] = read(list(earlier.values()), grid)["r_hat"] if earlier else None
            out.append(row)
    return pd.DataFrame(out)


def _reading(losses: list[np.ndarray], grid: list[int], corpus: str, widest: int) -> dict:
    point = read(losses, grid)
    hat, tau, fitted = point["r_hat"], point["tau"], point["fitted"]
    draws = resample(losses, grid, seed_of(corpus))
    values, counts = np.unique(draws, return_counts=True)
    at = grid.index(hat)
    gap = float(fitted[at - 1] - fitted[-1]) if at else math.nan
    lowest = float((fitted[:-1] - fitted[-1]).min())
    return {"complete": True, "r_hat": hat, "tau": tau, "gap_below": gap, "gap_in_tau": gap / tau,
            "margin": abs(lowest - tau), "draws": draws, "mode": int(values[counts.argmax()]),
            "mode_share": float(counts.max() / len(draws)), "interval": interval(draws),
            "agreement": float(np.mean((draws < widest) == (hat < widest))), "fitted": fitted, "grid": grid}


def shown(found: dict, corpus: str):
    """The reading a figure or a sentence shows for ``corpus``: its deciding reading, or while that one is incomplete
    the first complete one (a row of ``readings``), or None."""
    table = found["readings"]
    own = table[(table["corpus"] == corpus) & table["complete"]]
    return own.iloc[0] if len(own) else None


# --- the calibration ---------------------------------------------------------------------------------------------


def calibration(table: pd.DataFrame, widest: int) -> pd.DataFrame:
    """Per known rank (the routing corpora's deciding readings): r̂, its interval, the share of resamples within
    one grid step of r* (r*/2 ≤ r̂ ≤ 2r*), whether r* is read (r̂ within one step, and at least ``AGREEMENT`` of the
    resamples), the share that tells it from the full width (r̂ < widest), and the knee's depth (the fitted gap
    one grid step below r*, in units of τ; NaN where r̂ is missing or r* is the grid's smallest)."""
    own = table[table["known_rank"].notna() & table["decides"]]
    out = []
    for _, row in own.iterrows():
        known = int(row["known_rank"])
        entry = {"corpus": row["corpus"], "known rank": known, "complete": bool(row["complete"])}
        if row["complete"]:
            draws = row["draws"]
            within = (draws >= known / 2) & (draws <= 2 * known)
            grid_at = row["grid"].index(known) if known in row["grid"] else None
            depth = (row["fitted"][grid_at - 1] - row["fitted"][-1]) / row["tau"] if grid_at else math.nan
            entry |= {"r_hat": int(row["r_hat"]), "interval": row["interval"], "within_share": float(within.mean()),
                      "read": bool(known / 2 <= row["r_hat"] <= 2 * known and within.mean() >= AGREEMENT),
                      "below_full_share": float((draws < widest).mean()), "knee_in_tau": float(depth)}
        out.append(entry)
    return pd.DataFrame(out).sort_values("known rank") if out else pd.DataFrame()


def calibrated_range(calib: pd.DataFrame) -> tuple[int, int] | None:
    """The span of known ranks read: from the smallest to the largest read, when every known rank between them
    is read too (None when none is read or the read ones are not contiguous)."""
    if calib.empty or not calib["complete"].all():
        return None
    read_ = calib[calib["read"]]["known rank"].tolist()
    if not read_:
        return None
    between = calib[(calib["known rank"] >= min(read_)) & (calib["known rank"] <= max(read_))]
    return (min(read_), max(read_)) if between["read"].all() else None


# --- the claims by the second rule -----------------------------------------------------------------------------------


def judge(results, appendix_b=None) -> dict:
    """The second declaration on the stored students: ``readings`` (every reading, ``readings``), ``calibration``
    (``calibration``), ``range`` (``calibrated_range``), ``outcomes`` (the claims' rows, as ``analysis.compare``
    writes them, with the agreement and interval behind each) and ``cv_draws`` (the CV of r̂ in each joint
    resample)."""
    cfg = results.cfg
    budget, before = analysis.budgets(results)
    table = readings(analysis.rows(results, appendix_b), cfg, budget, before)
    calib = calibration(table, cfg.widest)
    deciding = table[table["decides"]].set_index("corpus") if len(table) else pd.DataFrame()
    out = [_low_rank(corpus, deciding, calib, cfg) for corpus in cfg.corpora]
    real = [c for c in cfg.corpora if c in deciding.index and deciding.loc[c, "complete"]]
    found = {"readings": table, "calibration": calib, "range": calibrated_range(calib), "cv_draws": np.array([])}
    if len(real) < len(cfg.corpora) or len(real) < 3:
        for key in ("separates", "predicts"):
            out.append(outcome_row(key, "across corpora", math.nan, None, "not every corpus has its reading yet",
                                   missing=True))
        return found | {"outcomes": pd.DataFrame(out)}
    hats = pd.Series({c: float(deciding.loc[c, "r_hat"]) for c in real})
    draws = np.stack([deciding.loc[c, "draws"] for c in real], axis=1).astype(float)  # (resamples, corpora)
    cv_draws = draws.std(1) / draws.mean(1)
    found["cv_draws"] = cv_draws
    power_why = _power_why(deciding, cfg)
    out.append(separates(hats, cv_draws, analysis.variation(cfg, appendix_b), power_why))
    open_ = any(row["outcome"] in (UNDECIDED, MISSING) for row in out if row["key"] == "low_rank")
    out.append(predicts(hats, draws, analysis.predictor(appendix_b, hats.index), open_))
    return found | {"outcomes": pd.DataFrame(out)}


def _power_why(deciding: pd.DataFrame, cfg) -> str:
    """Why the power check keeps an outcome open ("" when it passes): the routing corpus of the power check read by
    the second rule must give its kernel's rank, as first declared."""
    if ROUTING not in deciding.index or not deciding.loc[ROUTING, "complete"]:
        return "power: the power check is not stored yet"
    hat = int(deciding.loc[ROUTING, "r_hat"])
    return "" if hat == cfg.routing_rank else f"power: the power check reads {hat}, not {cfg.routing_rank}"


def _low_rank(corpus: str, deciding: pd.DataFrame, calib: pd.DataFrame, cfg) -> dict:
    if corpus not in deciding.index or not deciding.loc[corpus, "complete"]:
        return outcome_row("low_rank", f"{corpus}: r̂ by the second rule", math.nan, None,
                           "its further students are not all stored yet", missing=True)
    row = deciding.loc[corpus]
    hat, (low, high), agree = int(row["r_hat"]), row["interval"], float(row["agreement"])
    holds = hat < cfg.widest
    why = _power_why(deciding, cfg)
    if not why and agree < AGREEMENT:
        why = f"within the seeds' spread: {percent(agree)} of resamples agree, {percent(AGREEMENT)} needed"
    if not why and pd.notna(row["r_hat_before"]) and (int(row["r_hat_before"]) < cfg.widest) != holds:
        why = "budget: the outcome differs at the budget before"
    if not why and not holds:
        why = _tells_full_width(calib, cfg.widest)
    quantity = (f"{corpus}: r̂ = {hat} of {cfg.widest} (90 % interval {low}–{high}, {int(row['seeds'])} seeds; "
                f"{percent(agree)} of resamples agree)")
    return outcome_row("low_rank", quantity, hat, holds, why)


def _tells_full_width(calib: pd.DataFrame, widest: int) -> str:
    """Why a contradiction stays open ("" when it may be decided): the calibration must tell its largest known rank
    below the full width from the full width in at least ``AGREEMENT`` of its resamples."""
    below = calib[calib["known rank"] < widest] if len(calib) else calib
    if below.empty or not below["complete"].all():
        return "calibration: the known ranks are not all stored yet"
    top = below.sort_values("known rank").iloc[-1]
    share = float(top["below_full_share"])
    return "" if share >= AGREEMENT else (f"calibration: at known rank {int(top['known rank'])} only {percent(share)} "
                                          f"of resamples read below {widest}")


def separates(hats: pd.Series, cv_draws: np.ndarray, beside: dict | None, power_why: str) -> dict:
    """(b) by the second rule (the third's too): the CV of ``hats`` against the bar, over the resamples' CVs
    ``cv_draws``; ``power_why`` a reason that keeps it open ("" when none)."""
    cv = stats.coefficient_of_variation(hats)
    low, high = np.quantile(cv_draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    bar = max(analysis.CV_LIMIT, float(beside["measures"].max()) if beside is not None else 0.0)
    supported = True if low > bar else False if high <= analysis.CV_LIMIT else None
    why = power_why or ("" if supported is not None else
                        f"within the seeds' spread: the interval {low:.2f}–{high:.2f} straddles the bar")
    shown = f"90 % interval {low:.2f}–{high:.2f}; the bar {bar:.3g} = max(0.20, App. B's largest model-side CV)"
    return outcome_row("separates", f"CV of r̂ across {len(hats)} corpora ({shown})", cv, supported, why,
                       beside=shown) | {"interval": (float(low), float(high)), "bar": bar}


def predicts(hats: pd.Series, draws: np.ndarray, pred: pd.Series | None, open_: bool) -> dict:
    """(c) by the second rule (the third's too): Pearson's r of App. B's predicted rank ``pred`` and ``hats`` with
    its exact permutation p, and its interval over the resamples ``draws`` (resamples, corpora)."""
    if pred is None or hats.nunique() < 2:
        return outcome_row("predicts", "Pearson(predicted rank, r̂)", math.nan, None,
                           "r̂ is the same for every corpus" if pred is not None else "App. B's predictor is missing")
    y = hats.loc[pred.index]
    r, p, rho = stats.pearson(pred, y), stats.permutation_p(pred.to_numpy(), y.to_numpy()), stats.spearman(pred, y)
    order = [list(hats.index).index(c) for c in pred.index]
    defined = [d[order] for d in draws if np.ptp(d[order]) > 0]
    low, high = np.quantile([stats.pearson(pred.to_numpy(), d) for d in defined], [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    significant = p < analysis.verdicts.SIGNIFICANCE
    shown = (f"p = {p:.2g}, |r| ≥ {stats.critical_r(len(pred)):.2f} needed; Spearman ρ = {rho:.2f}; 90 % interval "
             f"of r over resamples {low:.2f}–{high:.2f}")
    return outcome_row("predicts", f"Pearson(predicted rank, r̂) across {len(pred)} corpora ({shown})", r,
                       (r > 0) if significant else None, "a corpus's (a) is undecided or missing" if open_ else "",
                       beside=shown, otherwise=NOT_SIGNIFICANT, p=p) | {"interval": (float(low), float(high))}


__all__ = ["AGREEMENT", "CONTRADICTED", "LEVEL", "MIXED", "ONE_ENGINE", "RESAMPLES", "SUPPORTED", "calibrated_range",
           "calibration", "interval", "judge", "predicts", "read", "readings", "resample", "seed_of", "selected",
           "separates", "shown", "variants"]
