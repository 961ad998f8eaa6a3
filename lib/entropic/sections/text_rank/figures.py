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
    """Validation loss above the full-width student's against the query–key width r (log₂ axis), seed means with
    the seeds' range as bars: the routing corpus (the power check, its kernel's rank marked) on the left, the real
    corpora on the right; the grey band is each curve's tolerance τ (the widest one drawn)."""
    table = curves(students[students["tokens"] == tokens])
    found = ranks(students[students["tokens"] == tokens], cfg.ranks).set_index("corpus")
    fig, axes = plt.subplots(1, 2, figsize=(figures.WIDTH, 3.8), sharey=False)
    groups = [(axes[0], [ROUTING], "routing corpus (known rank)"),
              (axes[1], [c for c in cfg.corpora if c in set(students["corpus"])], "the real corpora")]
    for ax, corpora, title in groups:
        taus = []
        for i, corpus in enumerate(corpora):
            if corpus not in table.index.get_level_values("corpus"):
                continue
            curve = table.xs(corpus, level="corpus").xs(tokens, level="tokens").sort_index()
            if not set(cfg.ranks) <= set(curve.index):  # a corpus is drawn once every width of its sweep is stored
                continue
            excess = curve["mean"] - curve.loc[cfg.widest, "mean"]
            own = students[(students["corpus"] == corpus) & (students["tokens"] == tokens)]
            spread = own.groupby("rank")["val_loss"].agg(["min", "max"]).reindex(curve.index)
            low, high = excess - (spread["min"] - curve["mean"]).abs(), excess + (spread["max"] - curve["mean"]).abs()
            shift = 1 + 0.03 * (i - (len(corpora) - 1) / 2)
            ax.errorbar(curve.index * shift, excess, yerr=[excess - low, high - excess], marker=figures.MARKERS[i],
                        ls=figures.DASHES[i % len(figures.DASHES)], color=f"C{i}", ms=5, capsize=2, label=corpus)
            if corpus in found.index and np.isfinite(found.loc[corpus, "tau"]):
                taus.append(found.loc[corpus, "tau"])
        if taus:
            ax.axhspan(0, max(taus), color="grey", alpha=0.2, lw=0, label="within τ of the full width")
        if ax is axes[0]:
            ax.axvline(cfg.routing_rank, color="C3", ls=":", lw=1.4, label=f"its rank r* = {cfg.routing_rank}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(cfg.ranks), [str(r) for r in cfg.ranks])
        ax.set(xlabel="query–key width r", title=title)
        ax.set_ylabel("validation loss above r = full\n(nats per character)" if ax is axes[0] else "")
    fig.tight_layout()
    for ax in axes:  # each panel's legend below it, off its curves
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.24),
                      ncol=2 if len(labels) > 3 else 1,
                      frameon=False, columnspacing=0.8, handlelength=1.6)
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
