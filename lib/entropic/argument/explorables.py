"""The explorables of the teaching chapter (and the §4 page): figures a reader moves in the page itself, with no
kernel, server or network.

Each is a Bokeh document whose sliders recompute the curve in the page with ``CustomJS`` (Bokeh's JavaScript ships
inside its Python package; ``publish.interactive`` serves it beside the book and loads it on the pages that show
one), beside the numpy computation of the same quantity here, which the tests compare with what the page draws. In
print, each appears as its static figure at the paper's settings (``_assets/print.css``).

1. :func:`surrogate_bound`: the §4 surrogate's bound. The best rank-r student of a teacher A* with spectrum λ pays
   ‖V*‖²_F Σ_{j>r} λ_j² above the noise floor σ²Td (Eckart–Young), which, for the paper's value map (entries
   N(0, 1/d), so E‖V*‖²_F = d), is Σ_{j>r} λ_j² / (σ²T) floors: its risk in floors is 1 plus that.
2. :func:`static_against_native`: the stored students of the §5 ladder (a rung, at r*) and of the §6 grid (a
   teacher, at an r*), their risk in floors against their rank, and the ledger's verdicts of the claims on each
   case (:func:`rank_cases`), written into the page when it is built.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..engine.synthetic.tasks import teacher_spectrum

SPECTRA = {"sharp": "linear (eq. 8)", "flat": "flat", "geometric": "geometric"}  # name -> what the page calls it
PAPER = {"r_star": 3, "spectrum": "sharp", "ratio": 0.5, "sigma": 0.05, "T": 16, "d": 12}  # §4, Table 1
R_STAR_MAX = PAPER["T"] // 2  # the §4 sweep trains r = 1 … 2r*, within T
SIGMAS = (0.01, 1.5, 0.01)  # σ's slider: from, to, step
RATIOS = (0.05, 0.95, 0.05)  # the geometric spectrum's ratio λ_{i+1}/λ_i


def spectrum(r_star: int, kind: str, ratio: float = PAPER["ratio"]) -> np.ndarray:
    """The teacher's r* eigenvalues: the paper's linear ``sharp`` spectrum (eq. 8), ``flat``, or ``geometric``
    (λ_i = ratio^(i−1))."""
    if kind == "geometric":
        if not 0 < ratio < 1:
            raise ValueError(f"a geometric spectrum's ratio must lie strictly between 0 and 1, got {ratio}")
        return ratio ** np.arange(r_star, dtype=float)
    if kind not in SPECTRA:
        raise ValueError(f"unknown spectrum {kind!r}; expected one of {list(SPECTRA)}")
    return teacher_spectrum(r_star, kind).numpy()


def surrogate_risk(r_star: int, kind: str, ratio: float, sigma: float, T: int = PAPER["T"]) -> pd.DataFrame:
    """For every student rank r = 1 … T: the Eckart–Young tail Σ_{j>r} λ_j², the best student's excess in noise
    floors (tail / (σ²T), for E‖V*‖²_F = d) and its risk in floors (1 + that)."""
    if not 1 <= r_star <= T:
        raise ValueError(f"r* must lie in 1 … T = {T}, got {r_star}")
    if not sigma > 0:
        raise ValueError(f"σ must be positive (the risk is measured in noise floors), got {sigma}")
    tail = _tails(r_star, kind, ratio, T)
    excess = _in_floors(tail, sigma, T)
    return pd.DataFrame({"r": np.arange(1, T + 1), "tail": tail, "excess": excess, "risk": 1 + excess})


def _tails(r_star: int, kind: str, ratio: float, T: int) -> np.ndarray:
    """The Eckart–Young tail Σ_{j>r} λ_j² for r = 1 … T."""
    squares = spectrum(r_star, kind, ratio) ** 2
    return np.array([squares[k:].sum() for k in range(1, T + 1)])


def _in_floors(tail, sigma: float, T: int):
    """A tail's excess in noise floors, for E‖V*‖²_F = d (d cancels)."""
    return tail / (sigma**2 * T)


def sigma_entering_band(band: float, r: int, r_star: int, kind: str, ratio: float = PAPER["ratio"],
                        T: int = PAPER["T"]) -> float:
    """The noise at which the best rank-r student's excess is exactly ``band`` floors: √(tail / (band·T))."""
    return float(_tails(r_star, kind, ratio, T)[r - 1] / (band * T)) ** 0.5


def least_sigma_within(band: float, r: int, r_star: int, kind: str, ratio: float = PAPER["ratio"],
                       T: int = PAPER["T"]) -> float:
    """The least σ on the explorable's slider at which the best rank-r student's excess is at most ``band`` floors
    (what a reader finds by sliding σ up), computed as :func:`surrogate_risk` computes it."""
    start, stop, step = SIGMAS
    tail = _tails(r_star, kind, ratio, T)[r - 1]
    for k in range(round((stop - start) / step) + 1):
        sigma = round(start + k * step, 10)
        if _in_floors(tail, sigma, T) <= band:
            return sigma
    raise ValueError(f"no σ up to {stop} brings the rank-{r} excess within {band} floors")


def stored_students(sweep: pd.DataFrame, T: int = PAPER["T"], d: int = PAPER["d"]) -> pd.DataFrame:
    """The §4 sweep's trained students in the explorable's units: each one's excess rescaled to E‖V*‖²_F = d (its
    task's ‖V*‖²_F, read off its stored Eckart–Young optimum at r = 1), in noise floors, and its risk in floors. The
    sweep must be at the paper's settings (``Config.paper_setting``), whose spectrum gives the tail at r = 1."""
    first = sweep[sweep["r"] == 1].set_index("seed")
    tail_1 = _tails(PAPER["r_star"], PAPER["spectrum"], PAPER["ratio"], T)[0]
    value_energy = first["eckart_young"] / tail_1  # ‖V*‖²_F of each seed's task
    floors = sweep["excess"] * d / sweep["seed"].map(value_energy) / sweep["noise_floor"]
    return pd.DataFrame({"r": sweep["r"], "seed": sweep["seed"], "risk": 1 + floors})


@dataclass(frozen=True, repr=False)
class Explorable:
    """One figure a reader moves: its Bokeh layout, its static form at the paper's settings (a Matplotlib figure,
    for print), and the text that says what it shows (its alt text)."""

    name: str
    layout: object
    draw: Callable  # (width, height) in inches -> the static figure
    alt: str
    moves: str  # what the reader moves in the web book, for the line its printed form carries

    def _repr_html_(self) -> str:
        return as_html(self)

    def __repr__(self) -> str:  # a notebook's plain-text form of it
        return f"{self.name}: {self.alt}"


PRINTED = "In the web book this figure moves: {}."  # the line under an explorable's printed form


def as_html(explorable: Explorable) -> str:
    """The explorable as a page shows it: on screen, the live Bokeh document; in print, its static PNG and one line
    saying that the web book lets the reader move it (``_assets/print.css``)."""
    import matplotlib.pyplot as plt
    from bokeh.embed import components

    from ..report.figures import WIDTH

    script, div = components(explorable.layout)
    static, png = explorable.draw(WIDTH, 2.6), io.BytesIO()
    static.savefig(png, format="png", dpi=150, bbox_inches="tight")
    plt.close(static)  # drawn for this HTML only: not shown again by the notebook
    image = base64.b64encode(png.getvalue()).decode()
    alt = html.escape(explorable.alt, quote=True)
    return (f'<div class="explorable" id="explorable-{explorable.name}">'
            f'<div class="explorable-live" role="group" aria-label="{alt}">{div}{script}</div>'
            f'<div class="explorable-print"><img src="data:image/png;base64,{image}" alt="{alt}">'
            f'<p>{html.escape(PRINTED.format(explorable.moves))}</p></div></div>')


# The page's computation of surrogate_risk, in the reader's browser: same formula, same floats (float64 throughout).
_SURROGATE_JS = """
const T = %(T)d;
const rStar = r_star.value, kind = kind_select.value, ratio = ratio_slider.value, sigma = sigma_slider.value;
const lambdas = [];
for (let i = 1; i <= rStar; i++) {
  lambdas.push(kind === "sharp" ? (rStar === 1 ? 2 : 2 - (i - 1) / (rStar - 1))
               : kind === "flat" ? 1 : Math.pow(ratio, i - 1));
}
const squares = lambdas.map((l) => l * l);
const r = [], risk = [], excess = [];
for (let k = 1; k <= T; k++) {
  let tail = 0;
  for (let j = k; j < squares.length; j++) tail += squares[j];
  const e = tail / (sigma * sigma * T);
  r.push(k); excess.push(e); risk.push(1 + e);
}
curve.data = {r: r, risk: risk, excess: excess};
const chosen = rank.value;
choice.data = {r: [chosen], risk: [risk[chosen - 1]]};
marker.location = rStar;
ratio_slider.disabled = kind !== "geometric";
const paper = rStar === %(paper_r_star)d && kind === "%(paper_kind)s" && Math.abs(sigma - %(paper_sigma)r) < 1e-9;
if (students) students.visible = paper;  // §4's stored students, at the paper's settings only
const shown = (x) => x === 0 ? "0" : (x >= 0.01 && x < 1000 ? x.toPrecision(3) : x.toExponential(2));
readout.text = "The best rank-" + chosen + " student pays <b>" + shown(excess[chosen - 1]) + "</b> noise floors "
  + "above the floor (r* = " + rStar + ").";
"""


def surrogate_bound(sweep: pd.DataFrame | None = None, band: float = 0.05) -> Explorable:
    """The surrogate's bound, moved by hand: the best rank-r student's risk in noise floors against r, computed in
    the page from r*, the teacher's spectrum (and a geometric one's ratio) and σ; the floor and its band; the point
    where r reaches r*; and, at the paper's settings, the stored students of §4's sweep (``sweep``)."""
    from bokeh.layouts import column, row
    from bokeh.models import ColumnDataSource, CustomJS, Div, Select, Slider

    T = PAPER["T"]
    risk = surrogate_risk(PAPER["r_star"], PAPER["spectrum"], PAPER["ratio"], PAPER["sigma"])
    curve = ColumnDataSource(risk[["r", "risk", "excess"]].to_dict("list"), name="surrogate-curve")
    choice = ColumnDataSource({"r": [1], "risk": [float(risk["risk"][0])]}, name="surrogate-choice")
    plot = _log_plot("student rank r", "risk (noise floors)", x_range=(0.5, T + 0.5))
    plot.line("r", "risk", source=curve, line_width=2.5, color="black", legend_label="best rank-r student")
    plot.scatter("r", "risk", source=curve, size=6, color="black")
    marker = _floor_and_r_star(plot, band, PAPER["r_star"], "surrogate-r-star")
    plot.scatter("r", "risk", source=choice, size=16, marker="diamond", fill_color="white", line_color="black",
                 line_width=2.5, legend_label="the chosen r")
    students = None if sweep is None else plot.scatter(
        "r", "risk", source=ColumnDataSource(stored_students(sweep)), size=7, marker="triangle", fill_color="#888888",
        line_color="black", legend_label="§4's trained students", name="surrogate-students")
    _legend(plot)

    sliders = {
        "r_star": Slider(title="teacher's rank r*", start=1, end=R_STAR_MAX, step=1, value=PAPER["r_star"],
                         name="surrogate-r-star-slider"),
        "rank": Slider(title="student's rank r", start=1, end=T, step=1, value=1, name="surrogate-rank"),
        "sigma_slider": Slider(title="noise σ", start=SIGMAS[0], end=SIGMAS[1], step=SIGMAS[2],
                               value=PAPER["sigma"], name="surrogate-sigma", format="0.00"),
        "ratio_slider": Slider(title="ratio λᵢ₊₁/λᵢ", start=RATIOS[0], end=RATIOS[1], step=RATIOS[2],
                               value=PAPER["ratio"], name="surrogate-ratio", format="0.00", disabled=True),
    }
    kind_select = Select(title="teacher's spectrum", value=PAPER["spectrum"],
                         options=[(k, label) for k, label in SPECTRA.items()], name="surrogate-spectrum")
    readout = Div(text="", name="surrogate-readout", styles={"font-size": "15px"})
    update = CustomJS(args={"r_star": sliders["r_star"], "rank": sliders["rank"], "kind_select": kind_select,
                            "ratio_slider": sliders["ratio_slider"], "sigma_slider": sliders["sigma_slider"],
                            "curve": curve, "choice": choice, "marker": marker, "students": students,
                            "readout": readout},
                      code=_SURROGATE_JS % {"T": T, "paper_r_star": PAPER["r_star"], "paper_kind": PAPER["spectrum"],
                                            "paper_sigma": PAPER["sigma"]})
    for widget in (*sliders.values(), kind_select):
        widget.js_on_change("value", update)
    for widget in (*sliders.values(), kind_select, readout):
        widget.sizing_mode = "stretch_width"
    controls = column(row(sliders["r_star"], kind_select, sliders["ratio_slider"], sizing_mode="stretch_width"),
                      row(sliders["sigma_slider"], sliders["rank"], sizing_mode="stretch_width"),
                      readout, sizing_mode="stretch_width")
    layout = column(plot, controls, sizing_mode="stretch_width", name="surrogate-bound")
    _on_load(layout, update)  # the readout, and the rest, drawn by the page's code from the start

    points = stored_students(sweep) if sweep is not None else None
    alt = ("Interactive chart on a log axis: the risk, in noise floors, of the best rank-r student of the §4 "
           "surrogate against r, falling to the floor where r reaches r*; sliders set r*, the teacher's spectrum, "
           "the noise and the student's rank.")
    return Explorable("surrogate-bound", layout, partial(_surrogate_static, risk, points, band), alt,
                      "its sliders change the teacher, the noise and the student's rank")


def _on_load(layout, callback) -> None:
    """Run ``callback`` once the page has drawn ``layout`` (its own document's ready event)."""
    from bokeh.document import Document
    from bokeh.events import DocumentReady

    document = Document()
    document.add_root(layout)
    document.js_on_event(DocumentReady, callback)


def _log_plot(xlabel: str, ylabel: str, x_range, y_range=None, height: int = 230):
    from bokeh.plotting import figure

    ranges = {"x_range": x_range, **({"y_range": y_range} if y_range else {})}  # else drawn to fit the data
    plot = figure(height=height, sizing_mode="stretch_width", y_axis_type="log", toolbar_location=None,
                  x_axis_label=xlabel, y_axis_label=ylabel, **ranges)
    for axis in (plot.xaxis, plot.yaxis):
        axis.axis_label_text_font_size = "14px"
        axis.axis_label_text_font_style = "normal"
        axis.major_label_text_font_size = "13px"
    return plot


def _floor_and_r_star(plot, band: float, r_star: int, name: str):
    """The floor (solid), its band (dotted) and a dashed line at r* (named ``name``, returned: the page moves it)."""
    from bokeh.models import Span

    plot.add_layout(Span(location=1, dimension="width", line_color="#555555", line_width=1.5))
    plot.add_layout(Span(location=1 + band, dimension="width", line_color="#555555", line_dash="dotted",
                         line_width=1.5))
    marker = Span(location=r_star, dimension="height", line_color="#555555", line_dash="dashed", line_width=1.5,
                  name=name)
    plot.add_layout(marker)
    return marker


def _legend(plot) -> None:
    plot.legend.location = "top_right"
    plot.legend.label_text_font_size = "13px"
    plot.legend.background_fill_alpha = 0.8


def _surrogate_static(risk: pd.DataFrame, students: pd.DataFrame | None, band: float, width: float,
                      height: float):
    """The explorable at the paper's settings, as a Matplotlib figure (its form in print and on a slide)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, height))
    ax.plot(risk["r"], risk["risk"], "-o", color="black", ms=4, lw=2, label="best rank-r student")
    if students is not None:
        ax.plot(students["r"], students["risk"], "^", color="0.55", mec="black", ms=6, label="§4's trained students")
    ax.axhline(1, color="0.35", lw=1)
    ax.axhline(1 + band, color="0.35", lw=1, ls=":")
    ax.axvline(PAPER["r_star"], color="0.35", lw=1, ls="--")
    ax.set_yscale("log")
    ax.set_xlabel("student rank r")
    ax.set_ylabel("risk (noise floors)")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


# --- 2. static rank against attention-native rank ------------------------------------------------------------------

TEACHERS = {"fixed": "fixed A* (§5)", "linear_qk": "linear QK (§6)", "softmax_qk": "softmax QK (§6)"}


def _in_words(text: str) -> str:
    from ..report.names import WORDS

    return re.sub(r"\b(" + "|".join(map(re.escape, WORDS)) + r")\b", lambda m: WORDS[m[1]], text)


def rank_cases(ladder_runs: pd.DataFrame, ladder_r_star: int, native_sweep: pd.DataFrame,
               claims: pd.DataFrame) -> dict[str, dict]:
    """What the second explorable shows, per case: a rung of the §5 ladder (key ``B0`` … ``B3``: its students at
    r = r*, the only rank the ladder stores) or a §6 teacher at one r* (key ``linear_qk-3``: its students at every
    kernel rank). Each case: the students' risk in noise floors (``r``, ``risk``: one point per seed), their seed
    mean by rank (``mean_r``, ``mean_risk``), r*, and the ledger's claims it bears on as (quantity, verdict)."""
    def case(students: pd.DataFrame, r_star: int, section: str, *starts: str) -> dict:
        risk = 1 + students["excess"] / students["noise_floor"]
        mean = risk.groupby(students["r"]).mean()
        said = claims[(claims["section"] == section) & claims["quantity"].str.startswith(starts)]
        return {"r": students["r"].astype(int).tolist(), "risk": risk.tolist(), "r_star": int(r_star),
                "mean_r": mean.index.astype(int).tolist(), "mean_risk": mean.tolist(),
                "claims": [(_in_words(q), v) for q, v in zip(said["quantity"], said["verdict"], strict=True)]}

    cases = {}
    for rung, own in ladder_runs[ladder_runs["r"] == ladder_r_star].groupby("rung", sort=False):
        compared = ("B2 / B1",) if rung in ("B1", "B2") else ()  # the row comparing the two, on both rungs
        cases[rung] = case(own, ladder_r_star, "ladder", f"{rung}:", *compared)
    for (teacher, r_star), own in native_sweep.groupby(["teacher", "r_star"], sort=True):
        cases[f"{teacher}-{r_star}"] = case(own, r_star, "attention_native", f"{teacher}:")
    return cases


_RANKS_JS = """
const teacher = teacher_select.value;
const key = teacher === "fixed" ? rung_select.value : teacher + "-" + r_star_select.value;
const chosen = cases[key];
points.data = {r: chosen.r, risk: chosen.risk};
means.data = {r: chosen.mean_r, risk: chosen.mean_risk};
marker.location = chosen.r_star;
rung_select.disabled = teacher !== "fixed";
r_star_select.disabled = teacher === "fixed";
const item = (c) => c[0] + ": <b>" + c[1] + "</b>";
verdicts.text = (chosen.claims.length ? "Claims on it: " + chosen.claims.map(item).join("; ") + "."
                 : "No claim of the paper bears on this case alone.");
"""


def static_against_native(cases: dict[str, dict], band: float = 0.05) -> Explorable:
    """Static rank against attention-native rank, chosen by hand among the stored results: a teacher (the §5 fixed
    operator, or a §6 linear or softmax QK teacher), a rung of the ladder for the first, r* for the others; the
    students' risk in noise floors against their rank, and the verdict of each claim the case bears on."""
    from bokeh.layouts import column, row
    from bokeh.models import ColumnDataSource, CustomJS, Div, Select

    rungs = [key for key in cases if "-" not in key]
    native = sorted({int(key.split("-")[1]) for key in cases if "-" in key})
    teachers = [t for t in TEACHERS if (t == "fixed" and rungs) or any(k.startswith(f"{t}-") for k in cases)]
    rung = "B1" if "B1" in rungs else rungs[0] if rungs else ""  # the rung where the ladder breaks, first
    first = cases[rung or f"{teachers[0]}-{native[0]}"]
    points = ColumnDataSource({"r": first["r"], "risk": first["risk"]}, name="ranks-points")
    means = ColumnDataSource({"r": first["mean_r"], "risk": first["mean_risk"]}, name="ranks-means")
    highest = max(max(case["mean_r"]) for case in cases.values())
    top = max(max(case["risk"]) for case in cases.values())
    plot = _log_plot("student's rank r (of its kernel, under attention)", "risk (noise floors)",
                     x_range=(0.5, highest + 0.5), y_range=(0.5, 2 * top), height=200)  # one scale for all
    plot.line("r", "risk", source=means, line_width=2.5, color="black", legend_label="seed mean")
    plot.scatter("r", "risk", source=means, size=9, marker="diamond", color="black")
    plot.scatter("r", "risk", source=points, size=6, fill_color="white", line_color="#444444", legend_label="a seed")
    marker = _floor_and_r_star(plot, band, first["r_star"], "ranks-r-star-line")
    _legend(plot)

    from ..engine.synthetic.population import RUNG_NAMES

    teacher_select = Select(title="teacher", value=teachers[0], options=[(t, TEACHERS[t]) for t in teachers],
                            name="ranks-teacher", sizing_mode="stretch_width")
    rung_select = Select(title="rung (on the fixed A*)", value=rung,
                         options=[(k, RUNG_NAMES.get(k, k)) for k in rungs], name="ranks-rung",
                         sizing_mode="stretch_width", disabled=not rungs)
    r_star = Select(title="r* (§6 teacher)", value=str(native[0]) if native else "",
                    options=[str(k) for k in native], name="ranks-r-star", sizing_mode="stretch_width", disabled=True)
    verdicts = Div(text="", name="ranks-verdicts", sizing_mode="stretch_width",
                   styles={"font-size": "14px", "text-align": "left"})
    update = CustomJS(args={"teacher_select": teacher_select, "rung_select": rung_select, "r_star_select": r_star,
                            "points": points, "means": means, "marker": marker, "verdicts": verdicts,
                            "cases": cases}, code=_RANKS_JS)
    for widget in (teacher_select, rung_select, r_star):
        widget.js_on_change("value", update)
    layout = column(plot, row(teacher_select, rung_select, r_star, sizing_mode="stretch_width"), verdicts,
                    sizing_mode="stretch_width", name="static-against-native")
    _on_load(layout, update)
    alt = ("Interactive chart on a log axis: the stored students' risk in noise floors against their rank, for a rung "
           "of the §5 ladder on a fixed operator or a §6 attention teacher of a chosen r*, with the verdicts of the "
           "paper's claims on that case.")
    return Explorable("static-against-native", layout, partial(_ranks_static, cases, band), alt,
                      "its menus choose the teacher, the ladder's rung and r*")


def _ranks_static(cases: dict[str, dict], band: float, width: float, height: float):
    """The second explorable's static form: the §6 teachers' students at the r* of the ladder (its seed means by
    kernel rank) beside the ladder's rungs at that r*, the paper's settings."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, height))
    rungs = [key for key in cases if "-" not in key]
    r_star = cases[rungs[0]]["r_star"] if rungs else 3
    for (teacher, label), style in zip(list(TEACHERS.items())[1:], ("-o", "--s"), strict=True):
        case = cases.get(f"{teacher}-{r_star}")
        if case:
            ax.plot(case["mean_r"], case["mean_risk"], style, color="black", mfc="white", ms=5, lw=1.5, label=label)
    groups: list[list[str]] = []  # rungs whose risks lie within 20 % of each other share one label
    for rung in sorted(rungs, key=lambda k: cases[k]["mean_risk"][0]):
        risk = cases[rung]["mean_risk"][0]
        ax.plot([r_star], [risk], "D", color="0.4", mec="black", ms=6)
        if groups and risk <= 1.2 * cases[groups[-1][0]]["mean_risk"][0]:
            groups[-1].append(rung)
        else:
            groups.append([rung])
    for group in groups:
        ax.annotate(", ".join(sorted(group, key=rungs.index)), (r_star, cases[group[0]]["mean_risk"][0]), xytext=(7, 0),
                    textcoords="offset points", va="center", fontsize=9)
    ax.axhline(1, color="0.35", lw=1)
    ax.axhline(1 + band, color="0.35", lw=1, ls=":")
    ax.axvline(r_star, color="0.35", lw=1, ls="--")
    ax.set_yscale("log")
    ax.set_xlabel("student's rank r")
    ax.set_ylabel("risk (noise floors)")
    if ax.get_legend_handles_labels()[0]:  # a §6 teacher stored at the ladder's r*
        ax.legend(frameon=False, loc="center right", title="◆ §5 rungs at r*; §6 teachers:", title_fontsize=9)
    fig.tight_layout()
    return fig
