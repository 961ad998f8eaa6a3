"""Comparison with the paper, verdicts, and provenance of every reproduced number.

A verdict is computed from data, never typed: each row states the paper's claim as a predicate on
our numbers (``claim_holds``) and a tolerance on the value itself.
"""

from __future__ import annotations

import datetime
import platform
import subprocess

import pandas as pd
import torch

from . import paths

FLOOR_TOLERANCE = 0.05  # |excess| ≤ 5 % of the noise floor counts as reaching the floor (every section)
DEFICIENCY_FACTOR = 10  # excess > 10 × the noise floor counts as a clear failure to reach it

REPRODUCED = "reproduced"
CLAIM_HOLDS = "claim holds, value differs"
NOT_REPRODUCED = "not reproduced"


def verdict(ours: float, paper: float, claim_holds: bool, rtol: float = 0.25, atol: float = 0.0,
            upper_bound: bool = False) -> str:
    """``reproduced`` when the claim holds and |ours − paper| ≤ atol + rtol·|paper| (or, for a value
    the paper states as an upper bound, ours ≤ paper + atol + rtol·|paper|); ``claim holds, value
    differs`` when only the claim holds; ``not reproduced`` otherwise."""
    if not claim_holds:
        return NOT_REPRODUCED
    slack = atol + rtol * abs(paper)
    close = ours <= paper + slack if upper_bound else abs(ours - paper) <= slack
    return REPRODUCED if close else CLAIM_HOLDS


def comparison_row(quantity: str, ours: float, paper: float, claim: str, claim_holds: bool,
                   rtol: float = 0.25, atol: float = 0.0, upper_bound: bool = False) -> dict:
    """One row of a paper-vs-ours table, with the tolerance written out beside the verdict."""
    tolerance = f"±({atol:g} + {rtol:.0%}·|paper|)" if atol else f"±{rtol:.0%}"
    if upper_bound:
        tolerance = f"≤ paper + {rtol:.0%}"
    return {"quantity": quantity, "paper": paper, "ours": ours, "claim": claim,
            "claim holds": bool(claim_holds), "tolerance": tolerance,
            "verdict": verdict(ours, paper, claim_holds, rtol, atol, upper_bound)}


def at_floor(excess, noise_floor: float):
    """|excess| ≤ FLOOR_TOLERANCE · noise floor: the student reaches the floor (achievability)."""
    return abs(excess) <= FLOOR_TOLERANCE * noise_floor


def clearly_above_floor(excess, noise_floor: float):
    """excess > DEFICIENCY_FACTOR · noise floor: the student clearly fails to reach it (deficiency)."""
    return excess > DEFICIENCY_FACTOR * noise_floor


def achievability_row(quantity: str, max_abs_excess: float, paper: float, noise_floor: float,
                      scope: str = "") -> dict:
    """Comparison row for "excess ≈ 0": the claim and the value tolerance are both the floor tolerance."""
    tolerance = FLOOR_TOLERANCE * noise_floor
    return comparison_row(quantity, max_abs_excess, paper,
                          f"achievability: |excess| ≤ {FLOOR_TOLERANCE:.0%} of the noise floor{scope}",
                          bool(at_floor(max_abs_excess, noise_floor)), rtol=0.0, atol=tolerance)


def deficiency_row(quantity: str, excess: float, paper: float, noise_floor: float, label: str = "deficiency",
                   rtol: float = 0.25) -> dict:
    """Comparison row for "excess far above the floor"."""
    return comparison_row(quantity, excess, paper, f"{label}: excess > {DEFICIENCY_FACTOR} × the noise floor",
                          bool(clearly_above_floor(excess, noise_floor)), rtol=rtol)


def comparison_table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows).set_index("quantity")


def coefficient_of_variation(values) -> float:
    """std / mean over seeds (population std, App. C.5's CV_seed); 0 for a single seed."""
    series = pd.Series(values, dtype=float)
    return float(series.std(ddof=0) / series.mean()) if len(series) > 1 else 0.0


def provenance() -> dict:
    """Device, library versions, date and commit that produced a result."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=paths.ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip() or "uncommitted"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    cpu = f"CPU ({platform.processor() or platform.machine()})"
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else cpu
    return {"device": device, "torch": torch.__version__, "threads": torch.get_num_threads(),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit}


def summary_markdown(table: pd.DataFrame) -> str:
    """One sentence per compared quantity, generated from a comparison table's verdicts."""
    def escape(text: str) -> str:  # "r*" and "linear_qk" would otherwise open Markdown emphasis
        return text.replace("*", "\\*").replace("_", "\\_")

    lines = []
    for quantity, row in table.iterrows():
        lines.append(f"- **{escape(quantity)}**: ours {row['ours']:.3g} vs. the paper's {row['paper']:.3g}; "
                     f"claim ({escape(row['claim'])}) {'holds' if row['claim holds'] else 'fails'}: "
                     f"*{row['verdict']}*.")
    counts = table["verdict"].value_counts()
    head = ", ".join(f"{n} {v}" for v, n in counts.items())
    return f"Verdicts: {head}.\n\n" + "\n".join(lines)


def styled(table: pd.DataFrame):
    """A comparison table formatted for the book: three significant digits, verdicts coloured."""
    colours = {REPRODUCED: "#d8f0d8", CLAIM_HOLDS: "#fff3cd", NOT_REPRODUCED: "#f8d7da"}
    return (table.style.format({"paper": "{:.3g}", "ours": "{:.3g}"})
            .map(lambda v: f"background-color: {colours.get(v, 'white')}", subset=["verdict"]))


def save_table(table: pd.DataFrame, name: str) -> None:
    """Write a result table as ``<name>.csv`` in the working directory (papermill runs each notebook
    in ``build/sections/``), so the numbers behind every page can be read without the notebook."""
    table.to_csv(f"{name}.csv")
