"""The capacity sweep's figures: the deciding rule's reading per corpus against the budget, the second declaration's
deficiency curves of the power check beside those of the real corpora, and the learned kernels' ranks against the
width they were allowed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...report import figures
from . import second
from .spec import ROUTING


def figure_deficiency(students: pd.DataFrame, found: dict, cfg, tokens: int):
    """Validation loss above the full-width student's against the query–key width r (log₂ axis), one panel per
    corpus with a complete reading (the power check's routing corpus first, its kernel's rank marked), as the second
    declaration reads it: seed means with the seeds' range as bars, their non-increasing fit as a line, the reading's
    tolerance τ as a grey band and r̂ as a marker on the top edge; the title names the reading's seeds. The panels
    share both axes, so that the size of a deficiency compares across corpora."""
    drawn = [(c, row) for c in [ROUTING, *cfg.corpora] if (row := second.shown(found, c)) is not None]
    columns = 2
    rows = max(1, -(-(len(drawn) + 1) // columns))  # one slot more, for the legend
    fig, axes = plt.subplots(rows, columns, figsize=(figures.WIDTH, 0.6 + 2.5 * rows), sharex=True, sharey=True,
                             squeeze=False)
    for ax, (corpus, row) in zip(axes.flat, drawn, strict=False):
        own = second.selected(students[students["corpus"] == corpus], cfg, row["seed_list"], row["full width"], tokens)
        by = own.groupby("rank")["val_loss"]
        full = row["fitted"][-1]
        mean = by.mean().reindex(row["grid"])
        ax.axhspan(0, row["tau"], color="grey", alpha=0.25, lw=0, label="within τ of full width")
        if corpus == ROUTING:
            ax.axvline(cfg.routing_rank, color="C2", ls=":", lw=2, label=f"known rank r* = {cfg.routing_rank}")
        ax.errorbar(row["grid"], mean - full, yerr=[mean - by.min().reindex(row["grid"]),
                                                    by.max().reindex(row["grid"]) - mean],
                    marker="o", color="C0", ms=4, capsize=2, ls="none", label="seed mean (bars: range)")
        ax.plot(row["grid"], row["fitted"] - full, color="C0", lw=1.5, label="non-increasing fit")
        # a marker on the panel's top edge, so that a line at r* stays visible beside it
        ax.plot([row["r_hat"]], [0.93], marker="v", ms=9, color="C3", ls="none", transform=ax.get_xaxis_transform(),
                label="r̂ (second declaration)")
        ax.set_title(f"{corpus}\nr̂ = {int(row['r_hat'])}, {int(row['seeds'])} seeds")  # two lines: never overlapping
    for ax in axes.flat[len(drawn):]:
        ax.set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("above full width\n(nats per char)")
    for ax in axes.flat[:len(drawn)]:
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(cfg.ranks), [str(r) for r in cfg.ranks])
        ax.tick_params(labelbottom=True)
    for ax in axes.flat[max(0, len(drawn) - columns):len(drawn)]:
        ax.set_xlabel("query–key width r")
    fig.tight_layout()
    if drawn:
        _legend_in(axes.flat[len(drawn)], axes.flat[:len(drawn)])
    return fig


def figure_budget(found: dict, cfg):
    """Per real corpus, what the deciding rule compares with the margin δ: each width's upper one-sided bound of the
    paired gap to the full width at every checkpoint from half the budget on (a line, one colour per width of the
    whole grid), and at twice the budget the lower bound of the projected gap (a hollow marker). The reading drawn is
    the corpus's deciding one where stored, else its stored seeds at the third declaration's budget (the title says
    which). The y axis is linear within δ of zero and logarithmic beyond (symlog), so that every line shows whole;
    every checkpoint drawn is labelled, in millions of tokens."""
    table = found["readings"]
    drawn = []
    for corpus in cfg.corpora:
        own = table[(table["corpus"] == corpus) & table["complete"].astype(bool)]
        if len(own):
            drawn.append((corpus, own.iloc[0]))
    columns = 2
    rows = max(1, -(-len(drawn) // columns))
    fig, axes = plt.subplots(rows, columns, figsize=(figures.WIDTH, 1.0 + 2.3 * rows), sharey=True, squeeze=False)
    grid = sorted({*cfg.ranks, *cfg.amended_ranks})[:-1]
    colours = dict(zip(grid, plt.cm.viridis(np.linspace(0, 0.9, len(grid))), strict=True))
    top, bottom = cfg.margin, -cfg.margin
    for ax, (corpus, row) in zip(axes.flat, drawn, strict=False):
        tokens, budget = np.asarray(row["curves"][0], dtype=float), float(row["budget"])
        late = tokens >= budget / 2
        ax.axhspan(0, cfg.margin, color="grey", alpha=0.3, lw=0, label=f"margin δ = {cfg.margin:g}")
        ax.axhline(0, color="black", lw=0.6)
        for width, upper, low in zip(row["grid"][:-1], row["upper"], row["projected_low"], strict=True):
            ax.plot(tokens[late], upper[late], marker="o", ms=3, color=colours[width], lw=1.4, label=f"r = {width}")
            ax.plot([2 * budget], [low], marker="o", ms=5, mfc="white", color=colours[width], ls="none")
            top, bottom = max(top, float(np.max(upper[late])), float(low)), min(bottom, float(np.min(upper[late])),
                                                                                 float(low))
        hat = f"≤ {int(row['r_hat'])}" if row["r_hat"] < cfg.widest and not row["exact"] else f"= {int(row['r_hat'])}"
        ax.set_title(f"{corpus}: r̂ {hat}\n{row['reading']}, {budget / 1e6:g}M", fontsize="small")
        ax.set_xscale("log")
        ticks = [*tokens[late], 2 * budget]
        ax.set_xticks(ticks, [f"{t / 1e6:.3g}" for t in ticks], rotation=90)
        ax.minorticks_off()
        ax.tick_params(labelsize="small")
    for ax in axes.flat[:len(drawn)]:
        ax.set_yscale("symlog", linthresh=cfg.margin)
        ax.set_ylim(bottom * 1.6, top * 1.6)
        ticks = [t for t in (-1, -0.1, -cfg.margin, 0, cfg.margin, 0.1, 1) if bottom * 1.6 <= t <= top * 1.6]
        ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
        ax.grid(axis="y", visible=False)
    for ax in axes.flat[len(drawn):]:
        ax.set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("gap to full width\n(nats per char)")
    for ax in axes[-1]:
        ax.set_xlabel("training tokens (M)")
    if drawn:
        handles = {}
        for ax in axes.flat[:len(drawn)]:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(label, handle)
        handles["at 2× budget: lower bound"] = plt.Line2D([], [], marker="o", mfc="white", color="grey", ls="none")
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=4, frameon=False,
                   fontsize="small", columnspacing=1.0, handlelength=1.5)
    fig.tight_layout(rect=(0, 0.07 + 0.03 * (len(handles) > 4 if drawn else 0), 1, 1))
    return fig


def _legend_in(spare, axes) -> None:
    """Every panel's labelled artists, once each, as a legend filling the ``spare`` slot."""
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    spare.legend(list(handles.values()), list(handles), loc="center", frameon=False, handlelength=1.6)


def figure_kernels(students: pd.DataFrame, cfg, tokens: int):
    """The learned kernels' mean per-head energy effective rank R̃_eff (eq. 2) against the width r they were allowed,
    per corpus, beside the diagonal R̃_eff = r."""
    own = students[(students["tokens"] == tokens)].dropna(subset=["kernel_energy_rank"])
    fig, ax = plt.subplots(figsize=(figures.WIDTH, 3.8))
    ax.plot(list(cfg.ranks), list(cfg.ranks), color="k", ls="--", lw=0.8, label="R̃_eff = r")
    for i, corpus in enumerate(dict.fromkeys(own["corpus"])):
        stats = own[own["corpus"] == corpus].groupby("rank")["kernel_energy_rank"].mean()
        ax.plot(stats.index, stats.values, marker=figures.MARKERS[i % len(figures.MARKERS)],
                ls=figures.DASHES[i % len(figures.DASHES)], color=f"C{i}", ms=5, label=corpus)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(list(cfg.ranks), [str(r) for r in cfg.ranks])
    ax.set(xlabel="query–key width r", ylabel="learned R̃_eff per head (eq. 2)")
    fig.tight_layout()
    figures.legend_below(fig, ax, ncol=4)
    return fig
