"""The capacity sweep's students and the first declaration's verdicts (``declared.DECLARED``): the deficiency
curves, the tolerance τ, the attention-native rank r̂ per corpus and budget, the power check, the reuse check and
the three claims. The second declaration's reading of the same students is ``second``'s.

The widest students of the real corpora come from App. B's stored models when ``Config.reuse`` holds (``widest``):
App. B's page is read, never recomputed (the notebook passes its results in). ``rows`` holds every student of
either declaration; ``first`` selects those the first declaration reads (seeds ``Config.seeds``, App. B's models at
full width, the power check's routing corpus)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...engine import statistics as stats
from ...engine.spectral import energy_effective_rank_from_spectrum
from ...report import verdicts
from ...report.numbers import number, span
from ..real_corpora import analysis as corpora_analysis
from .spec import COPYING, ROUTING

CV_LIMIT = 0.20  # (b): the top of the paper's range for the model-side measures' across-corpus CV
SWEEP, APP_B = "trained by the sweep", "App. B's stored models"  # where a student comes from (the source column)


def label(cfg, params: dict) -> str:
    """The corpus a job's students are read as: its corpus, or for the routing corpus at a further known rank (the
    calibration) ``routing rank k``; the power check's routing corpus keeps the name ``routing``."""
    if params["corpus"] == COPYING:
        return f"{COPYING} rank {params['copying_rank']}"
    known = params.get("routing_rank", cfg.routing_rank)
    if params["corpus"] == ROUTING and (own := routing_settings(cfg, params)):
        return f"{ROUTING} rank {known} ({own})"
    return f"{ROUTING} rank {known}" if params["corpus"] == ROUTING and known != cfg.routing_rank else params["corpus"]


def routing_settings(cfg, params: dict) -> str:
    """A routing generator's settings that differ from the power check's (keys, values, the kernel's scale), in
    words ("" when none does): the amendment's calibration names its generators by them."""
    said = (("routing_keys", "{:g} keys"), ("routing_values", "{:g} values"), ("routing_scale", "scale {:g}"))
    words = [form.format(params[name]) for name, form in said if name in params and params[name] != getattr(cfg, name)]
    return ", ".join(words)


def known_rank(cfg, corpus: str) -> int | None:
    """The kernel rank of a routing corpus read as ``corpus`` (``label``), None for a real corpus."""
    if corpus == ROUTING:
        return cfg.routing_rank
    generated = corpus.startswith((f"{ROUTING} rank ", f"{COPYING} rank "))
    return int(corpus.split(" rank ", 1)[1].split(" ")[0]) if generated else None


# --- the rows ------------------------------------------------------------------------------------------------


def widest(cfg, appendix_b) -> pd.DataFrame:
    """App. B's stored models standing in for the widest students of the real corpora (``Config.reuse``): its
    d_model = cfg.d_model models of the seeds asked, at the checkpoints of the sweep's budget, with the per-head
    R_eff of their kernels (and R̃_eff where App. B stored spectra). Empty without ``reuse`` or App. B's results.
    A mismatch of App. B's protocol with the sweep's raises ValueError naming it."""
    columns = ["corpus", "rank", "seed", "step", "tokens", "val_loss", "kernel_rank", "kernel_energy_rank",
               "source"]
    if not cfg.reuse or appendix_b is None or "models" not in appendix_b.tables:
        return pd.DataFrame(columns=columns)
    app = appendix_b.cfg
    for name in ("layers", "heads", "context", "batch_size", "lr", "weight_decay", "block", "val_every",
                 "tail_fraction", "eval_windows"):
        if getattr(app, name) != getattr(cfg, name):
            raise ValueError(f"App. B's {name} is {getattr(app, name)}, the sweep's {getattr(cfg, name)}: its models "
                             f"are not the sweep's widest students (run with reuse=false)")
    models = appendix_b["models"]
    asked = np.array([c in cfg.corpora and s in cfg.seeds_of(c) for c, s in zip(models["corpus"], models["seed"],
                                                                             strict=True)], dtype=bool)
    models = models[(models["d_model"] == cfg.d_model) & (models["budget"] >= cfg.tokens) & asked]
    marks = {m * cfg.batch_size * cfg.context for m in cfg.marks()}
    models = models[models["tokens"].isin(marks)]
    models = models[models["budget"] == models.groupby("corpus")["budget"].transform("min")]  # one grid per corpus
    heads = appendix_b["heads"]
    keys = ["corpus", "d_model", "budget", "tokens", "seed"]
    rank = heads.groupby(keys)["static_kernel_rank"].mean().rename("kernel_rank")
    out = models.join(rank, on=keys)
    if "spectra" in appendix_b.tables:
        energy = _energy(appendix_b["spectra"], keys)
        out = out.join(energy, on=keys) if energy is not None else out.assign(kernel_energy_rank=math.nan)
    else:
        out = out.assign(kernel_energy_rank=math.nan)
    out = out.assign(rank=cfg.widest, source=APP_B)
    return out.reindex(columns=columns)


def _energy(spectra: pd.DataFrame, keys: list[str]) -> pd.Series | None:
    """Mean per-head R̃_eff (eq. 2) of W_QK from App. B's stored spectra, per model and checkpoint (None where none)."""
    if "matrix" not in spectra or "values" not in spectra:
        return None
    own = spectra[spectra["matrix"] == "W_QK"]
    if own.empty:
        return None
    own = own.assign(energy=[float(energy_effective_rank_from_spectrum(np.asarray(v, dtype=float)))
                             for v in own["values"]])
    return own.groupby(keys)["energy"].mean().rename("kernel_energy_rank")


def rows(results, appendix_b=None) -> pd.DataFrame:
    """Every student, every checkpoint: corpus (``label``), rank, seed, step, tokens, val_loss, mean per-head R_eff
    and R̃_eff of its kernels, and where it comes from (``SWEEP`` or ``APP_B``); the reuse check's student is left
    out (``check``)."""
    cfg = results.cfg
    own = []
    for entry in results.entries:
        if entry.job.endswith("-check") or "-check-" in entry.job or not entry.tables.get("models"):
            continue
        models, kernels = pd.DataFrame(entry.tables["models"]), pd.DataFrame(entry.tables["kernels"])
        per_head = kernels[kernels["head"] != "all"].groupby("step")[["kernel_rank", "kernel_energy_rank"]].mean()
        own.append(models.join(per_head, on="step").assign(corpus=label(cfg, entry.params), source=SWEEP,
                                                           budget=entry.params.get("tokens", cfg.tokens)))
    reused = widest(cfg, appendix_b).assign(budget=cfg.tokens)
    return pd.concat([*own, reused] if len(reused) else own, ignore_index=True) if own or len(reused) else reused


def first(students: pd.DataFrame, cfg) -> pd.DataFrame:
    """The students the first declaration reads: the power check's routing corpus and the real corpora, seeds
    ``cfg.seeds``, and at full width App. B's stored models where ``cfg.reuse`` (not the one-engine students)."""
    keep = students["corpus"].isin([ROUTING, *cfg.corpora]) & students["seed"].isin(cfg.seeds)
    if cfg.reuse:
        keep &= ~(students["corpus"].isin(cfg.corpora) & (students["rank"] == cfg.widest)
                  & (students["source"] == SWEEP))
    return students[keep]


def check(results, appendix_b=None) -> pd.DataFrame:
    """The reuse check: the widest student trained again by the sweep's engine beside App. B's stored one (same
    corpus, seed and checkpoints)."""
    checked = [e for e in results.entries if e.job.endswith("-check") or "-check-" in e.job]
    reused = widest(results.cfg, appendix_b)
    if not checked or reused.empty:
        return pd.DataFrame()
    p = checked[0].params
    models = results["models"]
    again = models[(models["corpus"] == p["corpus"]) & (models["rank"] == p["rank"]) & (models["seed"] == p["seed"])]
    stored = reused[(reused["corpus"] == p["corpus"]) & (reused["seed"] == p["seed"])]
    both = again.set_index("tokens")["val_loss"].rename("trained again").to_frame().join(
        stored.set_index("tokens")["val_loss"].rename("App. B's stored model"), how="inner")
    both["difference"] = both["trained again"] - both["App. B's stored model"]
    return both.assign(corpus=p["corpus"], seed=p["seed"])


# --- the curves, τ and r̂ --------------------------------------------------------------------------------------


def curves(students: pd.DataFrame) -> pd.DataFrame:
    """Per (corpus, tokens, rank): the seeds' mean and standard deviation of the validation loss, and their count."""
    by = students.groupby(["corpus", "tokens", "rank"])["val_loss"]
    return pd.DataFrame({"mean": by.mean(), "sd": by.std(ddof=1), "seeds": by.size()})


def tolerance(curve: pd.DataFrame) -> tuple[float, float]:
    """(s, τ) of one corpus and budget (``curve`` indexed by rank): the pooled standard deviation over widths and
    τ = 2 · s · √(2/n) (``declared``: "the tolerance and r̂")."""
    usable = curve[curve["seeds"] >= 2]
    if usable.empty:
        return math.nan, math.nan
    s = math.sqrt(float((usable["sd"] ** 2).mean()))
    return s, tau_of(s, int(usable["seeds"].min()))


def tau_of(s, n: int):
    """τ = 2 · s · √(2/n): two standard errors of the difference of two widths' means of n seeds each (both
    declarations); ``s`` a number or an array."""
    return 2 * s * math.sqrt(2 / n)


def rank_hat(curve: pd.DataFrame, tau: float) -> int | None:
    """r̂: the smallest rank whose mean loss is within τ of the widest rank's (None when the widest is missing)."""
    if curve.empty or not math.isfinite(tau):
        return None
    top = curve.index.max()
    within = curve.index[curve["mean"] - curve.loc[top, "mean"] <= tau]
    return int(within.min())


def ranks(students: pd.DataFrame, grid) -> pd.DataFrame:
    """Per (corpus, tokens): s, τ, r̂ (and r̂ at τ/2 and 2τ), the loss gap of the next narrower width; r̂ only where
    every width of ``grid`` (the ranks asked) is stored with the same number of seeds, at least two."""
    table = curves(students)
    widest_rank, out = max(grid), []
    for (corpus, tokens), curve in table.groupby(level=["corpus", "tokens"]):
        curve = curve.droplevel(["corpus", "tokens"]).sort_index()
        complete = set(grid) <= set(curve.index) and curve["seeds"].nunique() == 1 and curve["seeds"].min() >= 2
        s, tau = tolerance(curve)
        hat = rank_hat(curve, tau) if complete else None
        narrower = curve.index[curve.index < hat] if hat is not None else []
        gap = float(curve.loc[narrower.max(), "mean"] - curve.loc[widest_rank, "mean"]) if len(narrower) else math.nan
        out.append({"corpus": corpus, "tokens": int(tokens), "widths": len(curve), "seeds": int(curve["seeds"].min()),
                    "s": s, "tau": tau, "r_hat": hat,
                    "r_hat_half_tau": rank_hat(curve, tau / 2) if complete else None,
                    "r_hat_double_tau": rank_hat(curve, 2 * tau) if complete else None,
                    "gap_below": gap, "complete": complete,
                    "widest_loss": float(curve.loc[widest_rank, "mean"]) if widest_rank in curve.index else math.nan})
    return pd.DataFrame(out)


# --- the outcomes -----------------------------------------------------------------------------------------------

SUPPORTED, CONTRADICTED, UNDECIDED, MISSING = "supported", "contradicted", "undecided", "not computed yet"
NOT_SIGNIFICANT = verdicts.NOT_SIGNIFICANT  # (c)'s declared word for a correlation whose p is at least 0.05
DECIDED = (SUPPORTED, CONTRADICTED)
# The declared claims are this book's hypotheses, not the paper's claims: their outcomes are named for what they
# are (supported, contradicted, not significant, undecided) and are not counted in the ledger of the paper's claims.
CLAIM_WORDS = {"low_rank": "real text admits a low-rank attention-native description",
               "separates": "r̂ separates corpora", "predicts": "the lag-MI predictor predicts r̂"}


def budgets(results) -> tuple[int, int | None]:
    """(the budget the outcomes use, the one before it that (a) is checked against), in tokens."""
    cfg = results.cfg
    marks = [m * cfg.batch_size * cfg.context for m in cfg.marks()]
    return marks[-1], (marks[-2] if len(marks) > 1 else None)


def power(results, table: pd.DataFrame) -> dict:
    """The power check (``declared``): r̂ of the routing corpus at the budget against its kernel's rank."""
    budget, _ = budgets(results)
    own = table[(table["corpus"] == ROUTING) & (table["tokens"] == budget)]
    hat = None if own.empty or pd.isna(own["r_hat"].iloc[0]) else int(own["r_hat"].iloc[0])
    return {"r_hat": hat, "expected": results.cfg.routing_rank, "passes": hat == results.cfg.routing_rank,
            "complete": hat is not None}


def outcome_row(claim: str, quantity: str, value, supported: bool | None, why: str = "", missing: bool = False,
             beside: str = "", otherwise: str = UNDECIDED, p: float = math.nan) -> dict:
    """One declared claim's row: its outcome is supported or contradicted when the rule decides it, undecided when
    ``why`` says what keeps it open, ``otherwise`` (the rule's own word) when the rule decides neither, and not
    computed yet when its students are ``missing``; ``beside`` is what the prose sets next to the value (also part
    of ``quantity``), ``p`` a correlation's permutation p-value."""
    outcome = MISSING if missing else UNDECIDED if why else otherwise if supported is None else \
        SUPPORTED if supported else CONTRADICTED
    return {"claim": CLAIM_WORDS[claim], "key": claim, "quantity": quantity, "ours": value, "outcome": outcome,
            "why": why, "beside": beside, "p": p}


def compare(results, appendix_b=None) -> pd.DataFrame:
    """The three declared claims by their declared rules: (a) per corpus, (b) and (c) across corpora."""
    cfg = results.cfg
    table = ranks(first(rows(results, appendix_b), cfg), cfg.ranks)
    budget, before = budgets(results)
    sees = power(results, table)
    at = table[table["tokens"] == budget].set_index("corpus")
    earlier = table[table["tokens"] == before].set_index("corpus") if before else pd.DataFrame()
    out, open_ = [], False
    for corpus in cfg.corpora:
        hat = at["r_hat"].get(corpus) if corpus in at.index else None
        if hat is None or pd.isna(hat):
            out.append(outcome_row("low_rank", f"{corpus}: r̂ at {budget / 1e6:g}M tokens", math.nan, None,
                                "not every width of its sweep is stored yet", missing=True))
            open_ = True
            continue
        hat = int(hat)
        holds, why = hat < cfg.widest, ""
        if not sees["passes"]:
            why = "power: the sweep does not read the routing corpus's rank"
        elif corpus in earlier.index and not pd.isna(earlier["r_hat"].get(corpus)) \
                and (int(earlier.loc[corpus, "r_hat"]) < cfg.widest) != holds:
            why = f"budget: the outcome differs at {before / 1e6:g}M tokens"
        open_ |= bool(why)
        out.append(outcome_row("low_rank", f"{corpus}: r̂ = {hat} of {cfg.widest} (τ = {at.loc[corpus, 'tau']:.2g} "
                               f"nats)", hat, holds, why))
    hats = pd.Series({c: float(at.loc[c, "r_hat"]) for c in cfg.corpora
                      if c in at.index and not pd.isna(at["r_hat"].get(c))})
    if len(hats) < 3:
        for key in ("separates", "predicts"):
            out.append(outcome_row(key, "across corpora", math.nan, None, "not enough corpora have r̂ yet",
                                   missing=True))
        return pd.DataFrame(out)
    cv = stats.coefficient_of_variation(hats)
    why = "a corpus's r̂ is undecided or missing" if open_ else ""
    beside = variation(cfg, appendix_b)
    shown = "" if beside is None else (f"App. B's measures at d_model = {cfg.d_model}: {span(beside['measures'])}, "
                                       f"its predictor: {number(beside['predictor'], 2)}")
    out.append(outcome_row("separates", f"CV of r̂ across {len(hats)} corpora (> {CV_LIMIT} separates"
                        + (f"; {shown})" if shown else ")"), cv, cv > CV_LIMIT, why, beside=shown))
    pred = predictor(appendix_b, hats.index)
    if pred is None or hats.nunique() < 2:
        out.append(outcome_row("predicts", "Pearson(predicted rank, r̂)", math.nan, None,
                            "r̂ is the same for every corpus" if pred is not None else "App. B's predictor is missing"))
        return pd.DataFrame(out)
    r = stats.pearson(pred, hats.loc[pred.index])
    p = stats.permutation_p(pred.to_numpy(), hats.loc[pred.index].to_numpy())
    rho = stats.spearman(pred, hats.loc[pred.index])
    significant = p < verdicts.SIGNIFICANCE
    shown = f"p = {p:.2g}, |r| ≥ {stats.critical_r(len(pred)):.2f} needed; Spearman ρ = {number(rho, 2)}"
    out.append(outcome_row("predicts", f"Pearson(predicted rank, r̂) across {len(pred)} corpora ({shown})", r,
                        (r > 0) if significant else None, why, beside=shown, otherwise=NOT_SIGNIFICANT, p=p))
    return pd.DataFrame(out)


def variation(cfg, appendix_b) -> dict | None:
    """What (b) shows beside the CV of r̂: the across-corpus CV of App. B's model-side measures at the sweep's
    d_model (its main reading) and of its predictor, or None without App. B's results."""
    if appendix_b is None or "predictor" not in appendix_b.tables or "heads" not in appendix_b.tables:
        return None
    table = corpora_analysis.measure_variation(appendix_b)
    if cfg.d_model not in table.index:
        return None
    row = table.loc[cfg.d_model]
    return {"measures": row.drop("predictor").dropna(), "predictor": float(row["predictor"])}


def predictor(appendix_b, corpora) -> pd.Series | None:
    """App. B's data-side predicted rank per corpus (its main reading: the effective number of informative lags,
    under the circular-shift null where it is stored), or None."""
    if appendix_b is None or "predictor" not in appendix_b.tables:
        return None
    table = appendix_b["predictor"].drop_duplicates("corpus").set_index("corpus")
    column = "effective_lags_shift" if "effective_lags_shift" in table else "effective_lags"
    found = [c for c in corpora if c in table.index]
    return table.loc[found, column].astype(float) if len(found) >= 3 else None
