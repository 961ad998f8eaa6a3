"""The capacity sweep's specification: its parameters (``Config``), what it judges (``CLAIMS``) and its jobs.

Jobs, one model each (``RankedLM`` trains one model as a plain program, the faster one on a CPU): per real
corpus, per query–key width r and seed, a student of App. B's architecture whose heads' query and key maps have
width r, trained with App. B's protocol on App. B's split of that corpus and measured at App. B's checkpoints; the
same on the routing corpus (the power check, every r); and one reuse check (see ``Config.check_corpus``). With
``reuse`` the r = D/H students of the real corpora are not trained: they are App. B's stored models (same
architecture, protocol, split, seeds and checkpoint), read by the page from App. B's store.

The second declaration (``declared.SECOND``) adds three kinds of the same job: the routing corpus at further
known ranks (``known_ranks``, the calibration), seeds ``more_seeds`` below the full width for ``more_seeds_for``,
and the full-width students of ``one_engine`` trained by the sweep's engine (every seed they are read with).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from ...engine.corpus import corpora
from ...engine.corpus.corpora import CORPUS_NAMES, SOURCES
from ...engine.corpus.preflight import check_planned
from ...jobs.config import (
    SectionConfig,
    distinct_ints,
    flag,
    fraction,
    fractions,
    generator_specs,
    non_negative,
    non_negative_int,
    one_of,
    optional,
    or_none,
    ours,
    param,
    patterns,
    positive,
    positive_int,
    some_of,
    text,
)
from ...jobs.store import Job

TITLE = "The attention-native rank of real text (beyond the paper)"
TABLE = "tbl-text_rank-verdicts"  # the label of the page's table of verdicts (the ledger links to it)
ROUTING = "routing"  # the name of the power check's corpus in jobs and tables
COPYING = "copying"  # the name of the third declaration's second generator in jobs and tables
READS = ("real_corpora",)  # its page reads App. B's stored r = D/H models and lag-MI predictor

# The paper makes no claim this section could reproduce: it names the question open (§7, App. C). The page judges
# the hypotheses it declared (``declared``) by their own rules, and the ledger of the paper's claims has no row here.
CLAIMS: dict = {}


@dataclass(frozen=True)
class Config(SectionConfig):
    corpora: tuple = param(CORPUS_NAMES, "App. B's char-level corpora", some_of(*CORPUS_NAMES))
    ranks: tuple = ours((1, 2, 4, 8, 16, 32), "widths r of every head's query and key maps (W_QK^h of rank ≤ r)",
                        distinct_ints(1))
    seeds: tuple = ours((0, 1, 2), "one student per seed, corpus and r", distinct_ints(0))
    d_model: int = param(128, "model width d_model (App. B.1's middle width)", positive_int)
    layers: int = param(2, "Transformer layers (App. B.1)", positive_int)
    heads: int = param(4, "attention heads per layer (App. B.1)", positive_int)
    tokens: int = ours(7_680_000, "training tokens per student (the budget)", positive_int)
    checkpoints: tuple = ours((0.2, 0.5, 1.0), "fractions of the budget at which every student is measured",
                              fractions)
    context: int = ours(64, "characters per training window (App. B's)", positive_int)
    batch_size: int = ours(16, "windows per AdamW step (App. B's)", positive_int)
    lr: float = ours(1e-3, "AdamW learning rate, constant (App. B's)", positive)
    weight_decay: float = ours(0.01, "AdamW weight decay on weight matrices (App. B's)", non_negative)
    max_chars: int | None = ours(None, "leading characters used per corpus (None: all)", optional(positive_int))
    block: int = ours(2048, "block size of App. B's interleaved validation split", positive_int)
    val_every: int = ours(20, "every val_every-th block is held out for validation", positive_int)
    tail_fraction: float = ours(0.05, "the corpus's tail held out as a second validation set", fraction)
    eval_windows: int = ours(256, "validation windows for each loss", positive_int)
    reuse: bool = ours(True, "the widest students (r = d_model/heads) of the real corpora are App. B's stored "
                             "models at this budget, not trained again", flag)
    check_corpus: str | None = ours("english", "the corpus whose widest seed-0 student is trained again by this "
                                               "sweep's engine, to check the reuse (None: no check)",
                                    optional(one_of(*CORPUS_NAMES)))
    routing_keys: int = ours(32, "routing corpus: keys K of its memory characters", positive_int)
    routing_values: int = ours(4, "routing corpus: values U (K·U memory and U answer characters)", positive_int)
    routing_rank: int = ours(8, "routing corpus: rank r* of its routing kernel", positive_int)
    routing_scale: float = ours(6.0, "routing corpus: root mean square of the kernel's entries", positive)
    known_ranks: tuple = ours((2, 16), "further known ranks r* of the routing corpus's kernel, each swept like the "
                                       "power check (the calibration of the reading)", or_none(distinct_ints(1)))
    more_seeds: tuple = ours((3, 4), "further seeds, below the full width, for the corpora of more_seeds_for",
                             or_none(distinct_ints(0)))
    more_seeds_for: tuple = ours(("music", "python", "shakespeare"), "corpora whose low-rank outcome the second "
                                 "declaration leaves undecided at three seeds", or_none(some_of(*CORPUS_NAMES)))
    one_engine: tuple = ours(("music", "python", "shakespeare"), "corpora whose full-width students are trained by "
                             "the sweep's engine as well (every seed they are read with)",
                             or_none(some_of(*CORPUS_NAMES)))
    margin: float = ours(0.01, "the third declaration's equivalence margin δ (nats per character)", positive)
    third_checkpoints: tuple = ours((0.2, 0.5, 0.625, 0.75, 0.875, 1.0), "fractions of the budget at which the "
                                    "third declaration's students are measured", fractions)
    third_ranks: tuple = ours((4, 32), "known ranks r* of the routing corpus read by the third declaration",
                              or_none(distinct_ints(1)))
    copying_ranks: tuple = ours((4, 16), "known ranks r* of the copying corpus (the third declaration's second "
                                         "generator)", or_none(distinct_ints(1)))
    copying_symbols: int = ours(32, "copying corpus: symbols K", positive_int)
    copying_share: float = ours(0.5, "copying corpus: probability c that the next symbol is a copy", fraction)
    copying_scale: float = ours(6.0, "copying corpus: root mean square of the kernel's entries", positive)
    fresh_seeds: tuple = ours((5, 6, 7), "seeds no earlier declaration has seen, at every width of every corpus "
                                         "(the third declaration's real-corpus outcomes)", or_none(distinct_ints(0)))
    cut: tuple = ours(("copying16-*", "copying4-r4-seed1", "copying4-r4-seed2", "copying4-r8-*", "copying4-r16-*",
                       "copying4-r32-*", "*-r4-seed6", "*-r8-seed6", "*-r16-seed6", "*-r32-seed6", "*-seed7"),
                      "jobs the amendment leaves untrained, as it declares (the third declaration's students not "
                      "stored when it was committed); stored students are never cut", or_none(patterns))
    amended_tokens: int = ours(15_360_000, "the amendment's budget: training tokens per student of its "
                               "calibration and real-corpus readings", positive_int)
    amended_checkpoints: tuple = ours((0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0), "fractions of the "
                                      "amendment's budget at which its students are measured", fractions)
    amended_ranks: tuple = ours((16, 32), "the widths trained at the amendment's budget (those that decide (a))",
                                distinct_ints(1))
    amended_seeds: tuple = ours((10, 11, 12), "seeds of the real corpora at the amendment's budget, which no "
                                              "declaration has read", or_none(distinct_ints(0)))
    gate_generators: tuple = ours(((16, 16, 4, 6.0), (32, 32, 2, 6.0)), "the amendment's calibration at its budget: "
                                  "routing generators, each (known rank r*, keys, values, scale of the kernel's "
                                  "entries)", or_none(generator_specs))
    probe_generators: tuple = ours(((32, 32, 16, 6.0), (32, 32, 4, 12.0), (32, 32, 2, 6.0), (16, 16, 4, 6.0)),
                                   "the learnability probe before the amendment's budget was declared: routing "
                                   "generators, each (known rank r*, keys, values, scale), trained at that budget "
                                   "at the widths it reads, one seed", or_none(generator_specs))
    probe_seed: int = ours(9, "the probe's one seed, which no reading uses", non_negative_int)
    routing_docs: int = ours(120_000, "routing corpus: training documents (one window each)", positive_int)
    routing_val_docs: int = ours(4096, "routing corpus: validation documents", positive_int)
    corpus_dir: str | None = ours(None, "directory of <corpus>.txt files read first (None: $ENTROPIC_CORPORA)",
                                   optional(text))
    sources: tuple = ours(("user_dir", "shared", "download"), "where corpora are looked for, in order",
                           some_of(*SOURCES))

    def validate(self):
        if self.d_model % self.heads:
            raise ValueError(f"d_model {self.d_model} is not divisible by heads={self.heads}")
        widest = self.d_model // self.heads
        if max(self.ranks) != widest:
            raise ValueError(f"the largest of ranks {list(self.ranks)} must be d_model/heads = {widest}: r̂ is read "
                             f"against the full-width student")
        if len(self.ranks) < 2:
            raise ValueError(f"ranks needs at least two widths, got {list(self.ranks)}")
        if len(self.seeds) < 2:
            raise ValueError(f"seeds needs at least two seeds (the tolerance is their spread), got {list(self.seeds)}")
        if self.context % 2:
            raise ValueError(f"context must be even (the routing corpus alternates memory and answer), got "
                             f"{self.context}")
        if self.routing_rank > min(self.routing_keys, widest):
            raise ValueError(f"routing_rank {self.routing_rank} must be at most routing_keys {self.routing_keys} and "
                             f"d_model/heads {widest}")
        for known in self.known_ranks:
            if known > min(self.routing_keys, widest) or known == self.routing_rank:
                raise ValueError(f"known_ranks {list(self.known_ranks)}: each must be at most routing_keys "
                                 f"{self.routing_keys} and d_model/heads {widest}, and differ from routing_rank "
                                 f"{self.routing_rank}")
        for known in self.third_ranks:
            if known > min(self.routing_keys, widest) or known in (self.routing_rank, *self.known_ranks):
                raise ValueError(f"third_ranks {list(self.third_ranks)}: each must be at most routing_keys "
                                 f"{self.routing_keys} and d_model/heads {widest}, and differ from routing_rank "
                                 f"{self.routing_rank} and known_ranks {list(self.known_ranks)}")
        for known in self.copying_ranks:
            if known > min(self.copying_symbols, widest):
                raise ValueError(f"copying_ranks {list(self.copying_ranks)}: each must be at most copying_symbols "
                                 f"{self.copying_symbols} and d_model/heads {widest}")
        if not 0 < self.copying_share < 1:
            raise ValueError(f"copying_share must lie strictly between 0 and 1, got {self.copying_share}")
        if seen := set(self.fresh_seeds) & {*self.seeds, *self.more_seeds}:
            raise ValueError(f"fresh_seeds {list(self.fresh_seeds)} repeats seeds an earlier declaration read: "
                             f"{sorted(seen)}")
        if set(self.more_seeds) & set(self.seeds):
            raise ValueError(f"more_seeds {list(self.more_seeds)} repeats seeds {list(self.seeds)}")
        for name in ("more_seeds_for", "one_engine"):
            if outside := [c for c in getattr(self, name) if c not in self.corpora]:
                raise ValueError(f"{name} names corpora {outside} that are not among corpora {list(self.corpora)}")
        if max(self.amended_ranks) != widest or len(self.amended_ranks) < 2:
            raise ValueError(f"amended_ranks {list(self.amended_ranks)} needs at least two widths, the largest "
                             f"d_model/heads = {widest}")
        if seen := set(self.amended_seeds) & {*self.seeds, *self.more_seeds, *self.fresh_seeds}:
            raise ValueError(f"amended_seeds {list(self.amended_seeds)} repeats seeds an earlier declaration read: "
                             f"{sorted(seen)}")
        if self.probe_seed in {*self.seeds, *self.more_seeds, *self.fresh_seeds, *self.amended_seeds}:
            raise ValueError(f"probe_seed {self.probe_seed} is a seed a reading uses")
        for known, keys, _, _ in (*self.gate_generators, *self.probe_generators):
            if known > min(keys, widest):
                raise ValueError(f"gate_generators: a known rank {known} must be at most its keys {keys} and "
                                 f"d_model/heads {widest}")
        if self.amended_tokens % (self.batch_size * self.context):
            raise ValueError(f"amended_tokens {self.amended_tokens} is not a whole number of steps of "
                             f"batch_size·context = {self.batch_size * self.context} tokens")
        if self.routing_values < 2:
            raise ValueError(f"routing_values must be at least 2, got {self.routing_values}")
        per_step = self.batch_size * self.context
        if self.tokens % per_step:
            raise ValueError(f"tokens {self.tokens} is not a whole number of steps of batch_size·context = "
                             f"{per_step} tokens")
        if self.steps * self.checkpoints[0] < 1:
            raise ValueError(f"tokens {self.tokens} gives fewer steps than the first checkpoint needs")
        if self.check_corpus is not None and self.check_corpus not in self.corpora:
            raise ValueError(f"check_corpus {self.check_corpus!r} is not among corpora {list(self.corpora)}")

    @property
    def steps(self) -> int:
        return self.tokens // (self.batch_size * self.context)

    @property
    def widest(self) -> int:
        return self.d_model // self.heads

    def seeds_of(self, corpus: str) -> tuple:
        """The seeds a corpus is read with: ``seeds``, and ``more_seeds`` for the corpora of ``more_seeds_for``."""
        return (*self.seeds, *self.more_seeds) if corpus in self.more_seeds_for else self.seeds

    def marks(self, third: bool = False) -> list[int]:
        """The checkpoints in steps (``third``: those of the third declaration's students)."""
        return sorted({max(1, round(f * self.steps)) for f in (self.third_checkpoints if third else self.checkpoints)})


def _sha256(cfg: Config, name: str) -> str:
    """The corpus's sha256, read from its file; a corpus not on this machine whose text is pinned keeps the pin's
    (stored results are read wherever the project is; computing one says where to put the file)."""
    try:
        return corpora.locate_corpus(name, user_dir=cfg.corpus_dir, sources=cfg.sources,
                                     substitute="substitute" in cfg.sources).sha256
    except corpora.CorpusUnavailable:
        if "shared" in cfg.sources and not cfg.corpus_dir and name in corpora.PINS:
            return corpora.PINS[name].sha256
        raise


def _train(cfg: Config, third: bool = False, tokens: int | None = None, checkpoints: tuple | None = None) -> dict:
    """The training parameters of a student at the budget (``third``: with the third declaration's checkpoints), or
    at ``tokens`` measured at ``checkpoints`` (fractions)."""
    tokens = tokens or cfg.tokens
    steps = tokens // (cfg.batch_size * cfg.context)
    marks = sorted({max(1, round(f * steps)) for f in checkpoints}) if checkpoints else cfg.marks(third)
    return cfg.slice("d_model", "layers", "heads", "context", "batch_size", "lr", "weight_decay", "eval_windows",
                     tokens=tokens, steps=steps, checkpoints=marks)


def jobs(cfg: Config) -> list[Job]:
    """The power check first (the routing corpus, every r), then per real corpus every r below the widest (and the
    widest without ``reuse``), narrow first, then the reuse check; then the second declaration's students: the
    calibration (the routing corpus at each of ``known_ranks``), ``more_seeds`` and the ``one_engine`` full-width
    students. Corpora are located, and a missing, empty or binary file refused naming it, here, before any work."""
    train = _train(cfg)
    routing = cfg.slice("routing_keys", "routing_values", "routing_rank", "routing_scale", "routing_docs",
                        "routing_val_docs")
    out = [Job(f"{ROUTING}-r{r}-seed{seed}", {"kind": "train", "corpus": ROUTING, **routing, **train, "rank": r,
                                               "seed": seed})
           for r in cfg.ranks for seed in cfg.seeds]
    source = {}
    for name in cfg.corpora:
        source[name] = cfg.slice("corpus_dir", "sources", "max_chars", "block", "val_every", "tail_fraction",
                                 corpus=name, sha256=_sha256(cfg, name))
    trained = [r for r in cfg.ranks if r < cfg.widest or not cfg.reuse]
    for name in cfg.corpora:
        out += [Job(f"{name}-r{r}-seed{seed}", {"kind": "train", **source[name], **train, "rank": r, "seed": seed})
                for r in trained for seed in cfg.seeds]
    if cfg.reuse and cfg.check_corpus is not None:
        name, seed = cfg.check_corpus, min(cfg.seeds)
        out.append(Job(f"{name}-r{cfg.widest}-seed{seed}-check", {"kind": "train", **source[name], **train,
                                                                   "rank": cfg.widest, "seed": seed}))
    out += [Job(f"{ROUTING}{known}-r{r}-seed{seed}", {"kind": "train", "corpus": ROUTING, **routing,
                                                       "routing_rank": known, **train, "rank": r, "seed": seed})
            for known in cfg.known_ranks for r in cfg.ranks for seed in cfg.seeds]
    for name in cfg.more_seeds_for:
        out += [Job(f"{name}-r{r}-seed{seed}", {"kind": "train", **source[name], **train, "rank": r, "seed": seed})
                for r in trained for seed in cfg.more_seeds]
    if cfg.reuse:
        out += [Job(f"{name}-r{cfg.widest}-seed{seed}", {"kind": "train", **source[name], **train,
                                                         "rank": cfg.widest, "seed": seed})
                for name in cfg.one_engine for seed in cfg.seeds_of(name)]
    out += _third(cfg, routing, source)
    out = [job for job in out if not any(fnmatch.fnmatchcase(job.name, pattern) for pattern in cfg.cut)]
    return out + _amended(cfg, source)


def budget_name(tokens: int) -> str:
    """``15360000`` → ``15.36M``: how a budget appears in job names and tables."""
    return f"{tokens / 1e6:g}M"


def _amended(cfg: Config, source: dict) -> list[Job]:
    """The amendment's students at its budget (``amended_tokens``, widths ``amended_ranks``): its calibration first
    (each of ``gate_generators``, seeds ``seeds``, with as many documents as the budget reads windows), then the real
    corpora (seeds ``amended_seeds``), every width trained by the sweep's engine."""
    train = _train(cfg, tokens=cfg.amended_tokens, checkpoints=cfg.amended_checkpoints)
    budget = budget_name(cfg.amended_tokens)

    def generated(known: int, keys: int, values: int, scale: float, r: int, seed: int) -> dict:
        return {"kind": "generated", "corpus": ROUTING, "routing_keys": keys, "routing_values": values,
                "routing_rank": known, "routing_scale": float(scale), "routing_docs": cfg.amended_tokens // cfg.context,
                "routing_val_docs": cfg.routing_val_docs, **train, "rank": r, "seed": seed}

    probe = [Job(f"{ROUTING}{spec[0]}-r{r}-seed{cfg.probe_seed}", generated(*spec, r, cfg.probe_seed))
             for spec in cfg.probe_generators for r in cfg.amended_ranks if r >= cfg.widest // 2]
    out = [Job(f"{ROUTING}{spec[0]}k{spec[1]}-r{r}-seed{seed}-{budget}", generated(*spec, r, seed))
           for spec in cfg.gate_generators for r in cfg.amended_ranks for seed in cfg.seeds]
    return probe + out + [Job(f"{name}-r{r}-seed{seed}-{budget}", {"kind": "train", **source[name], **train,
                                                                    "rank": r, "seed": seed})
                          for name in cfg.corpora for seed in cfg.amended_seeds for r in cfg.amended_ranks]


def _third(cfg: Config, routing: dict, source: dict) -> list[Job]:
    """The third declaration's students, measured at ``third_checkpoints``: the calibration first (the routing
    corpus at ``third_ranks``, the copying corpus at ``copying_ranks``, seeds ``seeds``), then ``fresh_seeds`` at
    every width of every corpus, full width included."""
    train = _train(cfg, third=True)
    copying = cfg.slice("copying_symbols", "copying_share", "copying_scale", "routing_docs", "routing_val_docs")
    generators = [(f"{ROUTING}{known}", {"corpus": ROUTING, **routing, "routing_rank": known})
                  for known in cfg.third_ranks]
    generators += [(f"{COPYING}{known}", {"corpus": COPYING, **copying, "copying_rank": known})
                   for known in cfg.copying_ranks]
    out = [Job(f"{name}-r{r}-seed{seed}", {"kind": "generated", **made, **train, "rank": r, "seed": seed})
           for name, made in generators for r in cfg.ranks for seed in cfg.seeds]
    return out + [Job(f"{name}-r{r}-seed{seed}", {"kind": "train", **source[name], **train, "rank": r, "seed": seed})
                  for name in cfg.corpora for seed in cfg.fresh_seeds for r in cfg.ranks]


def preflight(cfg: Config, jobs: list[Job]) -> None:
    """Every corpus ``jobs`` read, checked before the first runs (``preflight.check_planned``): present, the text
    they were planned on, long enough for their split; else one line naming the file and ``make corpora``."""
    check_planned([job.params for job in jobs], "text_rank")
