"""The capacity sweep read by its third declaration (``declared.THIRD``): paired within-seed gaps to the full width
against the margin δ, the budget condition (each gap projected to twice the budget), r̂'s uncertainty over joint
resamples of the seeds, the calibration on two generators with their learnability, and (a) by the third rule.

A *reading* is one corpus read with one set of students (``variants``): a real corpus's fresh seeds (every width
trained by the sweep's engine; the reading that decides) and its stored seeds (shown beside it); a generator at a
known rank, with seeds ``Config.seeds``.
"""

from __future__ import annotations

import functools
import math
import zlib

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from ...engine.corpus import routing
from . import analysis, second
from .analysis import CONTRADICTED, MISSING, SUPPORTED, SWEEP, UNDECIDED, outcome_row
from .spec import COPYING, ROUTING, jobs

CONFIDENCE = 0.95  # the one-sided bounds of a mean gap
RESAMPLES = 2000
DECLARATION = 3  # mixed into the resamples' seed, so that they differ from the second declaration's
WITHIN, PERSISTING, CLOSING, UNRESOLVED = "within δ", "persisting", "closing", "unresolved"
FRESH, STORED = "fresh seeds", "stored seeds"


# --- one reading ---------------------------------------------------------------------------------------------


def bounds(x: np.ndarray) -> tuple[float, float, float]:
    """(mean, lower, upper) of the seeds' values ``x`` (n,): one-sided ``CONFIDENCE`` bounds by Student's t."""
    mean, low, high = _bounds(np.asarray(x, dtype=float))
    return float(mean), float(low), float(high)


def _bounds(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`bounds` over the last axis of ``x`` (..., n), for every leading index at once."""
    n = x.shape[-1]
    mean = np.mean(x, axis=-1)
    half = (stats.t_quantile(CONFIDENCE, n - 1) * np.std(x, axis=-1, ddof=1) / math.sqrt(n) if n > 1
            else np.full(mean.shape, math.inf))
    return mean, mean - half, mean + half


def projected(tokens: np.ndarray, gaps: np.ndarray, budget: int) -> np.ndarray:
    """Per seed, the gap at twice the budget: the least-squares line in log₂ tokens through the checkpoints from
    budget/2 to the budget. ``gaps`` : (..., M) at ``tokens`` (M,), any leading shape (seeds, or widths, resamples
    and seeds); returns (...)."""
    window = (tokens >= budget / 2) & (tokens <= budget)
    x = np.log2(tokens[window].astype(float))
    lines = gaps[..., window].reshape(-1, int(window.sum()))
    slope, intercept = np.polyfit(x, lines.T, 1)  # one line per row, in one solve
    return (slope * math.log2(2 * budget) + intercept).reshape(gaps.shape[:-1])


def statuses(tokens: np.ndarray, gaps: np.ndarray, budget: int, margin: float) -> np.ndarray:
    """Each width's status for gaps (..., n, M), one per leading index (...): ``WITHIN`` δ (upper bound at the budget
    below δ, projection not shown above it), else ``PERSISTING``, ``CLOSING`` or ``UNRESOLVED`` by the projection's
    bounds against δ."""
    at = int(np.flatnonzero(tokens == budget)[0])
    _, _, high = _bounds(gaps[..., at])
    _, p_low, p_high = _bounds(projected(tokens, gaps, budget))
    return np.where((high < margin) & (p_low <= margin), WITHIN,
                    np.where(p_low > margin, PERSISTING, np.where(p_high < margin, CLOSING, UNRESOLVED)))


def r_hats(states: np.ndarray, grid: list[int]) -> np.ndarray:
    """r̂ by the third rule from the statuses (W, ...) of the widths of ``grid`` below the full one: the smallest
    width from which every width up to the full one is within δ (the full width where the one below it is not)."""
    within = np.cumprod(states[::-1] == WITHIN, axis=0).sum(axis=0)  # the widths within δ, counted from the top
    return np.asarray(grid)[len(grid) - 1 - within]


def read(tokens: np.ndarray, gaps: np.ndarray, grid: list[int], budget: int, margin: float) -> dict:
    """r̂ of one reading by the third rule. ``gaps`` : (W, n, M), the paired gaps of the widths of ``grid`` below the
    full one, n seeds, at ``tokens`` (M,). Returns r_hat, exact (the width below r̂ persists, or r̂ is the smallest),
    and per width its status, mean gap at the budget with its bounds, and mean projected gap."""
    at = int(np.flatnonzero(tokens == budget)[0])
    found = statuses(tokens, gaps, budget, margin)
    hat, states = int(r_hats(found, grid)), found.tolist()
    below = grid.index(hat) - 1
    return {"r_hat": hat, "exact": below < 0 or states[below] == PERSISTING, "states": states,
            "gap": [bounds(g[:, at]) for g in gaps],
            "projected": projected(tokens, gaps, budget).mean(axis=-1).tolist()}


def resample(tokens, gaps, grid, budget, margin, seed: int, count: int = RESAMPLES) -> np.ndarray:
    """r̂ of ``count`` resamples (count,): the seeds drawn with replacement jointly across widths and checkpoints
    (a drawn seed brings all its students), from PCG64 seeded with ``seed``, each read by ``read``'s rule (all the
    resamples at once: gaps (W, count, n, M))."""
    generator = np.random.default_rng(seed)
    n = gaps.shape[1]
    drawn = generator.integers(0, n, size=(count, n))
    return r_hats(statuses(tokens, gaps[:, drawn], budget, margin), grid)


def seed_of(corpus: str) -> int:
    """The resamples' generator seed: the CRC-32 of the corpus's name and the declaration's number."""
    return zlib.crc32(f"{corpus} {DECLARATION}".encode())


# --- the readings --------------------------------------------------------------------------------------------


def generators(cfg) -> list[str]:
    """The calibration's corpora at the budget as the page names them (``analysis.label``): the routing corpus at
    every known rank (those of the earlier declarations too, read again by this rule), then the copying corpus."""
    ranks = sorted({cfg.routing_rank, *cfg.known_ranks, *cfg.third_ranks})
    return [*(analysis.label(cfg, {"corpus": ROUTING, "routing_rank": k}) for k in ranks),
            *(analysis.label(cfg, {"corpus": COPYING, "copying_rank": k}) for k in sorted(cfg.copying_ranks))]


def gate_generators(cfg) -> list[str]:
    """The amendment's calibration at its budget, as the page names each generator (``analysis.label``)."""
    return [analysis.label(cfg, {"corpus": ROUTING, "routing_rank": known, "routing_keys": keys,
                                 "routing_values": values, "routing_scale": scale})
            for known, keys, values, scale in cfg.gate_generators]


def variants(cfg, corpus: str) -> list[tuple[str, tuple, str, int, list[int]]]:
    """The readings of ``corpus`` as (name, seeds, full width's source, budget, widths), the deciding one first: a
    real corpus at the amendment's budget (``amended_seeds``), then its fresh and stored seeds at the third
    declaration's; a generator of the amendment's calibration at its budget; any other at the third's."""
    third = (cfg.tokens, sorted(cfg.ranks))
    amended = (cfg.amended_tokens, sorted(cfg.amended_ranks))
    if corpus in gate_generators(cfg):
        return [(STORED, tuple(cfg.seeds), SWEEP, *amended)]
    if corpus not in cfg.corpora:
        return [(STORED, tuple(cfg.seeds), SWEEP, *third)]
    stored = (STORED, tuple(cfg.seeds_of(corpus)), second.ONE_ENGINE if corpus in cfg.one_engine or not cfg.reuse
              else second.MIXED, *third)
    out = [(FRESH, tuple(cfg.amended_seeds), second.ONE_ENGINE, *amended)] if cfg.amended_seeds else []
    return out + ([(FRESH, tuple(cfg.fresh_seeds), second.ONE_ENGINE, *third)] if cfg.fresh_seeds else []) + [stored]


def paired(students: pd.DataFrame, cfg, seeds: tuple, source: str, budget: int,
           grid: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
    """(tokens (M,), gaps (W, n, M)) of one reading: the students trained to ``budget``, per width of ``grid`` below
    the full one and seed, the loss minus the full-width student's of the same seed, at the checkpoints every student
    holds; None unless all are stored."""
    students = students[students["budget"] == budget]
    if students.empty:
        return None
    own = pd.concat([second.selected(students, cfg, seeds, source, t) for t in students["tokens"].unique()])
    own = own[own["rank"].isin(grid)]
    table = own.pivot_table(index=["rank", "seed"], columns="tokens", values="val_loss").dropna(axis=1)
    if len(table) != len(grid) * len(seeds) or budget not in table.columns:
        return None
    full = table.loc[cfg.widest]
    gaps = np.stack([(table.loc[r] - full).loc[list(seeds)].to_numpy(float) for r in grid[:-1]])
    return table.columns.to_numpy(), gaps


def full_excess(students: pd.DataFrame, cfg, seeds: tuple, source: str, budget: int,
                tokens: np.ndarray) -> np.ndarray | None:
    """The full-width students' mean loss above their corpus's floor at each of ``tokens``, on one reading (how far
    the full width has learned); None where the corpus has no floor (a real text)."""
    students = students[(students["budget"] == budget) & (students["rank"] == cfg.widest)]
    own = pd.concat([second.selected(students, cfg, seeds, source, t) for t in tokens])
    if "floor" not in own or own.empty or own["floor"].isna().any():
        return None
    return (own["val_loss"] - own["floor"]).groupby(own["tokens"]).mean().reindex(tokens).to_numpy(float)


def readings(students: pd.DataFrame, cfg) -> pd.DataFrame:
    """Every reading of every corpus (generators first, those of the amendment's calibration last among them): its
    budget, r̂ at δ with its exactness, statuses, gaps and 90 % interval over resamples, r̂ at δ/2 and 2δ, its
    paired gaps (``paired``: tokens, gaps) and the full width's excess over the floor (``full_excess``)."""
    out = []
    for corpus in [*generators(cfg), *gate_generators(cfg), *cfg.corpora]:
        own = students[students["corpus"] == corpus]
        for i, (name, seeds, source, budget, grid) in enumerate(variants(cfg, corpus)):
            row = {"corpus": corpus, "reading": name, "seeds": seeds, "budget": budget, "grid": grid,
                   "decides": i == 0, "complete": False, "known_rank": analysis.known_rank(cfg, corpus)}
            found = paired(own, cfg, seeds, source, budget, grid) if len(own) else None
            if found is not None:
                tokens, gaps = found
                row |= {"complete": True, **read(tokens, gaps, grid, budget, cfg.margin),
                        "half": read(tokens, gaps, grid, budget, cfg.margin / 2)["r_hat"],
                        "double": read(tokens, gaps, grid, budget, 2 * cfg.margin)["r_hat"],
                        "draws": resample(tokens, gaps, grid, budget, cfg.margin, seed_of(corpus)),
                        "curves": (tokens, gaps.mean(1)), "paired": found,
                        "full_excess": full_excess(own, cfg, seeds, source, budget, tokens),
                        "upper": _bounds(np.swapaxes(gaps, 1, 2))[2],  # (W, M): per width and checkpoint
                        "projected_low": _bounds(projected(tokens, gaps, budget))[1].tolist()}
                row["interval"] = second.interval(row["draws"])
                if row["known_rank"]:
                    row |= _learnability(own[own["budget"] == budget], cfg, corpus, row["known_rank"], budget)
            out.append(row)
    return pd.DataFrame(out)


def _learnability(own: pd.DataFrame, cfg, corpus: str, known: int, budget: int) -> dict:
    """The full-width students' mean excess over the floor and the zero-kernel teacher's, at ``budget``; learned by
    the third declaration's criterion (``learned``) if the first is at most half the second, and by the amendment's
    (``within``) if it is at most the margin δ. A routing generator whose students were trained before the third
    declaration (and so did not store the zero-kernel teacher) is regenerated for it; students that store no floor
    leave both unknown (None)."""
    full = own[(own["rank"] == cfg.widest) & (own["tokens"] == budget) & own["seed"].isin(cfg.seeds)]
    if "floor" not in full or full.empty or full["floor"].isna().any():
        return {"excess": math.nan, "blind_excess": math.nan, "learned": None, "within": None}
    excess = float((full["val_loss"] - full["floor"]).mean())
    if "blind" in full and full["blind"].notna().all():
        blind = float((full["blind"] - full["floor"]).mean())
    elif not corpus.startswith(ROUTING):
        raise ValueError(f"{corpus}: its full-width students store no zero-kernel cross-entropy; train them again")
    else:
        floor, zero = routing_blind(cfg.routing_keys, cfg.routing_values, known, cfg.routing_scale, cfg.context,
                                    cfg.routing_docs, cfg.routing_val_docs)
        if not np.allclose(full["floor"].to_numpy(float), floor, rtol=0, atol=1e-9):
            raise ValueError(f"{corpus}: the stored students' floor {full['floor'].iloc[0]} is not the regenerated "
                             f"corpus's {floor}: they were trained on another corpus; train them again")
        blind = zero - floor
    return {"excess": excess, "blind_excess": blind, "learned": excess <= blind / 2, "within": excess <= cfg.margin}


@functools.cache
def routing_blind(keys: int, values: int, rank: int, scale: float, context: int, docs: int,
                  val_docs: int) -> tuple[float, float]:
    """(floor, zero-kernel teacher's cross-entropy) of the routing corpus of these parameters, generated again once
    per version of the code that generates it and read back by every page that reads the sweep (``publish.memo``: the
    intro's, the teaching chapter's and the sweep's own, 15 s each at the paper's sizes)."""
    from ...publish import memo

    return memo.remembered_experiment(_regenerated_blind, keys, values, rank, scale, context, docs, val_docs)


def _regenerated_blind(keys: int, values: int, rank: int, scale: float, context: int, docs: int,
                       val_docs: int) -> tuple[float, float]:
    made = routing.routing_corpus(keys, values, rank, scale, context, docs, val_docs, seed=0)
    return made.floor, routing.routing_blind(made, values, context)


# --- the calibration and (a) ---------------------------------------------------------------------------------------


def calibration(table: pd.DataFrame, grid: list[int]) -> pd.DataFrame:
    """Per generator and known rank: r̂, its interval, exactness, how many grid steps it misses r* by, and its
    learnability by both criteria (``learned``: the third declaration's; ``within``: the amendment's); ``read``
    where learned by the third's criterion and read exactly."""
    own = table[table["known_rank"].notna() & table["complete"]]
    rows = []
    for _, row in own.iterrows():
        known = int(row["known_rank"])
        missed = round(math.log2(row["r_hat"] / known))
        rows.append({"generator": row["corpus"].split(" rank ", 1)[0] + _settings(row["corpus"]),
                     "budget": row["budget"], "known rank": known, "r_hat": row["r_hat"],
                     "interval": row["interval"], "exact": bool(row["exact"]), "missed by": missed,
                     "learned": row["learned"], "within": row["within"], "excess": row["excess"],
                     "blind_excess": row["blind_excess"], "read": bool(row["learned"]) and missed == 0})
    return pd.DataFrame(rows)


def _settings(corpus: str) -> str:
    """A generator's settings as its label gives them (" (16 keys)"), "" for the power check's."""
    return f" ({corpus.split(' (', 1)[1]}" if " (" in corpus else ""


def calibrated_range(calib: pd.DataFrame, generator: str) -> tuple[int, int] | None:
    """The span of a generator's known ranks read exactly, when every one of its known ranks between is read."""
    own = calib[calib["generator"] == generator] if len(calib) else calib
    read_ = own[own["read"]]["known rank"].tolist() if len(own) else []
    if not read_:
        return None
    between = own[(own["known rank"] >= min(read_)) & (own["known rank"] <= max(read_))]
    return (min(read_), max(read_)) if between["read"].all() else None


def _tells(calib: pd.DataFrame, widest: int) -> str:
    """The third rule's gate on a contradiction ("" when the calibration allows one): a generator learned by the
    third declaration's criterion must read a known rank of ``widest`` as ``widest`` and a known rank of at most
    ``widest``/2 below ``widest``."""
    learned = calib[calib["learned"].fillna(False).astype(bool)] if len(calib) else calib
    if learned.empty:
        return "calibration: no learned generator is stored yet"
    top = learned[learned["known rank"] == widest]
    lower = learned[learned["known rank"] <= widest // 2]
    if top.empty or not (top["r_hat"] == widest).all():
        return f"calibration: no learned generator reads a known rank {widest} as {widest}"
    if lower.empty or not (lower["r_hat"] < widest).all():
        return f"calibration: a learned generator's known rank of at most {widest // 2} is not read below {widest}"
    return ""


def gates(calib: pd.DataFrame, widest: int, pending: tuple = ()) -> dict[bool, str]:
    """The amended rule's gates, keyed by the verdict they guard (True: supported, False: contradicted), each the
    reason it stays open ("" where the gate passes). "Supported" needs every generator of known rank ``widest``
    learned within δ to be read as ``widest`` with its width-``widest``/2 gap persisting, and at least one such
    generator; "contradicted" needs every generator of known rank ``widest``/2 learned within δ to be read below
    ``widest``, and at least one. A known rank in ``pending`` (a generator whose students are not all stored) keeps
    its gate shut, saying so."""
    learned = calib[calib["within"].apply(lambda v: v is True)] if len(calib) else calib
    out = {}
    for verdict, known in ((True, widest), (False, widest // 2)):
        if known in pending:
            out[verdict] = f"calibration: the generator of known rank {known} is not computed yet"
            continue
        own = learned[learned["known rank"] == known] if len(learned) else learned
        if own.empty:
            out[verdict] = f"calibration: no generator of known rank {known} is learned to within δ"
            continue
        right = ((own["r_hat"] == widest) & own["exact"]) if verdict else (own["r_hat"] < widest)
        out[verdict] = ("" if right.all() else
                        f"calibration: a generator of known rank {known} learned to within δ is read "
                        + (f"below {widest}" if verdict else f"as {widest}"))
    return out


def low_rank(corpus: str, readings_: pd.DataFrame, calib: pd.DataFrame, cfg, amended: bool = True,
             pending: dict | None = None) -> dict:
    """(a) for one real corpus on its reading in ``readings_`` (one per corpus, indexed by corpus), by the amended
    rule (``amended``: each verdict gated on the calibration case at the reading's budget that would make it false,
    ``gates``; ``pending``: per budget, the known ranks whose generators are not all stored) or by the third rule as
    declared (``_tells``, at the third declaration's budget)."""
    if corpus not in readings_.index:
        return outcome_row("low_rank", f"{corpus}: r̂ by the third rule", math.nan, None, "no reading", missing=True)
    row = readings_.loc[corpus]
    budget = f"{row['budget'] / 1e6:g}M"
    if not row["complete"]:
        cut = row["reading"] == FRESH and row["budget"] == cfg.tokens and bool(cfg.cut)
        return outcome_row("low_rank", f"{corpus}: r̂ by the third rule at {budget}", math.nan, None,
                           "cut by the amendment: its students are not all trained" if cut else
                           f"{budget}: not every student is stored", missing=not cut)
    calib = calib[calib["budget"] == row["budget"]] if len(calib) else calib
    shut = gates(calib, cfg.widest, (pending or {}).get(row["budget"], ()))
    hat, (low, high) = int(row["r_hat"]), row["interval"]
    below16 = row["states"][-1]
    why = ""
    if hat == cfg.widest:
        why = {CLOSING: "budget: the width-16 gap is still closing (a width that learns more slowly)",
               UNRESOLVED: "budget: the seeds cannot tell whether the width-16 gap persists"}.get(below16, "")
        why = why or (shut[False] if amended else _tells(calib, cfg.widest))
    elif amended:
        why = shut[True]
    written = f"≤ {hat}" if hat < cfg.widest and not row["exact"] else f"= {hat}"
    quantity = (f"{corpus}: r̂ {written} of {cfg.widest} (90 % interval {low}–{high}, {len(row['seeds'])} seeds, "
                f"{budget})")
    return outcome_row("low_rank", quantity, hat, hat < cfg.widest, why)


def probe(students: pd.DataFrame, cfg) -> pd.DataFrame:
    """The learnability probe (``Config.probe_generators``, seed ``probe_seed``, at the amendment's budget): per
    generator and checkpoint from half the budget on, the full width's excess over the floor and the width-16
    gap to it, in units of δ."""
    rows = []
    for known, keys, values, scale in cfg.probe_generators:
        corpus = analysis.label(cfg, {"corpus": ROUTING, "routing_rank": known, "routing_keys": keys,
                                      "routing_values": values, "routing_scale": scale})
        own = students[(students["corpus"] == corpus) & (students["seed"] == cfg.probe_seed)
                       & (students["budget"] == cfg.amended_tokens) & (students["tokens"] >= cfg.amended_tokens / 2)]
        table = own.pivot_table(index="tokens", columns="rank", values="val_loss")
        floor = own.groupby("tokens")["floor"].first() if "floor" in own else pd.Series(dtype=float)
        for tokens, losses in table.iterrows():
            full, half = losses.get(cfg.widest, math.nan), losses.get(cfg.widest // 2, math.nan)
            rows.append({"generator": corpus, "known rank": known, "tokens": int(tokens),
                         "excess": (full - floor.get(tokens, math.nan)) / cfg.margin,
                         "gap": (half - full) / cfg.margin})
    return pd.DataFrame(rows, columns=["generator", "known rank", "tokens", "excess", "gap"])


def judge(results, appendix_b=None) -> dict:
    """The third declaration, as amended, on the stored students: ``readings``, ``calibration``, ``ranges`` (per
    generator), ``outcomes`` ((a) per corpus by the amended rule on its deciding reading, at the amendment's budget;
    (b) and (c) once every corpus has one), ``stored`` ((a) by the amended rule on the stored seeds at the third
    declaration's budget, shown beside), and ``third_outcomes`` and ``third_stored``, the third rule as declared on
    the fresh and the stored seeds at its budget."""
    cfg = results.cfg
    students = analysis.rows(results, appendix_b)
    table = readings(students, cfg)
    calib = calibration(table, sorted(cfg.ranks))
    real = table[table["corpus"].isin(cfg.corpora)] if len(table) else table

    def one(mask) -> pd.DataFrame:  # the first reading of each corpus among ``mask``, indexed by corpus
        return real[mask].drop_duplicates("corpus").set_index("corpus") if len(real) else pd.DataFrame()

    deciding = one(real["decides"]) if len(real) else pd.DataFrame()
    at_third = real["budget"] == cfg.tokens if len(real) else None
    fresh = one(at_third & (real["reading"] == FRESH)) if len(real) else pd.DataFrame()
    stored = one(at_third & (real["reading"] == STORED)) if len(real) else pd.DataFrame()
    found = {"readings": table, "calibration": calib, "probe": probe(students, cfg) if len(students) else
             probe(pd.DataFrame(columns=["corpus", "seed", "budget", "tokens", "rank", "val_loss"]), cfg),
             "ranges": {g: calibrated_range(calib, g) for g in (calib["generator"].unique() if len(calib) else [])}}
    pending = _pending(results)
    at = calib[calib["budget"] == cfg.amended_tokens] if len(calib) else calib
    found["gates"] = gates(at, cfg.widest, pending.get(cfg.amended_tokens, ()))
    out = [low_rank(c, deciding, calib, cfg, pending=pending) for c in cfg.corpora]
    third = [low_rank(c, fresh, calib, cfg, amended=False) for c in cfg.corpora]
    if len(cfg.amended_ranks) < 3 and cfg.amended_seeds:  # r̂ over two widths: only which side of the full width
        across = [outcome_row(key, "across corpora", math.nan, None, f"not judged at "
                              f"{cfg.amended_tokens / 1e6:g}M: r̂ over two widths says only on which side of "
                              f"{cfg.widest} a corpus lies") for key in ("separates", "predicts")]
    else:
        across = _across(deciding, out, cfg, appendix_b)
    found |= {"outcomes": pd.DataFrame(out + across),
              "stored": pd.DataFrame([low_rank(c, stored, calib, cfg, pending=pending) for c in cfg.corpora]),
              "third_outcomes": pd.DataFrame(third + _across(fresh, third, cfg, appendix_b)),
              "third_stored": pd.DataFrame([low_rank(c, stored, calib, cfg, amended=False) for c in cfg.corpora])}
    return found


def _pending(results) -> dict[int, tuple[int, ...]]:
    """Per budget, the known ranks of the generators whose planned students are not all stored yet (a cut job is not
    planned, so a generator the amendment cut is not pending: it will not be read)."""
    missing, out = set(results.missing), {}
    for job in jobs(results.cfg):
        if job.id in missing and job.params.get("kind") == "generated":
            known = job.params.get("routing_rank", job.params.get("copying_rank"))
            out.setdefault(job.params["tokens"], set()).add(int(known))
    return {budget: tuple(sorted(ranks)) for budget, ranks in out.items()}


def _across(deciding: pd.DataFrame, low: list[dict], cfg, appendix_b) -> list[dict]:
    """(b) and (c) on the deciding readings, once every corpus has one; ``low`` holds (a)'s rows."""
    real = [c for c in cfg.corpora if c in deciding.index and deciding.loc[c, "complete"]]
    if len(real) < len(cfg.corpora) or len(real) < 3:
        waiting = any(row["outcome"] == MISSING for row in low)
        why = "not every corpus's students are stored" if waiting else "a corpus's (a) is undecided"
        return [outcome_row(key, "across corpora", math.nan, None, why, missing=waiting)
                for key in ("separates", "predicts")]
    hats = pd.Series({c: float(deciding.loc[c, "r_hat"]) for c in real})
    draws = np.stack([deciding.loc[c, "draws"] for c in real], axis=1).astype(float)  # (resamples, corpora)
    open_ = any(row["outcome"] in (UNDECIDED, MISSING) for row in low)
    return [second.separates(hats, draws.std(1) / draws.mean(1), analysis.variation(cfg, appendix_b),
                             "a corpus's (a) is undecided" if open_ else ""),
            second.predicts(hats, draws, analysis.predictor(appendix_b, hats.index), open_)]


__all__ = ["CLOSING", "CONTRADICTED", "FRESH", "PERSISTING", "STORED", "SUPPORTED", "UNRESOLVED", "WITHIN",
           "bounds", "calibrated_range", "calibration", "full_excess", "gate_generators", "gates", "generators",
           "judge", "low_rank", "paired", "probe", "projected", "r_hats", "read", "readings", "resample", "seed_of",
           "statuses", "variants"]
