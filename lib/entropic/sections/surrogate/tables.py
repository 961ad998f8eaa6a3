"""§4's Table 1 beside the paper, and every number its prose quotes."""

from __future__ import annotations

from ...report import verdicts
from ...report.verdicts import Claim
from .fits import noise_floor
from .prose import magnitudes_text, recovery_text
from .spec import CLAIMS, DEFICIENCY, PAPER_FLOOR


def compare(results):
    """Table 1 beside the paper: deficiency at every r < r*, achievability at every r ≥ r*, recovery,
    and the data-only rank."""
    cfg, floor, sweep = results.cfg, noise_floor(results), results["sweep"]
    rows = []
    for r in range(1, cfg.r_star):
        own = sweep[sweep["r"] == r]
        key = f"excess_r{r}"
        claim = CLAIMS[key] if cfg.paper_setting and key in CLAIMS else DEFICIENCY
        rows.append(verdicts.row(f"excess at r = {r}", own["excess"].mean(), claim, "deficiency",
                                 verdicts.clearly_above_floor(own["excess"], floor), estimator="training",
                                 se=verdicts.mean_se(own, "excess")))
    above = sweep[sweep["r"] >= cfg.r_star]
    rows.append(verdicts.row("max |excess| at r ≥ r*", above["excess"].abs().max(), CLAIMS["excess_at_r_star"],
                             "achievability", verdicts.at_floor(above["excess"], floor), estimator="training",
                             se=verdicts.max_abs_se(above, "excess")))
    rec = results["recovery"]
    mp_claim = CLAIMS["mp_corrected"] if cfg.paper_setting else Claim("→ r* (Theorem 4)", None, "§4, Theorem 4")
    rows.append(verdicts.row("MP-corrected R_eff of the learned A (r = T)", rec["mp_corrected"].mean(), mp_claim,
                             "recovery", verdicts.tracks_teacher(rec["energy_effective_rank"],
                                                                 rec["teacher_energy_effective_rank"]),
                             estimator="training", se=verdicts.mean_se(rec, "mp_corrected")))
    ranks = results["data_only"]["numerical_rank"]
    claim = CLAIMS["data_only_rank"] if cfg.paper_setting else Claim("= r*", None, "§4 and §6")
    rows.append(verdicts.row("data-only numerical rank (seed mean)", ranks.mean(), claim, "predictability",
                             bool((ranks == cfg.r_star).all()), estimator="closed form", exact=True))
    return verdicts.table(rows)


def facts(results) -> dict:
    """Every number the page's prose quotes."""
    cfg, sweep, rec = results.cfg, results["sweep"], results["recovery"]
    excess = sweep.groupby("r")[["excess", "eckart_young"]].mean()
    ratio = (excess.loc[1, "excess"] / excess.loc[2, "excess"]) if cfg.r_star >= 3 else float("nan")
    return {
        "r_star": cfg.r_star, "n": cfg.n, "seeds": len(cfg.seeds),
        "floor": noise_floor(results), "paper_floor": PAPER_FLOOR,
        "excess_r1": float(excess.loc[1, "excess"]), "optimum_r1": float(excess.loc[1, "eckart_young"]),
        "ratio_12": float(ratio),
        "reff": float(rec["effective_rank"].mean()), "mp": float(rec["mp_corrected"].mean()),
        "energy": float(rec["energy_effective_rank"].mean()),
        "teacher_reff": float(rec["teacher_effective_rank"].mean()),
        "teacher_energy": float(rec["teacher_energy_effective_rank"].mean()),
        "unstable": int(sweep["unstable"].sum() + rec["unstable"].sum()),
        "data_rank": float(results["data_only"]["numerical_rank"].mean()),
        "magnitudes": magnitudes_text(cfg, excess),
        "recovery_text": recovery_text(cfg, rec),
    }
