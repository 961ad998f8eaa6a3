"""The sentences of the capacity sweep's page that state the outcomes of its deciding rule, the third declaration as
amended (``third.judge``): why the rule was amended, the learnability probe behind the amendment's budget, the
calibration with its gates at each budget, and (a) per corpus by the amended rule beside the third rule's. Every number
is read from the stored students; what is not stored yet is said in the banner's words, "not computed yet"."""

from __future__ import annotations

import math

import pandas as pd

from ...report.numbers import number
from .analysis import CONTRADICTED, DECIDED, MISSING, SUPPORTED, UNDECIDED
from .tables import claim_names


def _and(names: list[str]) -> str:
    return "none" if not names else names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _budget(tokens: float) -> str:
    return f"{tokens / 1e6:g}M"


def _in_delta(excess: float) -> str:
    return f"{number(excess, 2)} δ"


def amendment_sentence(found: dict, cfg) -> str:
    """Why the third rule was amended, from the data at the third declaration's budget: what it marked supported
    though its own calibration reads a full-rank generator below the full width, and how far above their floors the
    full widths of its generators lay."""
    calib = found["calibration"]
    at = calib[calib["budget"] == cfg.tokens] if len(calib) else calib
    stored = found["third_stored"]
    supported = [name.split(") ", 1)[1] for name, outcome in zip(claim_names(stored), stored["outcome"], strict=True)
                 if outcome == SUPPORTED]
    top = at[at["known rank"] == cfg.widest] if len(at) else at
    text = (f"By the third rule, {_and(supported)} {'is' if len(supported) == 1 else 'are'} supported on the stored "
            f"seeds" if supported else "The third rule gates a supported outcome on no calibration case")
    if len(top):
        row = top.iloc[0]
        text += (f", although the calibration on the same page reads the generator of known rank {cfg.widest} as "
                 f"r̂ = {int(row['r_hat'])} (90 % interval {row['interval'][0]}–{row['interval'][1]})")
    unlearned = at[at["within"].apply(lambda v: v is False)] if len(at) else at
    if len(unlearned):
        low, high = unlearned["excess"].min() / cfg.margin, unlearned["excess"].max() / cfg.margin
        ranks = _and([str(int(k)) for k in sorted(unlearned["known rank"].unique())])
        text += (f"; and at {_budget(cfg.tokens)} the full widths of its generators of known rank {ranks} lay "
                 f"{number(low, 2)} to {number(high, 2)} δ above their floors, though counted as learned")
    return text + (": so the amendment gates each verdict on the calibration case that would make it false, and counts "
                   "a generator as learned only where its full width comes within δ of its floor.")


def probe_sentence(found: dict, cfg) -> str:
    """The learnability probe at the amendment's budget: per generator, the full width's excess over its floor and the
    width-16 gap at the budget, in units of δ."""
    probe = found["probe"]
    at = probe[probe["tokens"] == cfg.amended_tokens] if len(probe) else probe
    if at.empty:
        return "The learnability probe is not computed yet."
    words = [f"{row['generator']} at {_in_delta(row['excess'])} (width 16 {_in_delta(row['gap'])} from it)"
             for _, row in at.iterrows()]
    within = [row["generator"] for _, row in at.iterrows() if row["excess"] <= 1]
    return (f"In the learnability probe (one seed, {_budget(cfg.amended_tokens)} tokens), the full width ends above "
            f"its generator's floor by: {_and(words)}; within δ: {_and(within)}.")


def calibration_sentence(found: dict, cfg) -> str:
    """Per budget, each generator's learnability within δ and its reading, then what the amended rule's gates allow
    at the amendment's budget."""
    calib = found["calibration"]
    parts = []
    for budget in sorted(set(calib["budget"])) if len(calib) else []:
        own = calib[calib["budget"] == budget]
        words = [f"{row['generator']} rank {int(row['known rank'])}: {_in_delta(row['excess'] / cfg.margin)} above "
                 f"its floor, {'learned' if row['within'] else 'not learned'}, r̂ = {int(row['r_hat'])} "
                 f"({row['interval'][0]}–{row['interval'][1]})" for _, row in own.iterrows()]
        parts.append(f"at {_budget(budget)}, " + "; ".join(words))
    text = ("The calibration, with learnability judged within δ of the floor: " + "; ".join(parts) + "."
            if parts else "The calibration is not computed yet.")
    return text + " " + _gates(found, cfg)


def _gates(found: dict, cfg) -> str:
    """What the gates at the amendment's budget allow: each verdict and what keeps it shut."""
    said = [f"'{verdict}' can be earned" if not found["gates"][key] else
            f"'{verdict}' cannot be earned ({found['gates'][key].removeprefix('calibration: ')})"
            for key, verdict in ((True, SUPPORTED), (False, CONTRADICTED))]
    return f"At {_budget(cfg.amended_tokens)}, " + " and ".join(said) + "."


def _tally(rows: pd.DataFrame, where: str) -> str:
    low = rows[rows["key"] == "low_rank"]
    groups: dict[str, list[str]] = {}
    for name, row in zip(claim_names(rows), rows.to_dict("records"), strict=True):
        if row["key"] == "low_rank":
            groups.setdefault(row["outcome"], []).append(name.split(") ", 1)[1])
    decided = int(low["outcome"].isin(DECIDED).sum())
    said = [f"{outcome} for {_and(groups[outcome])}" for outcome in (SUPPORTED, CONTRADICTED, UNDECIDED, MISSING)
            if outcome in groups]
    return f"{where} decides {decided} of {len(low)} corpora: " + "; ".join(said)


def low_rank_sentence(found: dict, cfg) -> str:
    """(a) by the amended rule at its budget (the outcome), then by the amended and the third rule on the stored seeds
    at the third declaration's budget (beside)."""
    return (f"{_tally(found['outcomes'], f'The amended rule at {_budget(cfg.amended_tokens)}')}. "
            f"{_tally(found['stored'], f'On the stored seeds at {_budget(cfg.tokens)}, the same rule')}; "
            f"{_tally(found['third_stored'], 'the third rule as declared')}.")


def full_width_sentence(found: dict, cfg) -> str:
    """What a reading of 32 means: for each real corpus read as 32, whether its width-16 gap persists with the
    budget."""
    table = found["readings"]
    own = table[table["complete"].astype(bool) & table["known_rank"].isna() & (table["r_hat"] == cfg.widest)]
    if own.empty:
        return "No corpus is read as the full width."
    words = [f"{row['corpus']} ({row['reading']}, {_budget(row['budget'])}: width-16 gap {number(row['gap'][-1][0])} "
             f"nats, projected {number(row['projected'][-1])} at {_budget(2 * row['budget'])}, {row['states'][-1]})"
             for _, row in own.iterrows()]
    return (f"A corpus read as {cfg.widest} is contradicted only where its width-16 gap persists with the budget and a "
            f"learned generator of known rank {cfg.widest // 2} is read below {cfg.widest} at the same budget; read as "
            f"{cfg.widest}: {_and(words)}.")


def opening_sentence(found: dict, cfg) -> str:
    """r̂ as the deciding rule defines it, with its budget, widths and margin."""
    widths = ", ".join(map(str, sorted(cfg.amended_ranks)))
    return (f"r̂ is the narrowest width of the grid ({widths}) whose paired gap to the full width, within a seed and "
            f"averaged over the seeds, stays within δ = {number(cfg.margin)} nats per character at "
            f"{_budget(cfg.amended_tokens)} tokens and is not projected to leave it at twice that budget (its upper "
            f"one-sided 95 % bound below δ)")


def third_facts(found: dict, cfg) -> dict:
    """The deciding rule's sentences, keyed as the page glues them."""
    return {"amendment_sentence": amendment_sentence(found, cfg), "probe_sentence": probe_sentence(found, cfg),
            "third_calibration_sentence": calibration_sentence(found, cfg),
            "third_low_rank_sentence": low_rank_sentence(found, cfg),
            "third_full_width_sentence": full_width_sentence(found, cfg),
            "opening_sentence": opening_sentence(found, cfg),
            "margin_in_nats": number(cfg.margin), "amended_budget": _budget(cfg.amended_tokens),
            "probe_done": bool(len(found["probe"])) and not math.isnan(found["probe"]["excess"].iloc[-1])}
