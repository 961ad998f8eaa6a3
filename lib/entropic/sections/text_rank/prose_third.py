"""The sentences of the capacity sweep's page that state its third declaration's outcomes (``third.judge``): the
calibration on both generators with their learnability, (a) per corpus on the fresh and the stored seeds, why an
outcome differs from the second declaration's, and what a reading of 32 means. Every number is read from the
stored students."""

from __future__ import annotations

import pandas as pd

from .analysis import CONTRADICTED, DECIDED, MISSING, SUPPORTED, UNDECIDED
from .tables import claim_names


def _and(names: list[str]) -> str:
    return "none" if not names else names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _steps(n: int) -> str:
    return f"{abs(n)} grid step{'s' if abs(n) != 1 else ''} {'low' if n < 0 else 'high'}"


def calibration_sentence(found: dict, cfg) -> str:
    """Per generator: which known ranks are read exactly, by how far the others are missed, which are not learned,
    and the calibrated range; the generators still training are named."""
    calib = found["calibration"]
    parts = []
    for generator, own in (calib.groupby("generator", sort=False) if len(calib) else []):
        unlearned = own[own["learned"].apply(lambda v: v is False)]
        read = own[~own.index.isin(unlearned.index)]
        words = [f"known rank {int(r['known rank'])} " + ("read exactly" if r["missed by"] == 0 else
                                                            f"read as {int(r['r_hat'])} ({_steps(r['missed by'])})")
                 for _, r in read.iterrows()]
        words += [f"known rank {int(r['known rank'])} not learned (its full-width students' excess over the floor, "
                  f"{r['excess']:.3f} nats, is more than half the zero-kernel teacher's, {r['blind_excess']:.3f}), "
                  f"so not read" for _, r in unlearned.iterrows()]
        span = found["ranges"].get(generator)
        parts.append(f"the {generator} corpus: {_and(words)}; calibrated range "
                     + (f"{span[0]}–{span[1]}" if span else "none"))
    asked = {"routing": sorted({cfg.routing_rank, *cfg.known_ranks, *cfg.third_ranks}),
             "copying": sorted(cfg.copying_ranks)}
    stored = {(g, int(k)) for g, k in zip(calib.get("generator", []), calib.get("known rank", []), strict=False)}
    waiting = [f"{g} rank {k}" for g, ranks in asked.items() for k in ranks if (g, k) not in stored]
    text = ("By the third rule, " + "; ".join(parts) + ".") if parts else "No generator's students are stored yet."
    return text + (f" Still training: {_and(waiting)}." if waiting else "")


def _outcomes(rows: pd.DataFrame) -> dict[str, list[str]]:
    out = {}
    for name, row in zip(claim_names(rows), rows.to_dict("records"), strict=True):
        if row["key"] == "low_rank":
            corpus = name.split(") ", 1)[1]
            out.setdefault(row["outcome"], []).append(corpus if row["outcome"] == MISSING else
                                                      f"{corpus} ({row['quantity'].split(': ', 1)[1].split(' (')[0]})")
    return out


def _tally(rows: pd.DataFrame, seeds: str) -> str:
    low = rows[rows["key"] == "low_rank"]
    groups = _outcomes(rows)
    decided = int(low["outcome"].isin(DECIDED).sum())
    text = f"decides {decided} of {len(low)} corpora on the {seeds}"
    said = [f"supported for {_and(groups[SUPPORTED])}" if SUPPORTED in groups else "",
            f"contradicted for {_and(groups[CONTRADICTED])}" if CONTRADICTED in groups else "",
            f"undecided for {_and(groups[UNDECIDED])}" if UNDECIDED in groups else "",
            f"not read yet for {_and(groups[MISSING])} (students still training)" if MISSING in groups else ""]
    return text + ": " + "; ".join(s for s in said if s)


def low_rank_sentence(found: dict, second_found: dict) -> str:
    """(a) by the third declaration on the fresh seeds (the outcome) and on the stored seeds (beside), then one
    sentence per corpus whose stored-seed outcome differs from the second declaration's, with the reason."""
    text = (f"The third declaration {_tally(found['outcomes'], 'fresh seeds')}; "
            f"by the same rule, it {_tally(found['stored'], 'stored seeds')}.")
    second = {n: o for n, o in zip(claim_names(second_found["outcomes"]), second_found["outcomes"]["outcome"],
                                   strict=True)}
    for name, row in zip(claim_names(found["stored"]), found["stored"].to_dict("records"), strict=True):
        before = second.get(name)
        if row["outcome"] != before and row["outcome"] != MISSING and before is not None:
            corpus = name.split(") ", 1)[1]
            reason = row["why"] or "its paired gaps are shown within δ at a narrower width"
            text += (f" On the stored seeds, {corpus} is {row['outcome']} where the second declaration found it "
                     f"{before}: {reason}.")
    return text


def full_width_sentence(found: dict, cfg) -> str:
    """What a reading of 32 means: for each corpus read as 32, whether its width-16 gap persists with the budget."""
    table = found["readings"]
    own = table[table["complete"].astype(bool) & table["known_rank"].isna() & (table["r_hat"] == cfg.widest)]
    if own.empty:
        return "No corpus is read as the full width."
    words = []
    for _, row in own.iterrows():
        mean = row["gap"][-1][0]
        words.append(f"{row['corpus']} ({row['reading']}: width-16 gap {mean:.4f} nats at {cfg.tokens / 1e6:g}M, "
                     f"projected {row['projected'][-1]:.4f} at {2 * cfg.tokens / 1e6:g}M, {row['states'][-1]})")
    return (f"A corpus read as {cfg.widest} is contradicted only where its width-16 gap persists with the budget and "
            f"a learned generator reads a known rank {cfg.widest} as {cfg.widest}; read as {cfg.widest}: "
            f"{_and(words)}.")


def third_facts(found: dict, second_found: dict, cfg) -> dict:
    """The third declaration's sentences, keyed as the page glues them."""
    return {"third_calibration_sentence": calibration_sentence(found, cfg),
            "third_low_rank_sentence": low_rank_sentence(found, second_found),
            "third_full_width_sentence": full_width_sentence(found, cfg)}
