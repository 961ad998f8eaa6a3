"""Verdicts: one criterion per kind of claim, applied the same way in every table.

Every row of a comparison table sets one number of ours beside what the paper says (its own wording,
and where), decides whether the paper's **claim** holds on our data by the criterion of its kind, and,
separately, whether our **value** agrees with the paper's within a stated tolerance:

========================  ===============================================================================
kind                      the claim holds when …
========================  ===============================================================================
achievability             every seed's \\|excess\\| ≤ 5 % of the noise floor σ²Td
deficiency                every seed's excess > 5 % of the noise floor (clearly positive: outside the
                          achievability band for every seed, so no seed spread can explain it)
recovery                  every seed's learned energy effective rank (eq. 2) is within 10 % of the
                          teacher operator's own energy effective rank
seed stability            CV_seed ≤ 0.10 (the paper's threshold)
predictability            the data-only numerical rank equals r* for every seed
energy prediction         every seed's data-only energy effective rank is within 10 % of the teacher's
over-estimate             every seed's data-only energy effective rank exceeds the teacher's by > 10 %
saturation                for every r*, every seed's value exceeds 1.5 · r* (the estimate has lost r*)
monotone                  the seed means increase strictly with r*
range                     ours lies in the range the quantity states in brackets (the paper's claim as a
                          sign, an ordering or a count; App. B)
========================  ===============================================================================

Verdicts: ``reproduced`` (claim holds and value agrees), ``claim holds, value differs``, ``not
reproduced`` (the claim fails on our data), and ``undefined`` where the data are too few to decide.
A claim the paper makes without a number is compared on the claim alone (``value`` is then ``None``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

FLOOR_BAND = 0.05  # |excess| ≤ 5 % of the noise floor: at the floor; > 5 % for every seed: clearly above
RECOVERY_TOLERANCE = 0.10  # |R̃_eff(learned) − R̃_eff(teacher)| ≤ 10 % of R̃_eff(teacher)
CV_THRESHOLD = 0.10  # the paper's seed-stability threshold (§6, App. B.3)
VALUE_RTOL = 0.25  # default agreement of a value with the paper's: within 25 %

REPRODUCED = "reproduced"
CLAIM_HOLDS = "claim holds, value differs"
NOT_REPRODUCED = "not reproduced"
UNDEFINED = "undefined"  # too few data to decide, e.g. a correlation across fewer than 3 corpora
VERDICTS = (REPRODUCED, CLAIM_HOLDS, NOT_REPRODUCED, UNDEFINED)

CRITERIA = {
    "achievability": f"every seed's |excess| ≤ {FLOOR_BAND:.0%} of the noise floor",
    "deficiency": f"every seed's excess > {FLOOR_BAND:.0%} of the noise floor",
    "recovery": f"every seed's learned R̃_eff within {RECOVERY_TOLERANCE:.0%} of the teacher's R̃_eff",
    "seed stability": f"CV_seed ≤ {CV_THRESHOLD}",
    "predictability": "the data-only numerical rank equals r* for every seed",
    "energy prediction": f"every seed's data-only R̃_eff within {RECOVERY_TOLERANCE:.0%} of the teacher's R̃_eff",
    "over-estimate": f"every seed's data-only R̃_eff above the teacher's R̃_eff by more than {RECOVERY_TOLERANCE:.0%}",
    "saturation": "for every r*, every seed's value exceeds 1.5·r*",
    "monotone": "the seed means increase strictly with r*",
    "range": "ours lies in the range the quantity states in brackets [ ] (the paper's claim as a sign, an "
             "ordering or a count)",
}


@dataclass(frozen=True)
class Claim:
    """What the paper says about one quantity: its own wording, its value (None if it states no
    number), and where it says it."""

    says: str
    value: float | None
    where: str


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


def coefficient_of_variation(values) -> float:
    """std / mean over seeds (population std, App. C.5's CV_seed); 0 for a single seed."""
    values = np.asarray(values, dtype=float)
    return float(values.std() / values.mean()) if len(values) > 1 else 0.0


def seed_stable(values) -> bool:
    return coefficient_of_variation(values) <= CV_THRESHOLD


def value_agrees(ours: float, claim: Claim, rtol: float = VALUE_RTOL, atol: float = 0.0,
                 upper_bound: bool = False) -> bool | None:
    """|ours − paper| ≤ atol + rtol·|paper|; for a value the paper states as a bound ("≤ 0.003"),
    ours ≤ paper + atol + rtol·|paper|. None when the paper states no number."""
    if claim.value is None:
        return None
    slack = atol + rtol * abs(claim.value)
    return bool(ours <= claim.value + slack if upper_bound else abs(ours - claim.value) <= slack)


def verdict(claim_holds: bool, agrees: bool | None) -> str:
    if not claim_holds:
        return NOT_REPRODUCED
    return REPRODUCED if agrees in (True, None) else CLAIM_HOLDS


def row(quantity: str, ours: float, claim: Claim, kind: str, holds: bool, rtol: float = VALUE_RTOL,
        atol: float = 0.0, upper_bound: bool = False) -> dict:
    """One row of a comparison table; ``kind`` names its criterion in ``CRITERIA``."""
    agrees = value_agrees(ours, claim, rtol, atol, upper_bound)
    tolerance = "—" if claim.value is None else (f"±{atol:.3g}" if atol and not rtol else
                                                 f"±{rtol:.0%}" if not atol else f"±({atol:.3g} + {rtol:.0%})")
    if upper_bound and claim.value is not None:
        tolerance = f"≤ paper + {rtol:.0%}"
    return {"quantity": quantity, "paper says": claim.says, "where": claim.where, "paper value": claim.value,
            "ours": float(ours), "kind": kind, "criterion": CRITERIA[kind],
            "claim holds": bool(holds), "value tolerance": tolerance, "value agrees": agrees,
            "rtol": rtol, "atol": atol, "upper bound": upper_bound, "verdict": verdict(holds, agrees)}


def table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows).set_index("quantity")


SHOWN = ["paper says", "ours", "claim", "claim holds", "value tolerance", "verdict"]
COLOURS = {REPRODUCED: "#d8f0d8", CLAIM_HOLDS: "#fff3cd", NOT_REPRODUCED: "#f8d7da", UNDEFINED: "#e2e3e5"}


def styled(comparison: pd.DataFrame):
    """A comparison table for the book: the paper's wording, ours (3 significant digits), verdicts coloured."""
    shown = comparison.assign(**{"paper says": comparison["paper says"] + " (" + comparison["where"] + ")",
                                 "claim": comparison["kind"]})[SHOWN]
    return (shown.style.format({"ours": "{:.3g}"})
            .map(lambda v: f"background-color: {COLOURS.get(v, 'white')}", subset=["verdict"]))


def summary_markdown(comparison: pd.DataFrame) -> str:
    """Counts of verdicts, one line."""
    counts = comparison["verdict"].value_counts()
    return "Verdicts: " + ", ".join(f"**{n}** {v}" for v, n in counts.items()) + "."
