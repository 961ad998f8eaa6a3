"""The capacity sweep's figures: the deficiency curves of the power check beside those of the real corpora, the
calibration of the reading at known ranks beside the real corpora's r̂ with their intervals, and the learned
kernels' ranks against the width they were allowed."""

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
    fig, axes = plt.subplots(rows, columns, figsize=(figures.WIDTH, 0.6 + 2.1 * rows), sharex=True, sharey=True,
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
        ax.set_title(f"{corpus}: r̂ = {int(row['r_hat'])}, {int(row['seeds'])} seeds")
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
    """Each real corpus's mean paired gap to the full width against the training tokens (log axis), one line per
    width (colour), as the third declaration reads it (its deciding reading, or while that one is incomplete its
    stored seeds, named in the title); dotted, each width's projection to twice the budget (the mean of the seeds'
    lines from half the budget to the budget); the band from 0 to δ is the margin. The panels share both axes."""
    table = found["readings"]
    drawn = []
    for corpus in cfg.corpora:
        own = table[(table["corpus"] == corpus) & table["complete"].astype(bool)]
        if len(own):
            drawn.append((corpus, own.iloc[0]))
    columns = 3
    rows = max(1, -(-len(drawn) // columns))
    fig, axes = plt.subplots(rows, columns, figsize=(figures.WIDTH, 1.2 + 2.2 * rows), sharex=True, sharey=True,
                             squeeze=False)
    widths = sorted(cfg.ranks)[:-1]
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(widths)))
    top, bottom = cfg.margin, -cfg.margin
    for ax, (corpus, row) in zip(axes.flat, drawn, strict=False):
        tokens, means = row["curves"]
        late = tokens >= cfg.tokens / 2
        top, bottom = max(top, means[:, late].max(), max(row["projected"])), min(bottom, means[:, late].min())
        ax.axhspan(0, cfg.margin, color="grey", alpha=0.3, lw=0, label=f"margin δ = {cfg.margin:g}")
        ax.axhline(0, color="black", lw=0.6)
        for width, colour, mean, ahead in zip(widths, colours, means, row["projected"], strict=True):
            ax.plot(tokens, mean, marker="o", ms=3, color=colour, lw=1.4, label=f"r = {width}")
            ax.plot([tokens[-1], 2 * tokens[-1]], [mean[-1], ahead], color=colour, lw=1.2, ls=":")
        hat = f"≤ {int(row['r_hat'])}" if row["r_hat"] < cfg.widest and not row["exact"] else f"{int(row['r_hat'])}"
        ax.set_title(f"{corpus}: r̂ {'' if hat.startswith('≤') else '= '}{hat}\n{row['reading']}", fontsize="small")
        ax.set_xscale("log")
    # the reading happens from half the budget on: the axis shows that range in full and cuts the early widest gaps
    pad = 0.08 * (top - bottom)
    ticks = [cfg.tokens / 2, cfg.tokens, 2 * cfg.tokens]  # where the reading starts, the budget, the projection
    for ax in axes.flat[:len(drawn)]:
        ax.set_ylim(bottom - pad, top + pad)
        ax.set_xticks(ticks, ["T/2", "T", "2T"])
        ax.minorticks_off()
        ax.tick_params(labelbottom=True, labelsize="small")
    for ax in axes.flat[len(drawn):]:
        ax.set_axis_off()
    for ax in axes[:, 0]:
        ax.set_ylabel("gap to full width\n(nats per char)")
    axes[-1, columns // 2].set_xlabel(f"training tokens (the budget T = {cfg.tokens / 1e6:.3g}M)")
    if drawn:
        handles, labels = axes.flat[0].get_legend_handles_labels()
        handles.append(plt.Line2D([], [], color="grey", ls=":"))
        labels.append("projected to 2× budget")
        fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize="small")
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


def _legend_in(spare, axes) -> None:
    """Every panel's labelled artists, once each, as a legend filling the ``spare`` slot."""
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    spare.legend(list(handles.values()), list(handles), loc="center", frameon=False, handlelength=1.6)


def figure_calibration(found: dict, cfg):
    """Above, r̂ against the routing corpus's known rank r* (90 % intervals as bars) beside the diagonal and the band
    of one grid step (r*/2 to 2r*); below, each real corpus's r̂ with its 90 % interval (the deciding reading, filled;
    a reading shown beside it, hollow), over the calibrated range of known ranks read (shaded)."""
    calib = found["calibration"]
    calib = calib[calib["complete"]] if len(calib) else calib
    table = found["readings"]
    real = table[table["known_rank"].isna() & table["complete"]]
    corpora = [c for c in cfg.corpora if c in set(real["corpus"])]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(figures.WIDTH, 2.6 + 0.42 * max(len(corpora), 3) + 2.6),
                                      height_ratios=[2.6, 0.42 * max(len(corpora), 3)])
    grid = sorted(cfg.ranks)
    band = np.array(grid, dtype=float)
    top.fill_between(band, band / 2, band * 2, color="C2", alpha=0.15, lw=0, label="within one grid step")
    top.plot(band, band, color="k", ls="--", lw=0.8, label="r̂ = r*")
    if len(calib):
        hats = calib["r_hat"].astype(float).to_numpy()
        low = np.array([i[0] for i in calib["interval"]], dtype=float)
        high = np.array([i[1] for i in calib["interval"]], dtype=float)
        top.errorbar(calib["known rank"], hats, yerr=[hats - low, high - hats], marker="o", ms=7, color="C3",
                     capsize=3, ls="none", label="r̂ (bars: 90 % interval)")
    for ax in (top, bottom):
        ax.set_xscale("log", base=2)
        ax.set_xticks(grid, [str(r) for r in grid])
        ax.set_xlim(grid[0] / 1.5, grid[-1] * 1.5)
    top.set_yscale("log", base=2)
    top.set_yticks(grid, [str(r) for r in grid])
    top.set_ylim(grid[0] / 1.5, grid[-1] * 1.5)
    top.set(xlabel="known rank r* of the routing kernel", ylabel="r̂ read by the sweep")
    span = found["range"]
    if span is not None:
        bottom.axvspan(span[0], span[1], color="C1", alpha=0.15, lw=0, label="known ranks read")
    for k, corpus in enumerate(corpora):
        for _, row in real[real["corpus"] == corpus].iterrows():
            y = len(corpora) - 1 - k + (0 if row["decides"] else -0.25)
            low, high = row["interval"]
            face = "C0" if row["decides"] else "white"
            bottom.errorbar([row["r_hat"]], [y], xerr=[[row["r_hat"] - low], [high - row["r_hat"]]], marker="o",
                            ms=7, color="C0", mfc=face, capsize=3, ls="none",
                            label="r̂, deciding reading" if row["decides"] else "r̂, reading shown beside")
    bottom.set_yticks(range(len(corpora)), corpora[::-1])
    bottom.set_ylim(-0.7, len(corpora) - 0.4)
    bottom.set_xlabel("r̂ of the real corpus (bars: 90 % interval)")
    bottom.grid(axis="y", visible=False)
    fig.tight_layout()
    figures.legend_below(fig, [top, bottom], ncol=2)
    return fig


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
