"""The sentences the intro page generates (never typed): the abstract, the findings, and what the theory page
states. Every number comes from the ledger (the sections' comparison tables on the stored results) or from the
section or check that computes it. Used by ``notebooks/intro.md``.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from .. import registry
from ..argument import checks
from ..jobs import runner
from ..report import verdicts
from ..report.numbers import number, span
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
                 f"{', '.join(map(str, covered[:-1]))} and {covered[-1]}), each proved or corrected; the "
                 f"attention-native claims of §6 are empirical and are checked on the evidence pages")
    return text + ", each with its proof and, where a statement can be checked numerically, a check computed on " \
                  "the page."


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
    sweep = registry.module("text_rank")
    found = _results("text_rank", profile)
    if found.entries:
        outcomes = sweep.compare(found, _results("real_corpora", profile))
        low = outcomes[outcomes["key"] == "low_rank"]
        out |= {"sweep_decided": int(low["outcome"].isin(sweep.DECIDED).sum()),
                "sweep_supported": int((low["outcome"] == "supported").sum()), "sweep_corpora": len(low),
                "sweep_done": len(found.entries), "sweep_asked": len(found.entries) + len(found.missing)}
        across = outcomes[outcomes["key"] != "low_rank"].set_index("key")
        if {"separates", "predicts"} <= set(across.index) and not (across["outcome"] == sweep.MISSING).any():
            out |= {"sweep_" + key: {"value": float(row["ours"]), "outcome": row["outcome"], "p": float(row["p"])}
                    for key, row in across.iterrows()}
            beside = sweep.variation(found.cfg, _results("real_corpora", profile))
            out["sweep_measures"] = span(beside["measures"]) if beside is not None else ""
    return out


def tally(claims: pd.DataFrame) -> dict[str, int]:
    """The ledger's verdicts counted: every claim, and each verdict."""
    counted = verdicts.counts(claims)
    return {"claims": len(claims), **counted}


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def abstract(claims: pd.DataFrame, found: dict) -> str:
    """The abstract (at most ``ABSTRACT_WORDS`` words): what reproduces, what does not and why, and what the book
    found beyond the paper."""
    n = tally(claims)
    failing = claims[claims["verdict"] == verdicts.NOT_REPRODUCED]
    holding = [words for name, words in ESTABLISHES.items()
               if name in set(claims["section"]) and not claims[(claims["section"] == name)]["verdict"].isin(
                   [verdicts.NOT_REPRODUCED, verdicts.NOT_SIGNIFICANT, verdicts.UNDECIDED]).any()]
    open_ = [part for part in (
        _count(n[verdicts.NOT_REPRODUCED], "fails", "fail") + " on our data"
        + (", all on App. B's data side" if len(failing) and set(failing["section"]) == {"real_corpora"} else "")
        if n[verdicts.NOT_REPRODUCED] else "",
        _count(n[verdicts.NOT_SIGNIFICANT], "correlation", "correlations") + " across six corpora cannot be decided "
        "for want of power" if n[verdicts.NOT_SIGNIFICANT] else "",
        _count(n[verdicts.UNDECIDED], "claim still moves", "claims still move") + " with the training budget"
        if n[verdicts.UNDECIDED] else "") if part]
    text = (f"We re-ran every table of the paper and judged each of its {n['claims']} quantitative claims by one "
            f"criterion stated in advance. {n[verdicts.REPRODUCED]} reproduce and {n[verdicts.CLAIM_HOLDS]} hold with "
            f"a different value" + ("; " + "; ".join(open_) if open_ else "") + ". What holds: " + _listed(holding)
            + ". Beyond the paper: the eigenvalue form of its Theorem 5 is false for non-normal teachers (a sheared "
            f"teacher breaks it by a factor of {number(found['shear_factor'])}); its Theorem 8 correction removes "
            f"{number(found['inflation_share'], 2)} % of the measured inflation of the effective rank at n = "
            f"{found['inflation_n']:,}")
    if "goal_met" in found:
        text += (f"; a convex pre-training estimator of ours reads r* under softmax in {found['goal_met']} of "
                 f"{found['goal_tasks']} tasks" + (", missing only where T = d" if found["misses_at_t_equal_d"] else "")
                 + ", past the limit the paper states")
    if "long_best_tokens" in found and found["long_rises"]:
        text += (f"; App. B's long run is best at {found['long_best_tokens'] / 1e6:g}M tokens and then memorizes its "
                 f"corpus")
    return text + "; " + _sweep_clause(found) + "."


def _sweep_clause(found: dict, detail: bool = False) -> str:
    """The sweep in words: the abstract's clause, and with ``detail`` the finding's, which adds claim (c)."""
    if "sweep_done" not in found:
        return "a capacity sweep for the attention-native rank of real text is declared and under way"
    if found["sweep_decided"] == 0:
        return (f"a capacity sweep for the attention-native rank of real text, declared in advance, has "
                f"{found['sweep_done']} of {found['sweep_asked']} students trained and decides no corpus yet")
    open_ = found["sweep_corpora"] - found["sweep_decided"]
    text = (f"a capacity sweep declared in advance finds a low-rank attention-native description of real text in "
            f"{found['sweep_supported']} of {found['sweep_decided']} "
            f"{'corpus' if found['sweep_decided'] == 1 else 'corpora'}" + (" decided so far" if open_ else "")
            + (f" ({open_} of {found['sweep_corpora']} still training: {found['sweep_done']} of "
               f"{found['sweep_asked']} students stored)" if open_ else ""))
    if "sweep_separates" not in found:
        return text
    separates, predicts = found["sweep_separates"], found["sweep_predicts"]
    cv = f"CV {number(separates['value'], 2)}" + (
        f", where App. B's model-side measures give {found['sweep_measures']}" if found["sweep_measures"] else "")
    verb = {"supported": "separates", "contradicted": "does not separate"}.get(separates["outcome"])
    text += (f"; the rank it reads {verb} the corpora ({cv})" if verb else
             f"; whether the rank it reads separates the corpora is {separates['outcome']} ({cv})")
    if not detail:
        return text
    if math.isfinite(predicts["value"]):
        return text + (f", and App. B's lag-MI predictor's correlation with it is {predicts['outcome']} (Pearson r = "
                       f"{number(predicts['value'], 2)}, p = {number(predicts['p'], 2)})")
    return text + f"; whether App. B's lag-MI predictor predicts it is {predicts['outcome']}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else "nothing"


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
                    + (f" ({differ} with another value)" if differ else ""))
        if counted[verdicts.NOT_SIGNIFICANT]:
            sentence += (", " + _count(counted[verdicts.NOT_SIGNIFICANT], "is", "are") + " not significant (too few "
                         "corpora to decide)")
        for verdict in (verdicts.UNDECIDED, verdicts.NOT_REPRODUCED):
            rows = own[own["verdict"] == verdict]
            if len(rows):
                sentence += "; " + "; ".join(f"\"{r['paper says']}\" ({r['where']}), {verdict}"
                                             for _, r in rows.iterrows())
        out.append(sentence + f" ({{numref}}`{tables[name]}`).")
    out.append(f"The eigenvalue form of the paper's Theorem 5 fails for a non-normal teacher: a sheared teacher puts "
               f"its bound {number(found['shear_factor'])} times above the exact excess, while the singular-value form "
               f"holds ({{doc}}`theory`).")
    out.append(f"The paper's Theorem 8 correction removes {number(found['inflation_share'], 2)} % of the inflation of "
               f"a least-squares estimate's effective rank at n = {found['inflation_n']:,}; a first-order analysis "
               f"predicts the rest ({{doc}}`theory`).")
    if "goal_met" in found:
        ours = _listed(found["exceeding"]) if found["exceeding"] else "none"
        out.append(f"Under softmax, the paper's own estimators are not exact across the grid, but estimators of ours "
                   f"are ({ours}), and the goal estimator declared in advance reads r* in {found['goal_met']} of "
                   f"{found['goal_tasks']} tasks of the grid and ten held-out settings"
                   + (", its misses all at T = d" if found["misses_at_t_equal_d"] else "") + " ({doc}`frontier`).")
    if "long_best_tokens" in found:
        out.append(f"App. B's long run reaches its lowest validation loss at {found['long_best_tokens'] / 1e6:g}M "
                   f"tokens" + (" and rises after, as the model memorizes its corpus" if found["long_rises"] else "")
                   + f"; its layer readings are still moving at {found['long_last_tokens'] / 1e6:g}M "
                   f"({{doc}}`real_corpora`).")
    sweep = _sweep_clause(found, detail=True)
    out.append(sweep[:1].upper() + sweep[1:] + " ({doc}`text_rank`).")
    return out


def findings_markdown(sentences: list[str]) -> str:
    return "\n".join(f"- {s}" for s in sentences)
