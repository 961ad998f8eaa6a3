"""The figures of the theory and teaching pages label every artist they draw."""

import torch

from entropic.argument import figures as argument_figures
from entropic.argument import teaching
from entropic.report.verdicts import FLOOR_BAND

torch.set_num_threads(1)


def test_figures_label_every_artist_they_draw():
    sweep = teaching.surrogate_sweep(T=6, D=4, r_star=2, n=60, steps=50)
    figure = argument_figures.figure_excess(sweep, 2, FLOOR_BAND, {"excess": "trained"})
    labels = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert "trained" in labels and "population optimum (Eckart–Young)" in labels and len(labels) == 4
    demo = teaching.break_demo(T=5, D=4, r_star=2, n=40, steps=20, fresh=50)
    bars = argument_figures.figure_break(demo).axes[-1]
    labels = [text.get_text() for text in bars.get_legend().get_texts()]
    assert sorted(labels) == ["least population excess of any equivariant predictor", "on fresh inputs (population)",
                              "on its training set"]
