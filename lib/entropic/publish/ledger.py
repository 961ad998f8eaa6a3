"""The claims ledger: every quantitative claim of the paper, where the book decides it, and the verdict.

Built, never typed, from two sources: each section's ``CLAIMS`` (the paper's words, where it says them)
and its comparison table (``compare``) on the stored results of the profile the book shows. A claim a
comparison row decides carries that row's numbers and verdict; a claim no row decides (at this profile
or at all) is listed as ``not checked``, with why. Used by ``notebooks/ledger.md`` and the intro's summary.
"""

from __future__ import annotations

import pandas as pd

from .. import registry
from ..jobs import runner
from ..report import verdicts
from . import build, memo

BEYOND = "Beyond the paper"  # the caption of the part of ``_toc.yml`` whose pages go past the paper
COLUMNS = ["section", "claim", "title", "table", "quantity", "paper says", "where", "paper value", "ours", "ours shown",
           "kind", "estimator", "criterion", "claim holds", "value agrees", "verdict", "note", "undecided", "p",
           "profile"]
# Why a claim is not reproduced or not decided, one class per finding (``findings``):
FAILS = "fails on our data"
POWER = "undecided: power (too few points to decide the sign)"
BUDGET = "undecided: budget (still moving with the training budget)"
BEYOND_LIMIT = "beyond the paper: a limit the paper stated is exceeded by an estimator of ours"
OURS = ("convex regression on recovered attention", "maximum likelihood (= training)")  # estimator kinds of ours


def section_rows(name: str, profile: str) -> list[dict]:
    """The ledger rows of one section: its comparison rows, then its claims that no row decides. Computed once per
    state of the section's page at the profile it shows (its fingerprint: its stored entries and its code) and version
    of the library (``memo``): the ledger, the intro and the teaching page each read every section's rows, or one's,
    and a build that changed one section computes that section's rows alone."""
    module = registry.module(name)
    if not module.CLAIMS:  # a section beyond the paper that judges hypotheses of its own, no claim of the paper
        return []
    planned = runner.plan(name, profile)  # what it shows and its fingerprint read one plan, as a page's build does
    shown = build.shown_profile(name, profile, {}, planned)
    stamp = build.fingerprint(name, shown, {}, planned if shown == profile else None)
    return memo.remembered_call(_section_rows, name, shown, stamp)


def _section_rows(name: str, shown: str, fingerprint: str) -> list[dict]:
    """:func:`section_rows` at the profile the book shows; ``fingerprint``, the section page's there, names what the
    rows are computed from (the key they are stored under)."""
    return claim_rows(name, runner.run(name, shown, compute=False, progress=False, log=lambda *_: None))


def claim_id(section: str, key: str) -> str:
    """A claim's name in the book, ``<section>.<key>`` (its key in the section's ``CLAIMS``): what a sentence that
    refers to the claim names (``page.glue_claims``) and what the ledger's row of the claim is anchored by."""
    return f"{section}.{key}"


def claim_rows(name: str, results, comparison: pd.DataFrame | None = None) -> list[dict]:
    """The ledger rows of one section from its ``results``: each row of its comparison table (``comparison``, when
    the page has computed it, else ``compare(results)``), then each of its claims that no row decides; every row
    names its claim (``claim_id``)."""
    module = registry.module(name)
    # a row names the claim whose words and place it repeats (the first such claim, where two share them)
    keys = {(claim.says, claim.where): key for key, claim in reversed(module.CLAIMS.items())}
    base = {"section": name, "title": module.TITLE, "table": module.TABLE, "profile": results.profile}
    rows, decided = [], set()
    if results.entries:
        table = module.compare(results) if comparison is None else comparison
        for quantity, row in table.iterrows():
            key = keys.get((row["paper says"], row["where"]))
            rows.append({**base, "claim": claim_id(name, key) if key else None, "quantity": quantity,
                         **{c: row[c] for c in COLUMNS if c in row.index}})
            decided.add((row["paper says"], row["where"]))
    if not results.entries:
        why = f"no `{results.profile}` results of this section are stored yet"
    elif not getattr(results.cfg, "paper_setting", True):
        why = f"the `{results.profile}` profile's task differs from the paper's, so the paper's number does not apply"
    else:
        why = "no table of this book decides it"
    for key, claim in module.CLAIMS.items():
        if (claim.says, claim.where) not in decided:
            rows.append({**base, "claim": claim_id(name, key), "quantity": f"not checked: {why}",
                         "paper says": claim.says, "where": claim.where, "paper value": claim.value,
                         "ours": float("nan"), "kind": None, "estimator": None, "criterion": None,
                         "claim holds": None, "value agrees": None, "verdict": verdicts.NOT_CHECKED})
    return rows


def frame(profile: str, sections: list[str] | None = None) -> pd.DataFrame:
    """The ledger at ``profile``: one row per claim, sections in the order of the book (all of them, or ``sections``:
    a page that states one section's verdicts reads only that section's results)."""
    book = build.toc_sections()
    unknown = sorted(set(sections or ()) - set(book))
    if unknown:
        raise ValueError(f"the book has no section {', '.join(map(repr, unknown))} (its sections: {', '.join(book)})")
    rows = [row for name in book if sections is None or name in sections for row in section_rows(name, profile)]
    return pd.DataFrame(rows, columns=COLUMNS)


def row_of(ledger: pd.DataFrame, claim) -> pd.Series:
    """The ledger's row of ``claim`` (a section's ``Claim``: the paper's words and where it says them), for a
    sentence elsewhere in the book that states the claim's verdict; a claim the ledger lacks raises ValueError."""
    own = ledger[(ledger["paper says"] == claim.says) & (ledger["where"] == claim.where)]
    if own.empty:
        raise ValueError(f"the ledger has no row for the claim {claim.says!r} ({claim.where})")
    return own.iloc[0]


def summary(ledger: pd.DataFrame) -> pd.DataFrame:
    """Verdict counts per section and in total (every verdict a column, zeros included)."""
    counts = pd.DataFrame([verdicts.counts(group) for _, group in ledger.groupby("section", sort=False)],
                          index=list(dict.fromkeys(ledger["section"])))
    counts.loc["total"] = counts.sum()
    counts.insert(0, "claims", counts.sum(axis=1))
    counts.index.name = "section"
    return counts


def summary_sentence(ledger: pd.DataFrame) -> str:
    """The totals in one sentence, for the intro and the ledger's opening."""
    total = summary(ledger).loc["total"]
    parts = [f"**{int(total[v])}** {v}" for v in verdicts.VERDICTS if total[v]]
    part_of = build.toc_parts()
    beyond = [name for name in dict.fromkeys(ledger["section"]) if part_of.get(name) == BEYOND]
    again = int(ledger["section"].isin(beyond).sum())
    where = (f" ({again} of them on the part {BEYOND.lower()}, which judges statements of the paper on "
             f"estimators of its own)" if again else "")
    unchecked = int(total[verdicts.NOT_CHECKED])
    return (f"Of **{int(total['claims'])}** verdicts on the paper's quantitative claims, one per claim and "
            f"regime{where}: " + ", ".join(parts) + ". "
            + (f"The {unchecked} claims no table decides are listed as *not checked*, with why." if unchecked else
               "Every claim the ledger lists is decided by a table of the book."))


def by_estimator(ledger: pd.DataFrame) -> pd.DataFrame:
    """Verdict counts per kind of estimator behind our number (a row over several kinds counted once, under their
    joined kinds), every verdict a column (those no row has left out)."""
    decided = ledger[ledger["verdict"] != verdicts.NOT_CHECKED]
    table = pd.DataFrame({kind: verdicts.counts(group) for kind, group in decided.groupby("estimator", sort=False)}).T
    table = table.loc[:, (table != 0).any()]
    table.insert(0, "claims", table.sum(axis=1))
    return table.rename_axis("kind of estimator behind our number")



def reason(row, part_of: dict[str, str]) -> str:
    """The reason class of a finding (``FAILS``, ``POWER``, ``BUDGET`` or ``BEYOND_LIMIT`` with the kind)."""
    if row["verdict"] in (verdicts.NOT_SIGNIFICANT, verdicts.UNDEFINED):
        return POWER
    if row["verdict"] == verdicts.UNDECIDED:
        return BUDGET
    kinds = verdicts.estimator_kinds(row["estimator"]) if isinstance(row.get("estimator"), str) else []
    ours = [k for k in kinds if k in OURS]
    if part_of.get(row["section"]) == BEYOND and ours:
        return f"{BEYOND_LIMIT} (of kind: {', '.join(ours)})"
    return FAILS


def findings(ledger: pd.DataFrame, part_of: dict[str, str] | None = None) -> pd.DataFrame:
    """The claims that do not reproduce and those the data cannot decide, each with its reason class, in the
    ledger's order: section, the deciding table, the paper's words, our quantity, the verdict, the reason."""
    part_of = build.toc_parts() if part_of is None else part_of
    chosen = ledger[ledger["verdict"].isin([verdicts.NOT_REPRODUCED, verdicts.NOT_SIGNIFICANT, verdicts.UNDECIDED,
                                            verdicts.UNDEFINED])]
    rows = [{"section": row["section"], "title": row["title"], "table": row["table"], "paper says": row["paper says"],
             "where": row["where"], "quantity": row["quantity"], "verdict": row["verdict"],
             "reason": reason(row, part_of)} for _, row in chosen.iterrows()]
    return pd.DataFrame(rows, columns=["section", "title", "table", "paper says", "where", "quantity", "verdict",
                                       "reason"])


def findings_markdown(found: pd.DataFrame) -> str:
    """The findings as a MyST list, grouped by reason class, each line linked to its table."""
    if found.empty:
        return "Every claim the book decides is reproduced or holds with a different value."
    lines = []
    for why, group in found.groupby("reason", sort=False):
        lines.append(f"**{why[:1].upper() + why[1:]}** ({len(group)}):\n")
        for _, row in group.iterrows():
            lines.append(f"- {row['title']}: \"{row['paper says']}\" ({row['where']}), {row['verdict']} "
                         f"({{numref}}`{row['table']}`)")
        lines.append("")
    return "\n".join(lines)
