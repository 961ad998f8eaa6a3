"""The sentences the intro page generates (never typed): the abstract, the findings, and what the theory page
states. Every number comes from the ledger (the sections' comparison tables on the stored results) or from the
section or check that computes it. Used by ``notebooks/intro.md``.
"""

from __future__ import annotations

import re

import pandas as pd

from .. import registry
from ..argument import checks
from ..jobs import runner
from ..report import verdicts
from ..report.numbers import listed, number
from . import build

ENVIRONMENTS = ("theorem", "proposition", "corollary", "lemma")
# What each section of the paper establishes, in words, for the abstract's sentence on what holds.
ESTABLISHES = {
    "surrogate": "the rank–capacity bound of the linear surrogate (§4)",
    "ladder": "the localization of the break at input conditioning (§5)",
    "attention_native": "deficiency, achievability and recovery in the attention class (§6)",
    "predictability": "the predictability of r* from data (§6)",
    "ablation": "the robustness to the teacher's spectrum (App. D)",
    "real_corpora": "the real-corpus diagnostics (App. B)",
}
ABSTRACT_WORDS = 250
SENTENCE_WORDS = 60  # no sentence of the abstract or the findings runs longer


def argument_sentence(theory: str) -> str:
    """How many results of each kind the theory page (its MyST source ``theory``) states, and which of the
    paper's theorems its theorems cover (read from their titles, e.g. "(the paper's Theorems 1 and 5)")."""
    counts = {kind: len(re.findall(rf"^```{{prf:{kind}}}", theory, flags=re.MULTILINE)) for kind in ENVIRONMENTS}
    titles = re.findall(r"^```\{prf:theorem\}(.*)$", theory, flags=re.MULTILINE)
    covered = sorted({int(n) for title in titles for n in re.findall(r"\b(\d+)\b", title.split("paper's", 1)[-1])
                      if "paper's" in title})
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n]
    if not parts:
        return "the paper's results."
    text = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    if covered:
        text += (f": the theorems of the paper's §4 with their restatements in its App. A (Theorems "
                 f"{', '.join(map(str, covered[:-1]))} and {covered[-1]}), each proved or corrected")
    text += ", each with its proof and, where a statement can be checked numerically, a check computed on the page."
    return text + (" The attention-native claims of §6 are empirical and are checked on the evidence pages."
                   if covered else "")


# --- the numbers the abstract and the findings quote -------------------------------------------------------------


def _results(name: str, profile: str):
    return runner.run(name, build.shown_profile(name, profile, {}), compute=False, progress=False,
                      log=lambda *_: None)


def beyond(profile: str) -> dict:
    """What the book found beyond the paper's tables, each from the section or check that computes it: the
    eigenvalue counterexample, the share of inflation Theorem 8 removes, the goal estimator's record and where it
    misses, App. B's long run, and the capacity sweep on real text."""
    shear, (n, share) = checks.shear(), checks.inflation_share()
    out = {"shear_factor": shear["factor"], "inflation_n": n, "inflation_share": share}
    frontier = registry.module("frontier")
    found = _results("frontier", profile)
    if found.entries:
        goal = frontier.analysis.goal_rows(found)
        met = goal["exact"] & goal["within"] & (goal["failure"] == "")
        misses = goal[~met]
        shapes = {(int(t), int(d)) for t, d in zip(misses["T"], misses["d"], strict=True)} if "T" in misses else set()
        out |= {"goal_met": int(met.sum()), "goal_tasks": len(goal),
                "misses_at_t_equal_d": bool(shapes) and all(t == d for t, d in shapes),
                "exceeding": frontier.analysis.exceeding(found)}
    app = registry.module("real_corpora")
    found = _results("real_corpora", profile)
    if found.entries:
        run = app.long_run_trajectory(found)
        if len(run):
            losses = run.drop_duplicates("tokens").set_index("tokens")["val_loss"]
            out |= {"long_best_tokens": int(losses.idxmin()), "long_last_tokens": int(losses.index.max()),
                    "long_rises": bool(losses.iloc[-1] > losses.min())}
    out |= sweep_state(profile)
    return out


def sweep_judged(profile: str) -> tuple | None:
    """The capacity sweep's stored results at ``profile`` and the rule that decides it on them
    (``text_rank.judge_third``); None when none is stored."""
    found = _results("text_rank", profile)
    if not found.entries:
        return None
    return found, registry.module("text_rank").judge_third(found, _results("real_corpora", profile))


def sweep_state(profile: str, judged: tuple | None = None) -> dict:
    """The capacity sweep by the rule that decides, as the intro and the teaching chapter say it: ``{"sweep": ...}``
    with how many corpora it decides at its budget and which way, what keeps each verdict's gate shut, and how many
    of its students are stored; ``{}`` when none is. ``judged``: :func:`sweep_judged`'s answer, when at hand."""
    sweep = registry.module("text_rank")
    judged = judged or sweep_judged(profile)
    if judged is None:
        return {}
    found, third = judged
    cfg = found.cfg
    low = third["outcomes"][third["outcomes"]["key"] == "low_rank"]
    shut = third["gates"]
    return {"sweep": {"decided": int(low["outcome"].isin(sweep.DECIDED).sum()),
                      "supported": int((low["outcome"] == "supported").sum()),
                      "contradicted": int((low["outcome"] == "contradicted").sum()),
                      "missing": int((low["outcome"] == sweep.MISSING).sum()), "corpora": len(low),
                      "budget": cfg.amended_tokens, "widest": cfg.widest, "stored": len(found.entries),
                      "asked": len(found.entries) + len(found.missing),
                      "supported_shut": shut[True], "contradicted_shut": shut[False]}}


def tally(claims: pd.DataFrame) -> dict[str, int]:
    """The ledger's verdicts counted: every claim, and each verdict."""
    counted = verdicts.counts(claims)
    return {"claims": len(claims), **counted}


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def failures(claims: pd.DataFrame) -> str:
    """The claims that fail on our data, counted, with where they lie where that is App. B: on statistics of its
    corpora alone (``data statistic``) or on its trained models (read from each claim's row, never its section)."""
    failing = claims[claims["verdict"] == verdicts.NOT_REPRODUCED]
    text = _count(len(failing), "fails", "fail") + " on our data"
    if len(failing) and set(failing["section"]) == {"real_corpora"}:
        data = int((failing["estimator"] == "data statistic").sum())
        sides = [part for part in (f"{data} on statistics of App. B's corpora" if data else "",
                                   f"{len(failing) - data} on its trained models" if len(failing) - data else "")
                 if part]
        text += f" ({', '.join(sides)})"
    return text


def opposite_signs(claims: pd.DataFrame) -> str:
    """Of the correlations too few corpora decide, those whose estimate has the paper's opposite sign, in a clause
    (each as ours against the paper's); "" when none has."""
    own = claims[(claims["verdict"] == verdicts.NOT_SIGNIFICANT) & claims["paper value"].notna()]
    own = own[own["ours"].astype(float) * own["paper value"].astype(float) < 0]
    if own.empty:
        return ""
    symbol = {"Pearson": "r", "Spearman": "ρ"}
    said = [f"{symbol.get(q.split('(')[0], q.split('(')[0])} = {'+' if o > 0 else ''}{number(o)} against "
            f"{number(p)}" for q, o, p in zip(own["quantity"], own["ours"], own["paper value"], strict=True)]
    return (f", and {len(own)} of our estimates {'has' if len(own) == 1 else 'have'} the sign opposite to the "
            f"paper's ({listed(said)})")


def abstract(claims: pd.DataFrame, found: dict) -> str:
    """The abstract (at most ``ABSTRACT_WORDS`` words, no sentence over ``SENTENCE_WORDS``): what reproduces, what
    does not and why, and what the book found beyond the paper, every term a reader of the paper may not know
    said in words."""
    n = tally(claims)
    holding = [words for name, words in ESTABLISHES.items()
               if name in set(claims["section"]) and not claims[(claims["section"] == name)]["verdict"].isin(
                   [verdicts.NOT_REPRODUCED, verdicts.NOT_SIGNIFICANT, verdicts.UNDECIDED]).any()]
    sentences = [f"We re-ran every table of the paper and judged each of its {n['claims']} quantitative claims by "
                 f"one criterion stated in advance.",
                 f"{n[verdicts.REPRODUCED]} reproduce and {n[verdicts.CLAIM_HOLDS]} hold with a different value"
                 + (f"; {failures(claims)}" if n[verdicts.NOT_REPRODUCED] else "") + "."]
    open_ = [part for part in (
        f"for {_count(n[verdicts.NOT_SIGNIFICANT], 'correlation', 'correlations')} six corpora are too few to "
        f"decide the sign" + opposite_signs(claims) if n[verdicts.NOT_SIGNIFICANT] else "",
        _count(n[verdicts.UNDECIDED], "claim still moves", "claims still move") + " with the training budget"
        if n[verdicts.UNDECIDED] else "") if part]
    if open_:
        sentences.append(" and ".join(open_)[:1].upper() + " and ".join(open_)[1:] + ".")
    sentences.append("What holds: " + listed(holding) + ".")
    sentences.append(f"Beyond the paper, the eigenvalue form of its Theorem 5 fails for a teacher kernel that is not "
                     f"a normal matrix: a shear breaks it by a factor of {number(found['shear_factor'])}.")
    sentences.append(f"Its Theorem 8 correction removes {number(found['inflation_share'], 2)} % of the amount by "
                     f"which noise inflates a least-squares estimate's effective rank at n = {found['inflation_n']:,}.")
    if "goal_met" in found:
        sentences.append(f"Under softmax, a convex estimator of ours that sees only the data reads r* in "
                         f"{found['goal_met']} of {found['goal_tasks']} tasks"
                         + (", missing only where T = d" if found["misses_at_t_equal_d"] else "")
                         + ", past the limit the paper states for its own.")
    if "long_best_tokens" in found and found["long_rises"]:
        sentences.append(f"App. B's longest run is best at {found['long_best_tokens'] / 1e6:g}M tokens and then "
                         f"memorizes its corpus.")
    sweep = sweep_clause(found)
    sentences.append(sweep[:1].upper() + sweep[1:] + ".")
    return " ".join(sentences)


# The sweep's outcomes are those of the rule that decides: the third declaration's, as amended before any fresh seed
# was read (each verdict gated on the calibration case that would make it false). The clause says so.
DECLARED = ("a capacity sweep of real text's attention-native rank, declared in advance and amended so that each "
            "verdict must pass the calibration case that would refute it,")


GATES = (("supported_shut", "low rank"), ("contradicted_shut", "full rank"))  # each verdict's gate, by the words


def _decided(sweep: dict, when: str = "") -> str:
    """How many corpora the sweep decides at its budget (``when``: words that follow the budget), and which way."""
    return (f"decides {sweep['decided']} of {sweep['corpora']} corpora at {sweep['budget'] / 1e6:g}M tokens{when}"
            + (f" ({sweep['supported']} low-rank, {sweep['contradicted']} not)" if sweep["decided"] else ""))


def sweep_clause(found: dict, detail: bool = False) -> str:
    """The sweep in words, by the rule that decides: how many corpora it decides at its budget and which way, what
    the calibration allows, and what is not computed yet (the abstract's clause; with ``detail``, the finding's)."""
    if "sweep" not in found:
        return "a capacity sweep for the attention-native rank of real text is declared and under way"
    sweep = found["sweep"]
    if sweep["missing"] == sweep["corpora"]:
        text = f"{DECLARED} has no reading of a real corpus at its budget of {sweep['budget'] / 1e6:g}M tokens yet"
    else:
        text = f"{DECLARED} {_decided(sweep)}"
    reasons = {key: sweep[key].removeprefix("calibration: ") for key, _ in GATES}
    if all(why.endswith("not computed yet") for why in reasons.values()):
        text += ", and its calibration there is not computed yet"
    else:
        shut = [f"'{word}' cannot be earned ({reasons[key]})" for key, word in GATES if reasons[key]]
        text += (": " + " and ".join(shut)) if shut else ""
    if detail and sweep["stored"] < sweep["asked"]:
        text += f"; {sweep['asked'] - sweep['stored']} of its {sweep['asked']} students are not computed yet"
    return text


def sweep_brief(found: dict) -> str:
    """The open question and where the sweep stands, in one clause short enough for a lesson's summary: how many
    corpora it decides and which way, and which verdict its calibration cannot earn (``sweep_clause`` says why)."""
    question = "whether real text's attention-native rank is low"
    if "sweep" not in found:
        return f"{question}; a capacity sweep to decide it is declared and under way"
    sweep = found["sweep"]
    shut = [f"'{word}'" for key, word in GATES if sweep[key] and not sweep[key].endswith("not computed yet")]
    return (f"{question}; the capacity sweep {_decided(sweep, ' so far')}"
            + (f", and its calibration cannot earn {' or '.join(shut)} there" if shut else ""))


def _where(where: str) -> str:
    """Where the paper says a claim, without nested brackets: "App. B.3 (iii)" becomes "App. B.3 iii"."""
    return re.sub(r"\((\w+)\)", r"\1", where)


def words(text: str) -> int:
    """Words of a Markdown text as a reader counts them (numbers and math count as one word each)."""
    return len(re.sub(r"\{[^}]*\}`[^`]*`", "x", text).split())


def findings(claims: pd.DataFrame, found: dict) -> list[str]:
    """One sentence per finding, in words, each ending on the table or page that holds its evidence (MyST)."""
    tables = dict(zip(claims["section"], claims["table"], strict=False))
    out = []
    for name, words_ in ESTABLISHES.items():
        own = claims[claims["section"] == name]
        if own.empty:
            continue
        counted = verdicts.counts(own)
        held = counted[verdicts.REPRODUCED] + counted[verdicts.CLAIM_HOLDS]
        differ = counted[verdicts.CLAIM_HOLDS]
        sentence = (f"{words_[:1].upper() + words_[1:]}: {held} of {len(own)} claims hold"
                    + (f", {differ} with another value" if differ else ""))
        if counted[verdicts.NOT_SIGNIFICANT]:
            sentence += ("; " + _count(counted[verdicts.NOT_SIGNIFICANT], "is", "are") + " not significant, "
                         "six corpora being too few to decide")
        sentence += f" ({{numref}}`{tables[name]}`)."
        for verdict in (verdicts.UNDECIDED, verdicts.NOT_REPRODUCED):
            rows = own[own["verdict"] == verdict]
            if len(rows):
                sentence += " " + "; ".join(f"\"{r['paper says']}\" ({_where(r['where'])}), {verdict}"
                                            for _, r in rows.iterrows()) + "."
        out.append(sentence)
    out.append(f"The eigenvalue form of the paper's Theorem 5 fails for a teacher kernel that is not a normal matrix: "
               f"a shear puts its bound {number(found['shear_factor'])} times above the exact excess, while the "
               f"singular-value form holds ({{doc}}`theory`).")
    out.append(f"The paper's Theorem 8 correction removes {number(found['inflation_share'], 2)} % of the inflation of "
               f"a least-squares estimate's effective rank at n = {found['inflation_n']:,}; a first-order analysis "
               f"predicts the rest ({{doc}}`theory`).")
    if "goal_met" in found:
        out.append(f"Under softmax, {len(found['exceeding'])} pre-training estimators of ours are exact on the "
                   f"paper's grid, past the limit the paper states for its own; the one declared in advance reads r* "
                   f"in {found['goal_met']} of {found['goal_tasks']} tasks of the grid and ten held-out settings"
                   + (", missing only at T = d" if found["misses_at_t_equal_d"] else "") + " ({doc}`frontier`).")
    if "long_best_tokens" in found:
        out.append(f"App. B's long run reaches its lowest validation loss at {found['long_best_tokens'] / 1e6:g}M "
                   f"tokens" + (" and rises after, as the model memorizes its corpus" if found["long_rises"] else "")
                   + f"; its layer readings are still moving at {found['long_last_tokens'] / 1e6:g}M "
                   f"({{doc}}`real_corpora`).")
    sweep = sweep_clause(found, detail=True)
    out.append(sweep[:1].upper() + sweep[1:] + " ({doc}`text_rank`).")
    return out


def findings_markdown(sentences: list[str]) -> str:
    return "\n".join(f"- {s}" for s in sentences)
