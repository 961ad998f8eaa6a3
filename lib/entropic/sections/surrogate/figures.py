"""§4's figure: excess risk against the student's rank."""

from __future__ import annotations

from ...report import figures
from .fits import noise_floor


def figure_sweep(results):
    """Excess risk against the student's rank, with the Eckart–Young optimum."""
    cfg, sweep = results.cfg, results["sweep"]
    fig = figures.excess_vs_rank(sweep, noise_floor(results), mark=cfg.r_star)
    ax = fig.axes[0]
    theory = sweep.groupby("r")["eckart_young"].mean()
    ax.plot(theory.index, theory.values, ls="none", marker="s", ms=10, mfc="none", mec="k", mew=1.2,
            label="Eckart–Young optimum")
    figures.legend_below(fig, ax, ncol=2)
    return fig
