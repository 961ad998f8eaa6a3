"""The capacity sweep's figures: the deficiency curves of the power check beside those of the real corpora, and the
learned kernels' ranks against the width they were allowed."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...report import figures
from .analysis import curves, ranks
from .spec import ROUTING


def figure_deficiency(students: pd.DataFrame, cfg, tokens: int):
    """Validation loss above the full-width student's against the query–key width r (log₂ axis), one panel per
    corpus whose every width is stored (the routing corpus, the power check, first, its kernel's rank marked):
    seed means with the seeds' range as bars, the corpus's own tolerance τ as a grey band and its r̂ as a marker
    on the top edge. The panels share both axes, so that the size of a deficiency compares across corpora."""
    table = curves(students[students["tokens"] == tokens])
    found = ranks(students[students["tokens"] == tokens], cfg.ranks).set_index("corpus")
    stored = set(table.index.get_level_values("corpus"))
    drawn = []
    for corpus in [ROUTING, *cfg.corpora]:
        if corpus in stored:
            curve = table.xs(corpus, level="corpus").xs(tokens, level="tokens").sort_index()
            if set(cfg.ranks) <= set(curve.index):  # a corpus is drawn once every width of its sweep is stored
                drawn.append((corpus, curve))
    columns = 2
    rows = max(1, -(-(len(drawn) + 1) // columns))  # one slot more, for the legend
    fig, axes = plt.subplots(rows, columns, figsize=(figures.WIDTH, 0.6 + 2.1 * rows), sharex=True, sharey=True,
                             squeeze=False)
    for ax, (corpus, curve) in zip(axes.flat, drawn, strict=False):
        excess = curve["mean"] - curve.loc[cfg.widest, "mean"]
        own = students[(students["corpus"] == corpus) & (students["tokens"] == tokens)]
        spread = own.groupby("rank")["val_loss"].agg(["min", "max"]).reindex(curve.index)
        below, above = (curve["mean"] - spread["min"]).abs(), (spread["max"] - curve["mean"]).abs()
        tau = found.loc[corpus, "tau"] if corpus in found.index else np.nan
        hat = found.loc[corpus, "r_hat"] if corpus in found.index else np.nan
        if np.isfinite(tau):
            ax.axhspan(0, tau, color="grey", alpha=0.25, lw=0, label="within τ of full width")
        if corpus == ROUTING:
            ax.axvline(cfg.routing_rank, color="C2", ls=":", lw=2, label=f"known rank r* = {cfg.routing_rank}")
        ax.errorbar(curve.index, excess, yerr=[below, above], marker="o", color="C0", ms=4, capsize=2,
                    label="seed mean (bars: range)")
        if pd.notna(hat):  # a marker on the panel's top edge, so that a line at r* stays visible beside it
            ax.plot([hat], [0.93], marker="v", ms=9, color="C3", ls="none", transform=ax.get_xaxis_transform(),
                    label="r̂ (declared rule)")
        ax.set_title(f"{corpus}: r̂ = {int(hat)}" if pd.notna(hat) else corpus)
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
        handles = {}
        for ax in axes.flat[:len(drawn)]:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                handles.setdefault(label, handle)
        spare = axes.flat[len(drawn)]  # the slot kept for the legend
        spare.legend(list(handles.values()), list(handles), loc="center", frameon=False, handlelength=1.6)
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
