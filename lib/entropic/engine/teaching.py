"""The pictures of the Argument part: the small experiments of the teaching page and every figure of the
theory and teaching pages (the theory page's checks compute in ``theorems``).

Each experiment runs in seconds on one CPU thread (the caller sets ``torch.set_num_threads``) and is
seeded; each ``figure_*`` returns its Figure, sized for the book's column (6.5 inches wide).
Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from . import theorems
from .models import FullKernelStudents, QKStudents, SurrogateStudents
from .tasks import attention_scores, make_attention_task, make_surrogate_task, orthonormal_basis, teacher_spectrum
from .train import rank_sweep, train


def eckart_young_demo(T: int = 8, competitors: int = 200, seed: int = 0) -> pd.DataFrame:
    """One (T, T) matrix M with singular values 1/j: for every r < T, ‖M − M_r‖²_F of the truncated SVD, the
    tail Σ_{j>r} σ_j², and the best of ``competitors`` random rank-r fits Q Qᵀ M (Q : (T, r) orthonormal)."""
    if T < 2 or competitors < 1:
        raise ValueError(f"need T >= 2 and competitors >= 1, got T={T}, competitors={competitors}")
    gen = torch.Generator().manual_seed(seed)
    s = teacher_spectrum(T, "power_law")
    M = ((orthonormal_basis(T, T, gen) * s) @ orthonormal_basis(T, T, gen).T).numpy()
    rows = []
    for r in range(T):  # r = T leaves no error to show on a log axis
        fits = [np.sum((M - Q @ Q.T @ M) ** 2) for Q in (orthonormal_basis(T, r, gen).numpy() if r else
                                                         np.zeros((T, 1)) for _ in range(competitors))]
        rows.append({"r": r, "truncation": float(np.sum((M - theorems.truncate(M, r)) ** 2)),
                     "tail": float(np.sum(s.numpy()[r:] ** 2)), "best_random": float(min(fits))})
    return pd.DataFrame(rows)


def excess_ratio(profile: str = "sharp", r_star: int = 3, r_a: int = 1, r_b: int = 2) -> float:
    """Closed-form ratio of the rank-r_a to the rank-r_b excess for isotropic inputs (Theorem 5 is exact
    there): Σ_{j>r_a} λ_j² / Σ_{j>r_b} λ_j², with λ the teacher spectrum of ``tasks.teacher_spectrum``."""
    if not 0 <= r_a < r_star or not 0 <= r_b < r_star:
        raise ValueError(f"the ranks compared must lie below r_star={r_star}, got {r_a} and {r_b}")
    lam2 = teacher_spectrum(r_star, profile) ** 2
    return float(lam2[r_a:].sum() / lam2[r_b:].sum())


def surrogate_sweep(T: int = 8, D: int = 6, r_star: int = 3, n: int = 200, sigma: float = 0.05, seed: int = 0,
                    steps: int = 400, profile: str = "sharp") -> pd.DataFrame:
    """Students Ŷ = A X V of rank r = 1 … 2r*, trained with Adam (``train.train``) on one §4 task.

    Returns one row per r: ``excess`` (converged training loss − floor), ``optimum`` (the population
    rank-r optimum ‖V*‖²_F Σ_{j>r} λ_j²), ``floor`` (σ²TD).
    """
    task = make_surrogate_task(T, D, r_star, n, sigma, seed, profile)
    ranks = rank_sweep(r_star)
    result = train(SurrogateStudents([seed], ranks, T, D), task.X, task.Y, steps, progress=False)
    return pd.DataFrame({"r": ranks, "excess": result.tail_min[0] - task.noise_floor, "floor": task.noise_floor,
                         "optimum": [theorems.rank_r_optimum(task.operator, task.V, r)[0] for r in ranks]})


def attention_sweep(teacher: str = "linear_qk", T: int = 8, D: int = 8, r_star: int = 2, n: int = 200,
                    sigma: float = 0.05, seed: int = 0, steps: int = 400) -> pd.DataFrame:
    """Attention students [softmax](X W_Q W_Kᵀ Xᵀ/√D) X V of rank r = 1 … 2r* on one §6 attention-native task.

    Returns one row per r: ``excess``, ``floor``, and ``signal``: the teacher's mean output energy
    E‖M*(X) X V*‖²_F per sample, the scale every excess of this task is measured against.
    """
    task = make_attention_task(teacher, T, D, r_star, n, sigma, seed)
    softmax = teacher == "softmax_qk"
    ranks = rank_sweep(r_star)
    result = train(QKStudents([seed], ranks, T, D, softmax=softmax), task.X, task.Y, steps, progress=False)
    clean = attention_scores(task.X.double(), task.operator.double(), softmax) @ task.X.double() @ task.V.double()
    return pd.DataFrame({"r": ranks, "excess": result.tail_min[0] - task.noise_floor, "floor": task.noise_floor,
                         "signal": float(clean.pow(2).sum((1, 2)).mean())})


def break_demo(T: int = 8, D: int = 6, r_star: int = 3, n: int = 200, sigma: float = 0.05, seed: int = 0,
               steps: int = 600) -> dict:
    """The §5 break on one fixed-operator task Y = A* X V* + E: students of the interpolation ladder at rank r*
    (B0 = A X V, B1 = linear QK, B1c = full-rank kernel, B2 = softmax QK), their converged excess, and the
    least excess of any permutation-equivariant predictor (``theorems.equivariant_floor``).

    Returns
    -------
    dict with ``excess`` (DataFrame: student, excess), ``floor`` (equivariant floor), ``noise_floor``,
    ``operator`` : (T, T) A*, ``mixers`` : (2, T, T) the B1c student's realized mixer on two inputs.
    """
    task = make_surrogate_task(T, D, r_star, n, sigma, seed)
    students = {"B0: A X V": SurrogateStudents([seed], [r_star], T, D),
                "B1: linear QK": QKStudents([seed], [r_star], T, D),
                "B1c: full-rank K": FullKernelStudents([seed], [r_star], T, D),
                "B2: softmax QK": QKStudents([seed], [r_star], T, D, softmax=True)}
    rows = []
    for name, model in students.items():
        result = train(model, task.X, task.Y, steps, progress=False)
        rows.append({"student": name, "excess": float(result.tail_min[0, 0]) - task.noise_floor})
    with torch.no_grad():
        mixers = students["B1c: full-rank K"].mixer(task.X[None, :2])[0, 0]
    return {"excess": pd.DataFrame(rows), "floor": theorems.equivariant_floor(task.operator, task.V),
            "noise_floor": task.noise_floor, "operator": task.operator.numpy(), "mixers": mixers.numpy()}


# Figures. Legends sit below the axes, outside the data.

def _legend_below(ax, ncol: int = 2, offset: float = -0.2) -> None:
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, offset), ncol=ncol, frameon=False)


def _figure(height: float = 4.0):
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6.5, height))


def _symlog(ax, width: float, values: np.ndarray) -> None:
    """Symmetric-log y axis, linear within ± width, with ticks at 0 and at whole decades beyond the band
    (automatic ticks crowd around 0)."""
    from matplotlib.ticker import FixedLocator

    ax.set_yscale("symlog", linthresh=width)
    first = math.floor(math.log10(width)) + 1

    def decades(extent: float) -> list[float]:
        if extent <= width:
            return []
        ks = list(range(first, math.floor(math.log10(extent)) + 2))
        return [10.0**k for k in ks[:: max(1, math.ceil(len(ks) / 5))]]  # at most five labels a side

    top, bottom = float(np.max(values)), -float(np.min(values))
    ticks = [0.0, *decades(top), *(-t for t in decades(bottom))]
    ax.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.set_ylim(-max(10.0 ** (math.floor(math.log10(bottom)) + 1) if bottom > width else 0, 1.5 * width),
                max(10.0 ** (math.floor(math.log10(top)) + 1) if top > width else 0, 1.5 * width))


def figure_eckart_young(demo: pd.DataFrame):
    """Error of rank-r approximations of one matrix: the tail sum, the truncated SVD, random competitors."""
    fig, ax = _figure()
    ax.plot(demo["r"], demo["tail"], "k-", lw=1.2, label=r"tail $\Sigma_{j>r}\,\sigma_j^2$")
    ax.plot(demo["r"], demo["truncation"], "o", color="C0", ms=7, label="truncated SVD")
    ax.plot(demo["r"], demo["best_random"], "^", color="C1", ms=7, label="best of random rank-r fits")
    ax.set(yscale="log", xlabel="rank r", ylabel=r"$\|M - B\|_F^2$", xticks=list(demo["r"]))
    _legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def figure_excess(table: pd.DataFrame, r_star: int, band: float, series: dict[str, str],
                  optimum: str | None = "optimum", xlabel: str = "rank r"):
    """Excess risk against rank on a symmetric-log axis, linear within ± ``band`` · floor (shaded).

    ``series`` maps a column of ``table`` to its legend label (drawn as markers); ``optimum`` names the
    column of the population optimum (a dashed line), or None.
    """
    fig, ax = _figure()
    width = band * float(table["floor"].iloc[0])
    ax.axhspan(-width, width, color="C2", alpha=0.15, lw=0, label=f"±{band:.0%} of the noise floor")
    if optimum is not None:
        ax.plot(table["r"], table[optimum], "k--", lw=1.2, label="population optimum (Eckart–Young)")
    for (column, label), marker, color in zip(series.items(), "oxs", ("C0", "C3", "C4"), strict=False):
        ax.plot(table["r"], table[column], marker, color=color, ms=7, mew=2, label=label)
    ax.axvline(r_star, color="grey", ls=":", lw=1.2, label=f"$r^*$ = {r_star}")
    _symlog(ax, width, table[[*series, *([optimum] if optimum else [])]].to_numpy())
    ax.set(xlabel=xlabel, ylabel=r"excess risk  $L - \sigma^2 T d$", xticks=list(table["r"]))
    _legend_below(ax)
    fig.tight_layout()
    return fig


def figure_break(demo: dict):
    """Top: A* and the realized mixer X K Xᵀ/√D of a trained full-rank kernel on two inputs. Bottom: excess
    at rank r* of four ladder students beside the equivariant floor."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(6.5, 6.2), layout="constrained")
    grid = fig.add_gridspec(2, 3, height_ratios=[1, 0.9])
    titles = [r"$A^*$ (the same for every $X$)", r"$M(X_1)$ of B1c", r"$M(X_2)$ of B1c"]
    for k, (matrix, title) in enumerate(zip([demo["operator"], *demo["mixers"]], titles, strict=True)):
        ax = fig.add_subplot(grid[0, k])
        limit = float(np.abs(matrix).max())
        ax.imshow(matrix, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set(title=title, xticks=[], yticks=[])
        ax.title.set_fontsize(10)
    ax = fig.add_subplot(grid[1, :])
    table = demo["excess"]
    ax.barh(table["student"], table["excess"], color="C0", label="trained student at rank $r^*$")
    for y, value in enumerate(table["excess"]):  # right of the bar, or of 0 for a bar of (slightly) negative length
        ax.annotate(f"{value:.2g}", (max(value, 0.0), y), xytext=(4, 0), textcoords="offset points", va="center")
    ax.axvline(demo["floor"], color="C3", ls="--", lw=1.5, label="least excess of any equivariant predictor")
    ax.invert_yaxis()
    ax.set(xlabel=r"excess risk  $L - \sigma^2 T d$")
    _legend_below(ax, ncol=1, offset=-0.25)
    return fig


def figure_deficiency(check: pd.DataFrame):
    """Theorem 5 on random instances: bound / exact optimum against the condition number of Σ_X."""
    fig, ax = _figure()
    ax.scatter(check["kappa"], check["ratio_frobenius"], marker="o", s=22, color="C0",
               label=r"our constant $\lambda_{\min}(\Sigma_X)\,\|V^*\|_F^2$")
    ax.scatter(check["kappa"], check["ratio_paper"], marker="^", s=22, color="C1",
               label=r"paper's constant $\lambda_{\min}(\Sigma_X)\,\sigma_{\min}(V^*)^2$")
    ax.axhline(1.0, color="k", lw=1, ls="--", label="exact optimum (ratio 1)")
    ax.set(xscale="log", yscale="log", xlabel=r"condition number of $\Sigma_X$", ylabel="lower bound / exact")
    _legend_below(ax, ncol=1)
    fig.tight_layout()
    return fig


def figure_mp(check: pd.DataFrame):
    """Theorem 8: R(Â) − R against n on log–log axes, simulated (seed mean, bars: range over seeds), the
    first-order prediction and the paper's correction."""
    by_n = check.groupby("n")
    mean, low, high = by_n["simulated"].mean(), by_n["simulated"].min(), by_n["simulated"].max()
    fig, ax = _figure()
    ax.errorbar(mean.index, mean, yerr=[mean - low, high - mean], fmt="o", color="C0", capsize=3,
                label=r"simulated $R_{\mathrm{eff}}(\hat A) - R_{\mathrm{eff}}(A^*)$")
    ax.plot(mean.index, by_n["first_order"].mean(), "-", color="C0", lw=1.5, label="first order (derived here)")
    ax.plot(mean.index, by_n["paper"].mean(), "--", color="C1", lw=1.5, label=r"paper's $(T - R)/(2n)$")
    ax.set(xscale="log", yscale="log", xlabel="samples n", ylabel="inflation of the effective rank")
    _legend_below(ax)
    fig.tight_layout()
    return fig

