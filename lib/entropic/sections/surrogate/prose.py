"""§4's sentences whose words follow the data: which claims hold, the deficient excesses against the paper's,
what the recovery student's ranks say; and "ours" in the form the paper writes its number."""

from __future__ import annotations

import re

from ...report.numbers import number, power_of_ten
from .spec import CLAIMS, Config

KINDS = {"deficiency": "Deficiency", "achievability": "achievability", "recovery": "recovery",
         "predictability": "predictability"}
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)(×10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?")


def like_paper(value: float, says: str) -> str | None:
    """``value`` in the form of the paper's number in ``says`` where that form is not a plain decimal: a power of ten
    with as many digits ("≈ 2×10⁻⁴" → 5×10⁻⁴); None where it is one (the page then writes ours with the paper's
    decimals, ``page.comparison_markdown``)."""
    for token, power in _NUMBER.findall(says):
        if power:
            return power_of_ten(value, len(token.replace(".", "")))
    return None


def holding_text(table) -> str:
    """Which kinds of claim hold on our data, in the comparison's own words."""
    kinds = list(dict.fromkeys(table["kind"]))
    holding = [k for k in kinds if table.loc[table["kind"] == k, "claim holds"].all()]
    failing = [k for k in kinds if k not in holding]
    words = [KINDS.get(k, k) for k in holding]
    text = ""
    if words:
        listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        text = f"{listed[:1].upper()}{listed[1:]} hold{'s' if len(words) == 1 else ''} on our data."
    if failing:
        text += " The " + " and ".join(k for k in failing) + " claim" + ("s are" if len(failing) > 1 else " is") \
                + " not reproduced."
    return text.strip()


def magnitudes_text(cfg: Config, excess) -> str:
    if cfg.r_star < 3:
        return "With $r^* < 3$ there is no pair of deficient ranks to compare with the paper's 28.5 and 8.8."
    ours = excess.loc[1, "excess"] / excess.loc[2, "excess"]
    theory = excess.loc[1, "eckart_young"] / excess.loc[2, "eckart_young"]
    text = (f"Our ratio of the $r = 1$ to the $r = 2$ excess is {number(ours)}; the Eckart–Young optimum of our "
            f"teachers predicts {number(theory)}.")
    if cfg.paper_setting:
        text += (" The paper's 28.5 and 8.8 have the ratio 3.24, close to the $3.25 = (1.5^2 + 1^2)/1^2$ of "
                 "the eq. (8) spectrum: they correspond to a draw with $\\|V^*\\|_F^2 \\approx 8.8$, and ours to our "
                 "own draws.")
    return text


def ratio_text(cfg: Config, excess) -> str:
    """The one sentence on the deficient magnitudes that the opening of the page quotes: our ratio of the r = 1
    to the r = 2 excess, the optimum's, and (in the paper's setting) the paper's."""
    if cfg.r_star < 3:
        return ""
    ours = excess.loc[1, "excess"] / excess.loc[2, "excess"]
    theory = excess.loc[1, "eckart_young"] / excess.loc[2, "eckart_young"]
    text = f"The ratio of the $r = 1$ to the $r = 2$ excess, which the draw cancels, is {number(ours)} here"
    if cfg.paper_setting:
        paper = CLAIMS["excess_r1"].value / CLAIMS["excess_r2"].value
        text += f" and {number(paper)} in the paper, against the optimum's {number(theory)}."
    else:
        text += f", against the optimum's {number(theory)}."
    return text


def mp_text(cfg: Config, rec) -> str:
    """Why the MP-corrected effective rank is no direct reading of r*: the teacher's own effective rank."""
    mp, teacher = rec["mp_corrected"].mean(), rec["teacher_effective_rank"].mean()
    said = " (the paper's 2.97)" if cfg.paper_setting else ""
    if cfg.spectrum == "flat":
        return (f"The MP-corrected effective rank{said}, {number(mp)} here, reads $r^*$ directly for the flat "
                f"spectrum, whose own effective rank is $r^* = {cfg.r_star}$.")
    return (f"The MP-corrected effective rank{said}, {number(mp)} here, is no direct reading of $r^*$: the "
            f"{cfg.spectrum} spectrum keeps the teacher's own effective rank at {number(teacher)}, below "
            f"$r^* = {cfg.r_star}$, and what lifts a learned value above it is fitted noise, which the correction "
            f"removes only in part.")


def recovery_text(cfg: Config, rec) -> str:
    energy, teacher_energy = rec["energy_effective_rank"].mean(), rec["teacher_energy_effective_rank"].mean()
    reff, mp = rec["effective_rank"].mean(), rec["mp_corrected"].mean()
    teacher_reff = rec["teacher_effective_rank"].mean()
    text = (f"The learned operator's energy effective rank (eq. 2) is {number(energy)} against the teacher "
            f"$A^*$'s own {number(teacher_energy)}. Its Shannon effective rank (eq. 1) is {number(reff)} "
            f"(MP-corrected {number(mp)}), the teacher's {number(teacher_reff)}")
    if cfg.spectrum != "flat":
        text += (f", which is below $r^* = {cfg.r_star}$ because the {cfg.spectrum} spectrum weighs its "
                 "directions unequally: a perfect recovery would not show $R_\\mathrm{eff} = r^*$")
    text += "."
    if reff > 1.02 * teacher_reff:
        text += (" The student's Shannon rank sits above the teacher's: it has also fitted small noise directions, "
                 "which eq. (1) counts (it weighs singular values linearly) and eq. (2) barely sees (it weighs "
                 "them quadratically). A Shannon rank near $r^*$ is therefore partly fitted noise.")
    return text
