"""App. B's specification: the section's parameters (``Config``), the paper's claims (``CLAIMS``) and its jobs.

Jobs: per (corpus, d_model, budget), one batched ``CharLM`` training every seed of that size at once
(M = seeds), measured at checkpoints along the way (the trajectory) with every model-side measure of
App. B.1 per layer and head; per corpus, one data-side job (no training): the lag-MI predictor and its
second readings, the unigram entropy H₁ and the two B.4 ablations (ridge and repeat operators). Every
row carries the corpus's provenance (its source and sha256, never a machine's path). Corpora are
located, and an empty or binary file rejected naming it, when the jobs are planned, before any work.

"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ...engine.corpus import corpora
from ...engine.corpus.corpora import CORPUS_NAMES, SOURCES
from ...engine.corpus.preflight import check_planned
from ...jobs.config import (
    SectionConfig,
    distinct_ints,
    fraction,
    fractions,
    non_negative,
    non_negative_int,
    one_of,
    optional,
    ours,
    param,
    positive,
    positive_int,
    some_of,
    text,
)
from ...jobs.store import Job
from ...report.verdicts import Claim

TITLE = "App. B Real-corpus diagnostics"
TABLE = "tbl-real_corpora-appendix_b"  # the label of the page's table beside the paper (the ledger links to it)
# Torch threads per job kind (``jobs.cluster.threads_for``; data jobs run on one): its CPU models trained on
# both cores of a 2-core machine. A job's numbers depend on its thread count, so it is fixed wherever it runs.
THREADS = {"train": 2}

CLAIMS = {
    "pearson": Claim("Pearson r = −0.272: the sign is wrong", -0.272, "App. B.2"),
    "spearman": Claim("Spearman ρ = −0.275", -0.275, "App. B.2"),
    "cv_seed": Claim("all 18 corpus × size cells CV_seed ∈ [0.006, 0.087], below 0.10", 0.087, "App. B.3 (i)"),
    "loss_rank": Claim("final loss and measured R_eff correlate at r = −0.79", -0.79, "App. B.3 (ii), §5"),
    "progress": Claim("it tracks fitting progress, not task complexity", None, "App. B.3 (ii)"),
    "layers": Claim("Layer 1 above Layer 0 (largest model)", None, "App. B.3 (iii)"),
    "layer_values": Claim("Layer 0 R_eff ≈ 13–19, Layer 1 R_eff ≈ 30–44 (largest model)", None, "App. B.3 (iii)"),
    "ffn": Claim("no relationship: Pearson(H₁, FFN stable rank) = −0.05", -0.05, "App. B.3 (iii)"),
    "measure_cv": Claim("every measure: coefficient of variation 0.06–0.20", 0.20, "App. B.4"),
    "predictor_cv": Claim("0.66 for the data-side predictor", 0.66, "App. B.4"),
    "ridge": Claim("collapses to full rank for every corpus", None, "App. B.4"),
    "repeat": Claim("separates only one of six corpora", 1.0, "App. B.4"),
}


@dataclass(frozen=True)
class Config(SectionConfig):
    corpora: tuple = param(CORPUS_NAMES, "char-level corpora (App. B.1)", some_of(*CORPUS_NAMES))
    d_models: tuple = param((64, 128, 256), "model widths (App. B.1)", distinct_ints(1))
    seeds: tuple = param((0, 1, 2, 3, 4), "one model per seed, corpus and width (App. B.1)", distinct_ints(0),
                         paper="five seeds")
    layers: int = param(2, "Transformer layers (App. B.1)", positive_int)
    heads: int = param(4, "attention heads per layer (App. B.1)", positive_int)
    budgets: tuple = ours((1_536_000, 15_360_000), "training tokens per model, one grid per budget "
                           "(equal for every width)", distinct_ints(1))
    context: int = ours(64, "characters per training window", positive_int)
    batch_size: int = ours(16, "windows per AdamW step and model", positive_int)
    lr: float = ours(1e-3, "AdamW learning rate (constant)", positive)
    weight_decay: float = ours(0.01, "AdamW weight decay on weight matrices", non_negative)
    checkpoints: tuple = ours((0.1, 0.25, 0.5, 1.0), "fractions of the budget at which every "
                               "model is measured (the trajectory)", fractions)
    long_corpus: str | None = ours("english", "the corpus of the long run: one model trained far past the "
                                   "budgets, measured at every doubling of its tokens (None: no long run)",
                                   optional(one_of(*CORPUS_NAMES)))
    long_d_model: int = ours(256, "its width", positive_int)
    long_seed: int = ours(0, "its seed", non_negative_int)
    long_tokens: int = ours(61_440_000, "its training tokens (four times the largest budget)", positive_int)
    long_doublings: int = ours(8, "its checkpoints: long_tokens / 2^k for k = 0 … long_doublings, and the "
                                  "largest budget's checkpoints", non_negative_int)
    max_chars: int | None = ours(None, "leading characters used per corpus (None: all)",
                                  optional(positive_int))
    block: int = ours(2048, "block size of the interleaved validation split", positive_int)
    val_every: int = ours(20, "every val_every-th block is held out for validation", positive_int)
    tail_fraction: float = ours(0.05, "the corpus's tail held out as a second validation set", fraction)
    eval_windows: int = ours(256, "validation windows for each loss", positive_int)
    measure_windows: int = ours(64, "validation windows the attention measures average", positive_int)
    max_lag: int | None = ours(None, "lags k = 1 … max_lag of the lag-MI predictor (None: context)",
                                optional(positive_int))
    null_permutations: int = ours(20, "shuffles of the corpus forming the lag-1 null of the earlier lag-MI rule "
                                      "(second reading)", positive_int)
    max_null_permutations: int = ours(39, "shuffled copies forming the max-over-lags null of the lag-MI "
                                          "predictor (false-positive rate 1/40 over all lags)", positive_int)
    min_count: int = ours(20, "rarer characters are pooled into one symbol (predictors)", positive_int)
    lags: int = ours(8, "lags of the canonical-correlation lag operator (second reading)", positive_int)
    symbols: int = ours(32, "its common symbol budget K (rest pooled)", positive_int)
    ablation_context: int = ours(64, "size T of the B.4 ridge and repeat operators", positive_int)
    ablation_windows: int = ours(4096, "windows the B.4 operators are fitted on", positive_int)
    ridge: float = ours(1.0, "ridge penalty of the B.4 ridge operator", positive)
    ridge_width: int = ours(64, "width of its fixed random embedding", positive_int)
    corpus_dir: str | None = ours(None, "directory of <corpus>.txt files read first (None: $ENTROPIC_CORPORA)",
                                   optional(text))
    sources: tuple = ours(("user_dir", "shared", "download"), "where corpora are looked for, in order "
                           "(add substitute to allow labelled local stand-ins)", some_of(*SOURCES))

    def validate(self):
        bad = [d for d in self.d_models if d % self.heads]
        if bad:
            raise ValueError(f"d_models {bad} are not divisible by heads={self.heads}")
        per_step = self.batch_size * self.context
        uneven = [b for b in self.budgets if b % per_step]
        if uneven:
            raise ValueError(f"budgets {uneven} are not whole numbers of steps of batch_size·context = {per_step} "
                             f"tokens")
        if self.long_corpus is not None:
            if self.long_tokens in self.budgets:
                raise ValueError(f"long_tokens {self.long_tokens} equals one of the budgets {list(self.budgets)}: the "
                                 f"long run must have a budget of its own")
            if self.long_corpus not in self.corpora:
                raise ValueError(f"long_corpus {self.long_corpus!r} is not among corpora {list(self.corpora)}")
            if self.long_d_model % self.heads:
                raise ValueError(f"long_d_model {self.long_d_model} is not divisible by heads={self.heads}")
            if self.long_tokens % per_step:
                raise ValueError(f"long_tokens {self.long_tokens} is not a whole number of steps of "
                                 f"batch_size·context = {per_step} tokens")
        short = [b for b in self.budgets if b // per_step < 1 / self.checkpoints[0]]
        if short:
            raise ValueError(f"budgets {short} have fewer steps than the first checkpoint needs "
                             f"({self.checkpoints[0]:g} of the steps must be at least one step)")

    def steps(self, budget: int) -> int:
        return budget // (self.batch_size * self.context)

    def long_checkpoints(self) -> list[int]:
        """The long run's checkpoints (steps): every doubling of its tokens, and the largest budget's
        checkpoints (so the long run meets the grid where they overlap)."""
        steps, largest = self.steps(self.long_tokens), self.steps(max(self.budgets))
        marks = {round(steps / 2**k) for k in range(self.long_doublings + 1)}
        marks |= {round(f * largest) for f in self.checkpoints if f * largest <= steps}
        return sorted(m for m in marks if m >= 1)


# ----------------------------------------------------------------------------- corpora and jobs


@functools.lru_cache(maxsize=8)
def locate(cfg: Config) -> dict[str, corpora.Provenance | str]:
    """Each corpus's provenance, or the message saying where to put a missing one. An empty or binary
    file raises ValueError naming it (before any work). Read and hashed once per configuration and process."""
    out = {}
    for name in cfg.corpora:
        try:
            out[name] = corpora.locate_corpus(name, user_dir=cfg.corpus_dir, sources=cfg.sources,
                                              substitute="substitute" in cfg.sources)
        except corpora.CorpusUnavailable as missing:
            out[name] = str(missing)
    return out


def planned(cfg: Config) -> dict[str, str]:
    """The corpora whose jobs are planned, with the sha256 their jobs name: each corpus found here (its file's), and
    each pinned one that is not (its pin's), so that a clone without the corpora plans, reads and counts the same
    stored jobs as one with them."""
    pinned = "shared" in cfg.sources and not cfg.corpus_dir
    return {name: prov.sha256 if not isinstance(prov, str) else corpora.PINS[name].sha256
            for name, prov in locate(cfg).items() if not isinstance(prov, str) or (pinned and name in corpora.PINS)}


def budget_name(tokens: int) -> str:
    """``1536000`` → ``1.536M``: how a budget appears in job names and tables."""
    return f"{tokens / 1e6:g}M"


def jobs(cfg: Config) -> list[Job]:
    """Per corpus: one data job and one training job per (d_model, budget), smaller budgets first (a CPU
    run finishes the grid it can afford before starting a GPU-sized one); last, the long run (one model
    of ``long_corpus``, see ``Config``), when there is one. A corpus not found on this
    machine keeps its jobs when its text is pinned (``corpora.PINS``: the job names the pinned sha256, so
    stored results are read wherever the project is, and computing one says where to put the file);
    an unpinned missing corpus is skipped (the page lists it). When no corpus is found and none is
    pinned, planning stops here, saying where to put them."""
    sha = planned(cfg)
    if not sha:
        raise ValueError("no corpus found: " + " | ".join(locate(cfg).values()))
    source = {name: cfg.slice("corpus_dir", "sources", "max_chars", "block", "val_every", "tail_fraction",
                              corpus=name, sha256=digest) for name, digest in sha.items()}
    out = [Job(f"{name}-data", {"kind": "data", **source[name], **cfg.slice(
        "context", "null_permutations", "max_null_permutations", "min_count", "lags", "symbols", "ablation_context",
        "ablation_windows", "ridge", "ridge_width", max_lag=cfg.max_lag or cfg.context)}) for name in sha]
    for budget in sorted(cfg.budgets):
        steps = cfg.steps(budget)
        marks = sorted({max(1, round(f * steps)) for f in cfg.checkpoints})
        for d_model in cfg.d_models:
            for name in sha:
                out.append(Job(f"{name}-d{d_model}-{budget_name(budget)}", {
                    "kind": "train", **source[name], **cfg.slice(
                        "seeds", "layers", "heads", "context", "batch_size", "lr", "weight_decay", "eval_windows",
                        "measure_windows", d_model=d_model, tokens=budget, steps=steps, checkpoints=marks)}))
    name = cfg.long_corpus
    if name is not None and name in sha:
        out.append(Job(f"{name}-d{cfg.long_d_model}-{budget_name(cfg.long_tokens)}-seed{cfg.long_seed}-long", {
            "kind": "train", **source[name], **cfg.slice(
                "layers", "heads", "context", "batch_size", "lr", "weight_decay", "eval_windows", "measure_windows",
                seeds=[cfg.long_seed], d_model=cfg.long_d_model, tokens=cfg.long_tokens,
                steps=cfg.steps(cfg.long_tokens), checkpoints=cfg.long_checkpoints())}))
    return out


def preflight(cfg: Config, jobs: list[Job]) -> None:
    """Every corpus ``jobs`` read, checked before the first runs (``preflight.check_planned``): present, the text
    they were planned on, long enough for their split; else one line naming the file and ``make corpora``."""
    check_planned([job.params for job in jobs], "real_corpora")
