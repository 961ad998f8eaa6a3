"""§4's sentences whose words follow the data: the deficient excesses against the paper's, and what the
recovery student's ranks say."""

from __future__ import annotations

from ...report.numbers import number
from .spec import Config


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
