"""Verdicts: one criterion per kind of claim, one rule for values, applied the same way in every table.

Every row of a comparison table sets one number of ours beside what the paper says (its own wording,
and where) and decides two things separately:

* whether the paper's **claim** holds on our data, by the criterion of its kind (``CRITERIA``);
* whether our **value** agrees with the paper's number (``VALUE_RULE``): within 2√2 standard errors of
  ours, the standard error estimated by resampling our seeds (each seed is a fresh task draw and a fresh
  initialization, so the spread covers both); 2√2 = 2·√2 because the paper's number is itself an
  estimate from as many seeds, with (we assume) the same spread. Never tighter than the paper's own
  rounding (3.57 stands for [3.565, 3.575)). A count or an integer must be equal; a value the paper
  states as a bound ("≤ 0.003") agrees when ours is within the bound plus that margin.

The two are independent tests: an achievability claim can hold (every excess inside the band) while our
value differs from the paper's (5×10⁻⁴ against 2×10⁻⁴ is outside our seeds' spread).

Verdicts: ``reproduced`` (claim holds and value agrees), ``claim holds, value differs``, ``not
reproduced`` (the claim fails on our data), ``not significant`` (a sign claim whose correlation has a
permutation p-value ≥ 0.05: the data decide nothing, for want of power), ``undecided`` (a declared rule says
the data cannot decide yet, e.g. a reading still moving with the training budget), and ``undefined`` where the
data are too few. The last three are never counted as failures.
A claim the paper makes without a number is judged on the claim alone (its value column is a dash).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .numbers import listed, number

FLOOR_BAND = 0.05  # |excess| ≤ 5 % of the noise floor: at the floor; > 5 % for every seed: clearly above
RECOVERY_TOLERANCE = 0.10  # |R̃_eff(learned) − R̃_eff(teacher)| ≤ 10 % of R̃_eff(teacher)
CV_THRESHOLD = 0.10  # the paper's seed-stability threshold (§6, App. B.3)
SIGNIFICANCE = 0.05  # a correlation's permutation p-value below this decides its sign
VALUE_Z = 2 * math.sqrt(2)  # values agree within VALUE_Z standard errors of ours (see the module docstring)
BOOTSTRAP = 200  # resamples of the seeds for a standard error (its own error: about 5 %)

REPRODUCED = "reproduced"
CLAIM_HOLDS = "claim holds, value differs"
NOT_REPRODUCED = "not reproduced"
NOT_SIGNIFICANT = "not significant"
UNDECIDED = "undecided"  # a declared rule says the data cannot decide yet (e.g. still moving with the budget)
UNDEFINED = "undefined"  # too few data to decide, e.g. a correlation across fewer than 3 corpora
NOT_CHECKED = "not checked"  # a claim of the paper no table of this book decides (the ledger lists them)
VERDICTS = (REPRODUCED, CLAIM_HOLDS, NOT_REPRODUCED, NOT_SIGNIFICANT, UNDECIDED, UNDEFINED, NOT_CHECKED)
DECIDED = (REPRODUCED, CLAIM_HOLDS, NOT_REPRODUCED)  # the verdicts that decide a claim either way

VALUE_RULE = ("|ours − paper| ≤ the larger of 2√2 × the standard error of ours over seeds (bootstrap over seeds, "
              "each a fresh task draw) and the rounding of the paper's number (half a unit in its last digit); a "
              "count or an integer must be equal; a bound (\"≤ 0.003\") or a range (\"17–23\") agrees when ours "
              "lies within it at the paper's rounding: it states what every cell of the paper's grid did, not an "
              "estimate with a spread")

CRITERIA = {
    "achievability": f"every seed's |excess| ≤ {FLOOR_BAND:.0%} of the noise floor",
    "deficiency": f"every seed's excess > {FLOOR_BAND:.0%} of the noise floor",
    "recovery": f"every seed's learned R̃_eff within {RECOVERY_TOLERANCE:.0%} of the teacher's R̃_eff",
    "recovery (paper's reading)": "round(seed mean of R_eff(K)) = r* in every cell: the paper's own reading",
    "seed stability": f"CV_seed ≤ {CV_THRESHOLD}",
    "predictability": "the data-only numerical rank equals r* for every seed",
    "energy prediction": f"every seed's data-only R̃_eff within {RECOVERY_TOLERANCE:.0%} of the teacher's R̃_eff",
    "over-estimate": f"every seed's data-only R̃_eff above the teacher's R̃_eff by more than {RECOVERY_TOLERANCE:.0%}",
    "saturation": "for every r*, every seed's value exceeds 1.5·r*",
    "monotone": "the seed means increase strictly with r*",
    "knee": "the power-law spectrum keeps a smaller share of its r = 1 excess at r = r*−1 than the sharp and the "
            "flat spectra, in every seed (a softer knee: the excess has mostly decayed before r*)",
    "sign": f"the correlation has the paper's sign and a permutation p-value below {SIGNIFICANCE} (else: not "
            f"significant)",
    "no relationship": f"the correlation's permutation p-value is at least {SIGNIFICANCE}: no relationship the "
                       f"corpora can show",
    "progress": f"across corpora, the final loss correlates negatively with the measured rank (permutation p below "
                f"{SIGNIFICANCE}, else: not significant) while the predicted rank does not correlate positively "
                f"and significantly",
    "trajectory": "along training, the measured rank and the validation loss move in opposite directions "
                  "(Spearman over the checkpoints < 0) in every corpus × width cell",
    "near one": f"the ratio lies within {RECOVERY_TOLERANCE:.0%} of 1 (the book's tolerance for '≈', as for recovery)",
    "range": "ours lies in the range the quantity states in brackets [ ] (an ordering, a threshold or a count)",
    "exactness": f"no estimator is exact on the whole grid; one is exact when its integer rank equals r* and its "
                 f"R̃_eff is within {RECOVERY_TOLERANCE:.0%} of the teacher's R̃_eff in every task",
}


# What produced "ours" in a row: every row names its estimator's kind (a row over several estimators joins
# their kinds with " + "). The paper's sense of "pre-training" (§6, §7) covers the kinds marked True.
ESTIMATOR_KINDS = {
    "training": ("students trained as the paper trains them: Adam on the training loss, rank-constrained", False),
    "trained models, measured": ("spectral measures of language models trained on the corpora (App. B)", False),
    "data statistic": ("a statistic of the data alone: no model, no fit of a student", True),
    "closed form": ("a closed-form regression on the data (recovered scores or operators): no iterative fit, "
                    "never the student's training loss", True),
    "alternation of closed forms": ("least-squares V-steps alternated with closed-form K-steps: the paper's "
                                    "V-unknown estimator", True),
    "convex regression on recovered attention": ("a convex fit (cross-entropy) of the attention rows recovered "
                                                 "from the data: never the student's training loss", True),
    "maximum likelihood (= training)": ("the global minimizer of the unconstrained attention layer's training "
                                        "loss, by L-BFGS: a full-rank student trained to convergence, with a "
                                        "data-chosen rank threshold", False),
}


def estimator_kinds(kind: str) -> list[str]:
    """The kinds named in ``kind`` ("a + b" for a row over several estimators); ValueError for an unknown one."""
    parts = [part.strip() for part in str(kind).split(" + ")]
    unknown = [p for p in parts if p not in ESTIMATOR_KINDS]
    if unknown or not kind:
        raise ValueError(f"unknown estimator kind(s) {unknown or [kind]}; expected some of {list(ESTIMATOR_KINDS)}")
    return parts


def pre_training(kind: str) -> bool:
    """Whether every estimator of ``kind`` is of the paper's pre-training sense (no fit of a student)."""
    return all(ESTIMATOR_KINDS[part][1] for part in estimator_kinds(kind))


SIGNED = ("sign", "progress")  # kinds whose verdict is "not significant" when the correlation's p ≥ SIGNIFICANCE


@dataclass(frozen=True)
class Claim:
    """What the paper says about one quantity: its own wording, its value (None if it states no
    number), and where it says it."""

    says: str
    value: float | None
    where: str
    range: tuple[float, float] | None = None  # a range the paper states for the quantity ("17–23"), if any

    @property
    def resolution(self) -> float:
        """Half a unit in the last digit of the paper's number as the paper writes it (28.5 → 0.05, ≈ 16 →
        0.5): a value inside that interval is the paper's number, rounded as the paper rounded it."""
        if self.value is None:
            return 0.0
        for token in re.findall(r"\d+(?:\.\d+)?", self.says.replace("−", "-")):
            if math.isclose(float(token), abs(self.value), rel_tol=1e-9):
                decimals = len(token.partition(".")[2])
                return 0.5 * 10.0**-decimals
        decimals = len(repr(abs(float(self.value))).partition(".")[2].rstrip("0"))
        return 0.5 * 10.0**-decimals


# --- the criteria -----------------------------------------------------------------------------------

def at_floor(excess, noise_floor: float) -> bool:
    """Achievability: every seed's |excess| ≤ FLOOR_BAND · noise floor."""
    return bool(np.all(np.abs(np.asarray(excess, dtype=float)) <= FLOOR_BAND * noise_floor))


def clearly_above_floor(excess, noise_floor: float) -> bool:
    """Deficiency: every seed's excess > FLOOR_BAND · noise floor."""
    return bool(np.all(np.asarray(excess, dtype=float) > FLOOR_BAND * noise_floor))


def tracks_teacher(learned, teacher) -> bool:
    """Recovery: every seed's learned energy effective rank within RECOVERY_TOLERANCE of the teacher's."""
    learned, teacher = np.asarray(learned, dtype=float), np.asarray(teacher, dtype=float)
    return bool(np.all(np.abs(learned - teacher) <= RECOVERY_TOLERANCE * teacher))


def over_estimates(estimated, teacher) -> bool:
    """Over-estimate: every seed's estimate above the teacher's energy rank by more than RECOVERY_TOLERANCE."""
    estimated, teacher = np.asarray(estimated, dtype=float), np.asarray(teacher, dtype=float)
    return bool(np.all(estimated > (1 + RECOVERY_TOLERANCE) * teacher))


def saturates(values, r_stars) -> bool:
    """Saturation: every value exceeds 1.5 · its r*."""
    return bool(np.all(np.asarray(values, dtype=float) > 1.5 * np.asarray(r_stars, dtype=float)))


def increasing(means) -> bool:
    """Monotone: the values (seed means ordered by r*) increase strictly."""
    return bool(np.all(np.diff(np.asarray(means, dtype=float)) > 0))


def seed_stable(cv: float) -> bool:
    """Seed stability: a CV_seed (``coefficient_of_variation`` over seeds) at most CV_THRESHOLD."""
    return bool(cv <= CV_THRESHOLD)


# --- the value rule ---------------------------------------------------------------------------------

def seed_se(frame: pd.DataFrame, statistic: Callable[[pd.DataFrame], float], by: str = "seed",
            resamples: int = BOOTSTRAP) -> float:
    """Standard error of ``statistic(frame)`` from resampling the seeds (the values of column ``by``) with
    replacement, every row of a drawn seed kept together. 0 with a single seed (no spread to measure)."""
    rows = [np.flatnonzero(frame[by].to_numpy() == label) for label in pd.unique(frame[by])]
    if len(rows) < 2:
        return 0.0
    rng = np.random.default_rng(0)
    values = [statistic(frame.iloc[np.concatenate([rows[i] for i in rng.integers(0, len(rows), len(rows))])])
              for _ in range(resamples)]
    return float(np.std(values, ddof=1))


def value_check(ours: float, claim: Claim, se: float = 0.0, exact: bool = False,
                upper_bound: bool = False, spread: tuple[float, float] | None = None) -> tuple[bool | None, str]:
    """(agrees, tolerance as shown) by ``VALUE_RULE``; agrees is None when the paper states no number. A range
    claim (``claim.range``) is met when ``spread`` (our smallest and largest value, default ``ours``) lies in it;
    a bound (``upper_bound``) when ours is at most the bound: both at the paper's rounding."""
    if claim.range is not None:
        low, high = claim.range
        lo, hi = spread if spread is not None else (ours, ours)
        digits = max(len(repr(float(b)).partition(".")[2].rstrip("0")) for b in claim.range)
        half = 0.5 * 10.0**-digits  # the rounding of the range as the paper writes it
        return bool(low - half <= lo and hi <= high + half), f"within {number(low)}–{number(high)}"
    if claim.value is None:
        return None, "—"
    if exact:
        return bool(ours == claim.value), "equal"
    if upper_bound:
        return bool(ours <= claim.value + claim.resolution), f"≤ {number(claim.value)} (its rounding)"
    slack = max(VALUE_Z * se, claim.resolution)
    return bool(abs(ours - claim.value) <= slack), f"±{number(slack, 2)}"


def verdict(claim_holds: bool, agrees: bool | None, significant: bool | None = None) -> str:
    if significant is False:
        return NOT_SIGNIFICANT
    if not claim_holds:
        return NOT_REPRODUCED
    return REPRODUCED if agrees in (True, None) else CLAIM_HOLDS


def row(quantity: str, ours: float, claim: Claim, kind: str, holds: bool, *, estimator: str, se: float = 0.0,
        exact: bool = False, upper_bound: bool = False, p_value: float | None = None,
        spread: tuple[float, float] | None = None, undecided: str | None = None, shown: str | None = None) -> dict:
    """One row of a comparison table; ``kind`` names its criterion in ``CRITERIA``, ``estimator`` the kind of
    what computed ``ours`` (``ESTIMATOR_KINDS``), ``se`` is the seed standard error of ``ours`` (``seed_se``)
    that sets the value tolerance; ``p_value`` is shown, and for a ``sign`` or ``progress`` claim a
    p ≥ SIGNIFICANCE makes the verdict ``not significant``; ``spread`` is our range for a range claim;
    ``undecided`` names why a declared rule leaves the claim undecided (e.g. "budget"), which makes the verdict
    ``undecided``; ``shown`` is our value as the table writes it where its unit or form is not a plain number
    ("layer 0: 25–31", "62–64 of 64"), the number ``ours`` staying what the rules judge."""
    estimator_kinds(estimator)
    agrees, tolerance = value_check(float(ours), claim, se, exact, upper_bound, spread)
    significant = bool(p_value < SIGNIFICANCE) if kind in SIGNED and p_value is not None else None
    decided = UNDECIDED if undecided else verdict(holds, agrees, significant)
    return {"quantity": quantity, "paper says": claim.says, "where": claim.where, "paper value": claim.value,
            "ours": float(ours), "kind": kind, "estimator": estimator, "criterion": CRITERIA[kind],
            "claim holds": bool(holds),
            "value tolerance": tolerance, "value agrees": agrees, "se": float(se), "exact": exact,
            "upper bound": upper_bound, "p": p_value, "undecided": undecided or "", "verdict": decided,
            "paper range": claim.range, "spread": spread, "ours shown": shown or ""}


def undefined(quantity: str, claim: Claim, kind: str, why: str, *, estimator: str) -> dict:
    """A row whose data are too few to decide (named in ``why``)."""
    return {**row(f"{quantity} — undefined: {why}", math.nan, claim, kind, False, estimator=estimator),
            "value agrees": None,
            "value tolerance": "—", "verdict": UNDEFINED}


def table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows).set_index("quantity")


def counts(comparison: pd.DataFrame) -> dict[str, int]:
    """``verdict -> count`` over a comparison table, every verdict listed (zeros included), in VERDICTS order."""
    found = comparison["verdict"].value_counts()
    return {v: int(found.get(v, 0)) for v in VERDICTS}


def summary_markdown(comparison: pd.DataFrame) -> str:
    """Counts of verdicts, one line."""
    parts = [f"**{n}** {v}" for v, n in counts(comparison).items() if n]
    return "Verdicts: " + ", ".join(parts) + "."


def mean_se(frame: pd.DataFrame, column: str, by: str = "seed") -> float:
    """Seed standard error of the mean of ``column`` (see ``seed_se``)."""
    return seed_se(frame, lambda f: f[column].mean(), by)


def max_abs_se(frame: pd.DataFrame, column: str, by: str = "seed") -> float:
    """Seed standard error of the largest |value| of ``column`` (see ``seed_se``)."""
    return seed_se(frame, lambda f: f[column].abs().max(), by)


def differing(table: pd.DataFrame) -> str:
    """What differs from the paper in a comparison ``table``, said from its verdicts: per kind of claim (in the table's
    order), the rows whose claim holds with another value, then those whose claim fails, each row named by what its
    quantity is of ("B1", "linear") or, without one, by its quantity; "Nothing differs" where every row reproduces the
    paper."""
    from .names import word

    def of(rows: pd.DataFrame) -> str:
        kinds = {}
        for quantity, kind in zip(rows.index, rows["kind"], strict=True):
            subject, colon, _ = str(quantity).partition(":")
            kinds.setdefault(kind, []).append(word(subject) if colon else str(quantity))
        return listed([f"{kind} ({', '.join(subjects)})" for kind, subjects in kinds.items()])

    value = table[table["verdict"] == CLAIM_HOLDS]
    failed = table[table["verdict"] == NOT_REPRODUCED]
    parts = ([f"the claim holds with another value for {of(value)}"] if len(value) else []) + \
            ([f"the claim fails for {of(failed)}"] if len(failed) else [])
    if not parts:
        return "Nothing differs: every row reproduces the paper's value."
    return "What differs: " + " and ".join(parts) + "."
