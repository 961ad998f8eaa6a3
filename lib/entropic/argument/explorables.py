"""The explorables of the teaching chapter (and the §4 page): figures a reader moves in the page itself, with no
kernel, server or network.

Each is a Bokeh document whose sliders recompute the curve in the page with ``CustomJS`` (Bokeh's JavaScript ships
inside its Python package; ``publish.interactive`` serves it beside the book, and the book's loader fetches it and
draws each explorable when it first comes near the screen), beside the numpy computation of the same quantity here,
which the tests compare with what the page draws. In print, each appears as its static figure at the paper's
settings (``_assets/print.css``).

1. :func:`surrogate_bound`: the §4 surrogate's bound. The best rank-r student of a teacher A* with spectrum λ pays
   ‖V*‖²_F Σ_{j>r} λ_j² above the noise floor σ²Td (Eckart–Young), which, for the paper's value map (entries
   N(0, 1/d), so E‖V*‖²_F = d), is Σ_{j>r} λ_j² / (σ²T) floors: its risk in floors is 1 plus that.
2. :func:`static_against_native`: the stored students of the §5 ladder (a rung, at r*) and of the §6 grid (a
   teacher, at an r*), their risk in floors against their rank, and the ledger's verdicts of the claims on each
   case (:func:`rank_cases`), written into the page when it is built.
3. :func:`rank_from_losses`: a reading of the capacity sweep (a generator of known rank, or a real text), its gaps
   to the full width against the tokens, and the statuses and r̂ the third rule (``text_rank.third``, ported to the
   page) reads at the margin δ and the stored budget a reader chooses (:func:`loss_cases`, :func:`reading_at`).
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
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
    reserved: int = 320  # px the page keeps for it until it is drawn (its plot and controls), so that nothing jumps

    def _repr_html_(self) -> str:
        return as_html(self)

    def __repr__(self) -> str:  # a notebook's plain-text form of it
        return f"{self.name}: {self.alt}"


PRINTED = "In the web book this figure moves: {}."  # the line under an explorable's printed form


def as_html(explorable: Explorable) -> str:
    """The explorable as a page shows it: on screen, the live Bokeh document (its JSON, drawn by the book's loader,
    ``_assets/explorables.js``, when it first comes near the screen); in print, its static PNG and one line saying
    that the web book lets the reader move it (``_assets/print.css``)."""
    import matplotlib.pyplot as plt
    from bokeh.embed import json_item

    from ..report.figures import WIDTH

    item = json.dumps(json_item(explorable.layout)).replace("</", "<\\/")  # JSON that cannot close its script
    static, png = explorable.draw(WIDTH, 2.6), io.BytesIO()
    static.savefig(png, format="png", dpi=150, bbox_inches="tight")
    plt.close(static)  # drawn for this HTML only: not shown again by the notebook
    image = base64.b64encode(png.getvalue()).decode()
    alt = html.escape(explorable.alt, quote=True)
    return (f'<div class="explorable" id="explorable-{explorable.name}">'
            f'<div class="explorable-live" role="group" aria-label="{alt}">'
            f'<div class="explorable-target" style="min-height: {explorable.reserved}px"></div>'
            f'<script type="application/json" class="explorable-item">{item}</script></div>'
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
                      "its sliders change the teacher, the noise and the student's rank", plot.height + 135)


def _on_load(layout, callback) -> None:
    """Run ``callback`` once the page has drawn ``layout`` (its own document's ready event)."""
    from bokeh.document import Document
    from bokeh.events import DocumentReady

    document = Document()
    document.add_root(layout)
    document.js_on_event(DocumentReady, callback)


def _log_plot(xlabel: str, ylabel: str, x_range, y_range=None, height: int = 230):
    ranges = {"x_range": x_range, **({"y_range": y_range} if y_range else {})}  # else drawn to fit the data
    return _plot(xlabel, ylabel, height, y_axis_type="log", **ranges)


def _plot(xlabel: str, ylabel: str, height: int, **axes):
    """A Bokeh figure as every explorable draws one: the column's width, no toolbar, the book's label sizes; ``axes``:
    its axis types and ranges."""
    from bokeh.plotting import figure

    plot = figure(height=height, sizing_mode="stretch_width", toolbar_location=None, x_axis_label=xlabel,
                  y_axis_label=ylabel, **axes)
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
                      "its menus choose the teacher, the ladder's rung and r*", plot.height + 105)


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


# --- 3. reading a rank from a loss curve ---------------------------------------------------------------------------

DELTAS = (0.001, 0.05, 0.001)  # the margin δ's slider: from, to, step (nats per character)
LINEAR_WITHIN = 0.001  # the gap axis is linear within this many nats of zero and logarithmic beyond (asinh)
GAP_TICKS = (-0.1, -0.01, -0.001, 0.0, 0.001, 0.01, 0.1, 1.0)
GREYS = ("#000000", "#555555", "#808080", "#a0a0a0", "#bdbdbd")  # one per width below the full one, narrowest first


def admissible(tokens) -> list[int]:
    """The checkpoints at which the third rule can read: those with at least two checkpoints from half of them on
    (the projection to twice the budget fits a line through them)."""
    tokens = np.asarray(tokens)
    return [int(b) for b in tokens if ((tokens >= b / 2) & (tokens <= b)).sum() >= 2]


def loss_cases(readings: pd.DataFrame) -> dict[str, dict]:
    """What the third explorable shows, per complete reading of the capacity sweep (``text_rank.third.readings``):
    its label, widths, checkpoints, the paired gaps (widths below the full one × seeds × checkpoints), the t
    quantile of its one-sided bounds, its known rank (a generator's; None for a text), the full width's mean excess
    over the floor per checkpoint (None for a text), the budgets the rule can read it at and its own budget. Keyed
    ``corpus|reading|budget``; generators first, in the readings' order."""
    from ..engine import statistics as stats
    from ..sections.text_rank import third

    out = {}
    for _, row in readings[readings["complete"].astype(bool)].iterrows():
        tokens, gaps = row["paired"]
        known, excess = row["known_rank"], row["full_excess"]
        generator = known is not None and not pd.isna(known)  # a generator's known rank; NaN for a text
        budget = int(row["budget"])
        out[f"{row['corpus']}|{row['reading']}|{budget}"] = {
            "label": f"{row['corpus']}, {budget / 1e6:g}M tokens" if generator else
                     f"{row['corpus']}: {row['reading']}, {budget / 1e6:g}M tokens",
            "generator": bool(generator), "grid": [int(r) for r in row["grid"]],
            "tokens": [int(t) for t in tokens], "gaps": np.asarray(gaps, dtype=float).tolist(),
            "t": float(stats.t_quantile(third.CONFIDENCE, gaps.shape[1] - 1)) if gaps.shape[1] > 1 else math.inf,
            "known": int(known) if generator else None, "budget": budget, "budgets": admissible(tokens),
            "excess": None if excess is None or np.ndim(excess) == 0 else np.asarray(excess, float).tolist()}
    return out


def reading_at(case: dict, budget: int, margin: float) -> dict:
    """The third rule on one case at ``budget`` and margin δ, as the page computes it (``text_rank.third``): per
    width below the full one its status, mean gap and upper bound at the budget, the projection's mean and bounds at
    twice the budget and the mean fitted line at half the budget; r̂ and whether it is exact."""
    from ..sections.text_rank import third

    tokens, gaps = np.asarray(case["tokens"]), np.asarray(case["gaps"], dtype=float)
    read = third.read(tokens, gaps, case["grid"], budget, margin)
    at = case["tokens"].index(budget)
    projected = third.projected(tokens, gaps, budget)  # (W, n)
    window = (tokens >= budget / 2) & (tokens <= budget)
    slope, intercept = np.polyfit(np.log2(tokens[window].astype(float)), gaps.mean(1)[:, window].T, 1)
    _, p_low, p_high = third._bounds(projected)
    return {"r_hat": read["r_hat"], "exact": read["exact"], "states": read["states"],
            "mean": gaps[:, :, at].mean(1), "upper": np.array([g[2] for g in read["gap"]]),
            "projected": projected.mean(1), "projected_low": p_low, "projected_high": p_high,
            "fit_start": slope * math.log2(budget / 2) + intercept}


# The page's port of the third rule (text_rank.third: statuses, r_hats, read), in the reader's browser.
_LOSSES_JS = """
const WITHIN = "within δ", PERSISTING = "persisting", CLOSING = "closing", UNRESOLVED = "unresolved";
const c = cases[reading_select.value];
if (cb_obj === reading_select) {  // a new reading starts at its own budget
  budget_slider.end = Math.max(c.budgets.length - 1, 1);
  budget_slider.disabled = c.budgets.length < 2;
  budget_slider.value = c.budgets.indexOf(c.budget);  // moves the slider, which runs this again
}
const delta = delta_slider.value;
const b = c.budgets[Math.min(budget_slider.value, c.budgets.length - 1)];
const at = c.tokens.indexOf(b), n = c.gaps[0].length, M = c.tokens.length;
const sum = (v) => { let s = 0; for (const x of v) s += x; return s; };
const mean = (v) => sum(v) / v.length;
const bounds = (v) => {  // mean and one-sided bounds over the seeds: Student's t
  const m = mean(v);
  const half = n > 1 ? c.t * Math.sqrt(sum(v.map((x) => (x - m) * (x - m))) / (n - 1)) / Math.sqrt(n) : Infinity;
  return [m, m - half, m + half];
};
const inWindow = c.tokens.map((t, i) => i).filter((i) => c.tokens[i] >= b / 2 && c.tokens[i] <= b);
const x = inWindow.map((i) => Math.log2(c.tokens[i])), xm = mean(x);
const sxx = sum(x.map((v) => (v - xm) * (v - xm)));
const line = (y) => { const ym = mean(y), slope = sum(x.map((v, k) => (v - xm) * (y[k] - ym))) / sxx;
                      return [slope, ym - slope * xm]; };
const f = (v) => Math.asinh(v / C);  // the gap axis: linear near zero, logarithmic beyond
const grid = c.grid, W = grid.length - 1, states = [];
const curves = {xs: [], ys: [], color: []}, fits = {xs: [], ys: [], color: []};
const bars = {x0: [], y0: [], x1: [], y1: [], color: []}, dots = {x: [], y: [], color: [], fill: []};
const labels = {x: [], y: [], text: []};
for (let w = 0; w < W; w++) {
  const g = c.gaps[w], color = greys[w % greys.length];
  const [m, , high] = bounds(g.map((s) => s[at]));
  const fitted = g.map((s) => line(inWindow.map((i) => s[i])));
  const [pm, pl, ph] = bounds(fitted.map(([k, i0]) => k * Math.log2(2 * b) + i0));
  const status = high < delta && pl <= delta ? WITHIN : pl > delta ? PERSISTING : ph < delta ? CLOSING : UNRESOLVED;
  states.push(status);
  const means = c.tokens.map((t, j) => mean(g.map((s) => s[j])));
  const [k, i0] = line(inWindow.map((i) => means[i]));
  curves.xs.push(c.tokens.map((t) => t / 1e6)); curves.ys.push(means.map(f)); curves.color.push(color);
  fits.xs.push([b / 2e6, 2 * b / 1e6]); fits.ys.push([f(k * Math.log2(b / 2) + i0), f(pm)]); fits.color.push(color);
  bars.x0.push(b / 1e6, 2 * b / 1e6); bars.x1.push(b / 1e6, 2 * b / 1e6);
  bars.y0.push(f(m), f(pl)); bars.y1.push(f(high), f(ph)); bars.color.push(color, color);
  dots.x.push(b / 1e6); dots.y.push(f(m)); dots.color.push(color); dots.fill.push(status === WITHIN ? color : "white");
  labels.x.push(2 * b / 1e6); labels.y.push(f(pm)); labels.text.push("r = " + grid[w]);
}
let top = 0;
while (top < W && states[W - 1 - top] === WITHIN) top++;  // the widths within δ, counted from the full one down
const hat = grid[W - top], below = grid.indexOf(hat) - 1;
const exact = below < 0 || states[below] === PERSISTING;
curve_source.data = curves; fit_source.data = fits; bar_source.data = bars; dot_source.data = dots;
label_source.data = labels;
rule.data = {r: grid.slice(0, W), status: states};
read.data = {reading: [reading_select.value], r_hat: [hat], exact: [exact], budget: [b], delta: [delta]};
const last = Math.max(c.tokens[M - 1], 2 * b) / 1e6, first = c.tokens[0] / 1e6;
x_range.start = first / 1.25; x_range.end = last * 1.9;
delta_source.data = {x: [x_range.start, x_range.end], y: [f(delta), f(delta)]};
excess_source.data = c.excess ? {x: c.tokens.map((t) => t / 1e6), y: c.excess.map(f)} : {x: [], y: []};
const ys = [f(delta), 0, ...curves.ys.flat(), ...fits.ys.flat(), ...bars.y0, ...bars.y1, ...excess_source.data.y];
const low = Math.min(...ys), high = Math.max(...ys), pad = 0.08 * (high - low);
y_range.start = low - pad; y_range.end = high + pad;
budget_line.location = b / 1e6; box.left = b / 2e6; box.right = b / 1e6;
const shown = (v) => +v.toPrecision(2);
const groups = [WITHIN, PERSISTING, CLOSING, UNRESOLVED]
  .map((s) => [s, grid.slice(0, W).filter((r, w) => states[w] === s)])
  .filter(([, rs]) => rs.length).map(([s, rs]) => s + ": r = " + rs.join(", "));
const widest = grid[W];
let learned = "A text has no known floor: how far its full width has learned is not measured.";
if (c.excess) {
  const e = c.excess[at];
  learned = "Its full width is " + shown(e) + " nats above the floor: " + (e <= delta ? "learned to within δ."
            : "not learned to within δ.");
}
readout.text = "At " + +(b / 1e6).toPrecision(4) + "M tokens, " + groups.join("; ") + ". <b>r̂ "
  + (hat < widest && !exact ? "≤ " : "= ") + hat + "</b> of " + widest
  + (c.known ? " (known rank " + c.known + ")" : "") + ". " + learned;
"""


def rank_from_losses(cases: dict[str, dict], margin: float, chosen: str | None = None) -> Explorable:
    """Reading a rank from a loss curve, moved by hand: for a reading of the capacity sweep (a generator of known
    rank, or a real text), each width's gap to the full width against the training tokens, the projection the rule
    makes to twice the budget, the margin δ and the full width's excess over its floor (a generator's), with the
    statuses and r̂ the third rule reads at the δ and the budget (a stored checkpoint) the sliders set. ``chosen``:
    the reading shown first (default: the first generator whose known rank is the full width)."""
    from bokeh.layouts import column, row
    from bokeh.models import (
        BoxAnnotation,
        ColumnDataSource,
        CustomJS,
        CustomJSTickFormatter,
        Div,
        FixedTicker,
        LabelSet,
        Range1d,
        Select,
        Slider,
        Span,
    )

    if not cases:
        raise ValueError("no reading of the capacity sweep is complete: its students are not stored")
    widest = {key: case["grid"][-1] for key, case in cases.items()}
    chosen = chosen or next((key for key, case in cases.items() if case["known"] == widest[key]), next(iter(cases)))
    case = cases[chosen]
    empty = {"xs": [], "ys": [], "color": []}
    sources = {"curve_source": ColumnDataSource(dict(empty), name="losses-curves"),
               "fit_source": ColumnDataSource(dict(empty), name="losses-fits"),
               "bar_source": ColumnDataSource({"x0": [], "y0": [], "x1": [], "y1": [], "color": []}),
               "dot_source": ColumnDataSource({"x": [], "y": [], "color": [], "fill": []}),
               "label_source": ColumnDataSource({"x": [], "y": [], "text": []}),
               "delta_source": ColumnDataSource({"x": [], "y": []}),
               "excess_source": ColumnDataSource({"x": [], "y": []}, name="losses-excess"),
               "rule": ColumnDataSource({"r": [], "status": []}, name="losses-rule"),
               "read": ColumnDataSource({"reading": [], "r_hat": [], "exact": [], "budget": [], "delta": []},
                                             name="losses-read")}
    plot = _plot("training tokens (millions)", "gap to full width (nats)", 200, x_axis_type="log",
                 x_range=Range1d(1, 10), y_range=Range1d(-1, 1))  # ranges set by the page's code when it draws
    plot.yaxis.ticker = FixedTicker(ticks=[math.asinh(v / LINEAR_WITHIN) for v in GAP_TICKS])
    plot.yaxis.formatter = CustomJSTickFormatter(
        args={"C": LINEAR_WITHIN}, code="const v = C * Math.sinh(tick); return Math.abs(v) < 1e-9 ? '0' : "
                                        "String(+v.toPrecision(1));")
    box = BoxAnnotation(fill_color="#888888", fill_alpha=0.15, line_alpha=0)  # the window the projection reads
    budget_line = Span(dimension="height", line_color="#555555", line_width=1.5, name="losses-budget-line")
    plot.add_layout(box)
    plot.add_layout(budget_line)
    plot.add_layout(Span(location=0, dimension="width", line_color="#555555", line_width=1))
    plot.line("x", "y", source=sources["delta_source"], line_dash="dashed", line_width=2, color="black")
    plot.line("x", "y", source=sources["excess_source"], line_dash="dashdot", line_width=2.5, color="black")
    plot.multi_line("xs", "ys", source=sources["curve_source"], color="color", line_width=2)
    plot.multi_line("xs", "ys", source=sources["fit_source"], color="color", line_width=2, line_dash="dotted")
    plot.segment("x0", "y0", "x1", "y1", source=sources["bar_source"], color="color", line_width=2)
    plot.scatter("x", "y", source=sources["dot_source"], size=8, line_color="color", fill_color="fill", line_width=2)
    plot.add_layout(LabelSet(x="x", y="y", text="text", source=sources["label_source"], x_offset=5, y_offset=-7,
                             text_font_size="12px"))

    groups: dict[str, list] = {"generators of known rank": [], "real texts": []}
    for key, one in cases.items():
        groups["generators of known rank" if one["generator"] else "real texts"].append((key, one["label"]))
    reading_select = Select(title="reading", value=chosen, options={k: v for k, v in groups.items() if v},
                            name="losses-reading")
    delta_slider = Slider(title="margin δ (nats)", start=DELTAS[0], end=DELTAS[1], step=DELTAS[2],
                          value=float(margin), format="0.000", name="losses-delta")
    budget_slider = Slider(title="budget read", start=0, end=max(len(case["budgets"]) - 1, 1),
                           step=1, value=case["budgets"].index(case["budget"]), show_value=False,
                           disabled=len(case["budgets"]) < 2, name="losses-budget")
    readout = Div(text="", name="losses-readout", styles={"font-size": "14px", "text-align": "left"})
    update = CustomJS(args={"cases": cases, "reading_select": reading_select, "delta_slider": delta_slider,
                            "budget_slider": budget_slider, "readout": readout, "x_range": plot.x_range,
                            "y_range": plot.y_range, "box": box,
                            "budget_line": budget_line, "C": LINEAR_WITHIN, "greys": list(GREYS), **sources},
                      code=_LOSSES_JS)
    for widget in (reading_select, delta_slider, budget_slider):
        widget.js_on_change("value", update)
        widget.sizing_mode = "stretch_width"
    readout.sizing_mode = "stretch_width"
    layout = column(plot, row(reading_select, delta_slider, budget_slider, sizing_mode="stretch_width"), readout,
                    sizing_mode="stretch_width", name="rank-from-losses")
    _on_load(layout, update)
    alt = ("Interactive chart: for a reading of the capacity sweep, each width's gap to the full width against the "
           "training tokens, its projection to twice the budget and the margin δ; sliders set δ and the budget, and "
           "the page lists each width's status and the rank read.")
    return Explorable("rank-from-losses", layout, partial(_losses_static, case, margin), alt,
                      "its menu chooses the reading, its sliders the margin δ and the budget", plot.height + 105)


def _losses_static(case: dict, margin: float, width: float, height: float):
    """The third explorable's static form: its first reading at δ and the reading's own budget."""
    import matplotlib.pyplot as plt

    budget, found = case["budget"], reading_at(case, case["budget"], margin)
    tokens, gaps = np.asarray(case["tokens"]) / 1e6, np.asarray(case["gaps"], dtype=float)
    b = budget / 1e6
    fig, ax = plt.subplots(figsize=(width, height))
    ax.axvspan(b / 2, b, color="0.88", lw=0)
    ax.axhline(0, color="0.35", lw=0.8)
    ax.axhline(margin, color="black", lw=1.5, ls="--")
    if case["excess"] is not None:
        ax.plot(tokens, case["excess"], color="black", lw=2, ls="-.")
    grid = case["grid"]
    for w, (r, status) in enumerate(zip(grid[:-1], found["states"], strict=True)):
        color = GREYS[w % len(GREYS)]
        ax.plot(tokens, gaps[w].mean(0), color=color, lw=1.8)
        ax.plot([b / 2, 2 * b], [found["fit_start"][w], found["projected"][w]], color=color, lw=1.8, ls=":")
        ax.plot([b, b], [found["mean"][w], found["upper"][w]], color=color, lw=1.8)
        ax.plot([2 * b] * 2, [found["projected_low"][w], found["projected_high"][w]], color=color, lw=1.8)
        ax.plot([b], [found["mean"][w]], "o", color=color, mfc=color if status == "within δ" else "white", ms=6)
        ax.annotate(f"r = {r}", (2 * b, found["projected"][w]), xytext=(5, -3), textcoords="offset points",
                    fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("asinh", linear_width=LINEAR_WITHIN)
    low, high = ax.get_ylim()
    ax.set_yticks([v for v in GAP_TICKS if low <= v <= high], [f"{v:g}" for v in GAP_TICKS if low <= v <= high])
    ax.minorticks_off()
    ax.set_xlim(left := tokens[0] / 1.25, right := max(tokens[-1], 2 * b) * 1.9)
    ticks = [v for v in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50) if left <= v <= right]
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.set_xlabel("training tokens (millions)")
    ax.set_ylabel("gap to full width (nats)")
    hat = f"≤ {found['r_hat']}" if found["r_hat"] < grid[-1] and not found["exact"] else f"= {found['r_hat']}"
    known = f", known rank {case['known']}" if case["known"] else ""
    ax.set_title(f"{case['label']}: r̂ {hat}{known} (δ = {margin:g})", fontsize=9)
    fig.tight_layout()
    return fig
