"""The figures of the theory and teaching pages label every artist they draw."""

import numpy as np
import pandas as pd
import torch

from entropic.argument import figures as argument_figures
from entropic.argument import teaching
from entropic.report.verdicts import FLOOR_BAND

torch.set_num_threads(1)


def labels(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_figures_label_every_artist_they_draw():
    sweep = teaching.surrogate_sweep(T=6, D=4, r_star=2, n=60, steps=50)
    figure = argument_figures.figure_excess(sweep, 2, FLOOR_BAND, {"excess": "trained"}, height=3.0)
    assert "trained" in labels(figure.axes[0]) and "population optimum (Eckart–Young)" in labels(figure.axes[0])
    assert len(labels(figure.axes[0])) == 4 and figure.get_figheight() == 3.0
    demo = teaching.break_demo(T=5, D=4, r_star=2, n=40, steps=20, fresh=50)
    assert sorted(labels(argument_figures.figure_rungs(demo).axes[-1])) == [
        "bound (token-symmetric)", "fresh inputs", "training set"]
    assert [ax.get_title() for ax in argument_figures.figure_mixers(demo).axes] == [
        "$A^*$ (every $X$)", "$M(X_1)$ of B1c", "$M(X_2)$ of B1c"]


def test_the_spectrum_figure_leaves_out_zero_singular_values_and_draws_the_threshold():
    spectra = {"learned": np.array([2.0, 1.0, 0.01]), "teacher": np.array([2.0, 1.0, 0.0])}
    figure = argument_figures.figure_spectra(spectra, edge=0.1)
    ax = figure.axes[0]
    assert labels(ax) == ["learned", "teacher", "twice the noise edge"]
    assert [len(line.get_xdata()) for line in ax.get_lines()[:2]] == [3, 2]  # the zero is not drawn on a log axis
    assert ax.get_lines()[2].get_ydata()[0] == 0.2


def test_the_static_rank_figure_labels_both_kinds_of_task():
    inside = pd.DataFrame({"r_star": [1, 2], "learned": [1.0, 1.6], "teacher": [1.0, 1.65]})
    outside = inside.assign(learned=[5.0, 5.5])
    ax = argument_figures.figure_static_rank(inside, outside).axes[0]
    assert labels(ax) == [
        "teacher's $\\tilde R_{\\mathrm{eff}}$", "learned, attention-native task", "learned, fixed-operator task"]
    assert ax.get_ylim()[0] == 0 and ax.get_ylim()[1] > 1.1 * 5.5  # the highest marker is not cut by the axis
