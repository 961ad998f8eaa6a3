"""Why exactness ends, and what the least-squares estimator is: the frontier page's reading of the stored
singular values of every phase-diagram fit, and of the unconstrained student trained beside it (see the
package docstring and ``DECLARED``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .analysis import label
from .spec import PHASE, SEPARATION

CELL = ["n", "sigma", "d", "r_star"]


def _separated(row) -> bool | None:
    """Whether the fit's r*-th singular value is at least SEPARATION times its (r*+1)-th (None: no spectrum)."""
    values = row["singular_values"]
    if not isinstance(values, (list, tuple, np.ndarray)) or len(values) <= row["r_star"]:
        return None
    return bool(values[row["r_star"] - 1] >= SEPARATION * values[row["r_star"]])


def causes(results) -> pd.DataFrame:
    """Per phase cell and estimator of ``PHASE``: the fraction of seeds whose fit separates r*, whose split-half
    threshold reads r* exactly, and whose Gavish–Donoho threshold (all n samples) does; cells whose rows stored no
    spectrum (computed before spectra were kept) are left out."""
    rows = results["phase"] if "phase" in results.tables else pd.DataFrame()
    if rows.empty or "singular_values" not in rows:
        return pd.DataFrame(columns=[*CELL, "estimator", "separated", "split-half exact", "all-n exact", "seeds"])
    rows = rows[rows["singular_values"].map(lambda v: isinstance(v, list))].copy()
    rows["separated"] = rows.apply(_separated, axis=1).astype(bool)
    rows["split-half exact"] = rows["numerical_rank"] == rows["r_star"]
    rows["all-n exact"] = rows["gd_rank"] == rows["r_star"]
    out = rows.groupby([*CELL, "estimator"])[["separated", "split-half exact", "all-n exact"]].mean()
    out["seeds"] = rows.groupby([*CELL, "estimator"]).size()
    return out.reset_index()


def cause_counts(results) -> pd.DataFrame:
    """Per estimator of ``PHASE``, over every (cell, seed) of the phase diagrams: fits that separate r* and
    those that do not, and how often each threshold reads r* in each case."""
    rows = results["phase"] if "phase" in results.tables else pd.DataFrame()
    if rows.empty or "singular_values" not in rows:
        return pd.DataFrame()
    rows = rows[rows["singular_values"].map(lambda v: isinstance(v, list))].copy()
    rows["separated"] = rows.apply(_separated, axis=1).astype(bool)
    out = {}
    for name in PHASE:
        own = rows[rows["estimator"] == name]
        gap, none = own[own["separated"]], own[~own["separated"]]
        out[label(name)] = {
            "fits": len(own), "separate r*": len(gap),
            "…and the split-half rule reads it": int((gap["numerical_rank"] == gap["r_star"]).sum()),
            "…and the all-n rule reads it": int((gap["gd_rank"] == gap["r_star"]).sum()),
            "do not separate r*": len(none),
            "…yet a rule reads r*": int(((none["numerical_rank"] == none["r_star"])
                                         | (none["gd_rank"] == none["r_star"])).sum())}
    return pd.DataFrame(out).T.rename_axis("estimator")


def student_table(results) -> pd.DataFrame:
    """Per grid task with a trained student: the relative difference of the two K, both losses, both integer and
    energy ranks (the student's read at the estimator's threshold), and the two costs."""
    if "student" not in results.tables:
        return pd.DataFrame()
    s = results["student"]
    return pd.DataFrame({
        "r*": s["r_star"], "seed": s["seed"], "‖K_student − K̂‖ / ‖K̂‖": s["relative_difference_K"],
        "loss, estimator": s["estimator_loss"], "loss, student": s["student_loss"],
        "rank, estimator": s["estimator_rank"], "rank, student": s["student_rank"],
        "R̃_eff, estimator": s["estimator_energy_rank"], "R̃_eff, student": s["student_energy_rank"],
        "seconds, estimator": s["estimator_seconds"], "seconds, student": s["student_seconds"]})
