"""What a section page shows, as MyST: the banner, numbered tables with captions, the comparison with
its verdicts, the prose facts.

Every function here returns or displays Markdown that the book parses as MyST (``_config.yml`` sets
``nb_render_markdown_format: myst``), so a table is a numbered ``{table}`` with a caption and a label
that prose can ``{numref}``, and a warning is a real admonition. Cells are formatted for reading:
three significant digits, booleans as ✓ and ✗, a missing number as a dash explained under the table,
verdicts as coloured badges. Used by every section notebook; ``runner`` computes, this module shows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import runner, verdicts

BADGES = {verdicts.REPRODUCED: "success", verdicts.CLAIM_HOLDS: "warning", verdicts.NOT_REPRODUCED: "danger",
          verdicts.NOT_SIGNIFICANT: "secondary", verdicts.UNDEFINED: "secondary", verdicts.NOT_CHECKED: "light"}
DASH = "—"


def badge(verdict: str) -> str:
    return f"{{bdg-{BADGES[verdict]}}}`{verdict}`"


def cell(value, digits: int = 3) -> str:
    """One table cell: numbers to ``digits`` significant digits, booleans ✓/✗, missing as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    if isinstance(value, (bool, np.bool_)):
        return "✓" if value else "✗"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if value == 0:
            return "0"
        if abs(value) >= 1e5 or abs(value) < 1e-3:
            mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
            return f"{mantissa}×10<sup>{int(exponent)}</sup>"
        return f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:.0f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_markdown(frame: pd.DataFrame, caption: str, name: str, index: bool = True, digits: int = 3,
                   missing: str | None = None) -> str:
    """A numbered MyST table with ``caption`` and label ``name``. A dash marks a missing value; ``missing``
    (or a default) says why, under the table."""
    if frame.empty:  # nothing to tabulate at this profile: say so instead of an empty table
        return f"*{caption}* No rows at this profile.\n"
    named = not isinstance(frame.index, pd.RangeIndex)
    shown = frame.reset_index() if index and named else frame
    header = ["" if str(c) == "index" else str(c) for c in shown.columns]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    dashes = False
    for values in shown.itertuples(index=False):
        cells = [cell(v, digits) for v in values]
        dashes |= DASH in cells
        lines.append("| " + " | ".join(cells) + " |")
    text = f"```{{table}} {caption}\n:name: {name}\n\n" + "\n".join(lines) + "\n```\n"
    if dashes:
        text += f"\n{DASH}: {missing or 'no value: the quantity is not defined for this row'}.\n"
    return text


def show_table(frame: pd.DataFrame, caption: str, name: str, **kwargs) -> None:
    from IPython.display import Markdown, display

    display(Markdown(table_markdown(frame, caption, name, **kwargs)))


def _agreement(agrees, tolerance: str) -> str:
    if agrees is None or (isinstance(agrees, float) and math.isnan(agrees)):
        return DASH
    return f"{cell(bool(agrees))} {tolerance}"


MARKS = "¹²³⁴⁵⁶⁷⁸⁹"


def comparison_markdown(comparison: pd.DataFrame, caption: str, name: str) -> str:
    """The table beside the paper, verdict first: the verdict count, the criteria it uses, the value rule,
    then one row per quantity (the value's agreement shown with its tolerance). A non-empty ``note`` of a
    row (e.g. the budgets at which its claim holds) marks its verdict and is listed under the table."""
    kinds = dict.fromkeys(comparison["kind"])
    criteria = "\n".join(f"- *{kind}*: {verdicts.CRITERIA[kind]}" for kind in kinds)
    notes = [n if isinstance(n, str) else "" for n in comparison.get("note", pd.Series("", comparison.index))]
    marked = [i for i, n in enumerate(notes) if n]
    if len(marked) > len(MARKS):
        raise ValueError(f"{len(marked)} notes under one table; at most {len(MARKS)}")
    marks = {i: MARKS[k] for k, i in enumerate(marked)}
    rows = pd.DataFrame({
        "verdict": [badge(v) + marks.get(i, "") for i, v in enumerate(comparison["verdict"])],
        "quantity": comparison.index,
        "paper says": comparison["paper says"] + " (" + comparison["where"] + ")",
        "ours": comparison["ours"],
        "claim holds": comparison["claim holds"],
        "value agrees (tolerance)": [_agreement(a, t) for a, t in zip(comparison["value agrees"],
                                                                     comparison["value tolerance"], strict=True)],
    })
    if comparison["p"].notna().any():
        rows.insert(4, "p", comparison["p"])
    estimators = list(dict.fromkeys(comparison["estimator"]))
    if len(estimators) > 1:  # a column only where the rows' numbers come from different kinds of estimator
        rows.insert(2, "computed by", comparison["estimator"].to_numpy())
        said = ""
    else:
        said = f"Every number of ours below comes from {_kind_words(estimators[0])}.\n\n"
    body = table_markdown(rows, caption, name, index=False,
                          missing="the paper states no number for this quantity, so only its claim is judged"
                          if comparison["paper value"].isna().any() else None)
    body += "".join(f"\n{marks[i]} {notes[i]}\n" for i in marked)
    return (f"{verdicts.summary_markdown(comparison)} A claim holds when\n\n{criteria}\n\nA value agrees when "
            f"{verdicts.VALUE_RULE}.\n\n{said}{body}")


def _kind_words(kind: str) -> str:
    """An estimator kind (or several joined) with what it computes, for a sentence."""
    return "; ".join(f"*{part}*: {verdicts.ESTIMATOR_KINDS[part][0]}" for part in verdicts.estimator_kinds(kind))


def show_comparison(comparison: pd.DataFrame, caption: str, name: str) -> None:
    from IPython.display import Markdown, display

    display(Markdown(comparison_markdown(comparison, caption, name)))


def configuration_markdown(results, name: str) -> str:
    """The resolved configuration in a dropdown (the banner above it names every difference): value, the
    paper's value (or that the paper states none), description."""
    table = results.cfg.table()
    differing = int((table["differs"] != "").sum())
    inner = table_markdown(table, "The parameters of this page beside the paper's (◀ marks a difference).", name)
    return (f"::::{{dropdown}} All {len(table)} parameters beside the paper's ({differing} differ)\n\n{inner}\n"
            f"::::\n")


def show_configuration(results, name: str) -> None:
    from IPython.display import Markdown, display

    display(Markdown(configuration_markdown(results, name)))


def glue_facts(section: str, facts: dict) -> None:
    """Glue every fact of a section for its page's prose, named ``<section>_<fact>``; text facts are
    Markdown (use ``{glue:md}``), numbers are numbers (use ``{glue:text}`` with a format)."""
    from IPython.display import Markdown

    try:
        from myst_nb import glue
    except ImportError:  # a launched notebook without the book's extras: glued values feed only the book's prose
        return
    for name, value in facts.items():
        glue(f"{section}_{name}", Markdown(value) if isinstance(value, str) else value, display=False)


def _short(value) -> str:
    return f"[{', '.join(map(str, value))}]" if isinstance(value, tuple) else str(value)


def banner_markdown(results, requested: str | None = None) -> str:
    """The page's first lines: what is shown (profile or custom parameters, how far from the paper's, the
    stop rule), then an admonition for each thing a reader must know: results of a smaller profile shown
    in place of the ``requested`` one, jobs not computed yet, entries computed by other code, entries
    that cannot be read, recomputed numbers that differ from the stored ones. Each names the command that
    mends it, as it runs from a fresh shell; none needs ``--force`` (which recomputes every job)."""
    differs = results.cfg.differences()
    distance = ", ".join(f"{k} = {_short(v)} (paper {_short(p)})" for k, (v, p) in differs.items())
    what = (f"custom parameters `{' '.join(f'{k}={v}' for k, v in results.overrides.items())}` over profile "
            f"`{results.profile}`" if results.overrides else f"profile `{results.profile}`")
    text = f"**Shown: {what}.** " + (f"It differs from the paper in {distance}." if differs
                                      else "These are exactly the paper's parameters.")
    chosen = results.cfg.differences(stated=False)
    if chosen:
        text += (" Of the choices the paper leaves open, it changes ours: "
                 + ", ".join(f"{k} = {_short(v)} (ours {_short(p)})" for k, (v, p) in chosen.items()) + ".")
    stop = getattr(results.cfg, "stop", None)
    if stop:
        text += f" Training stop rule: **{stop}**" + (
            " (the paper's fixed step counts)." if stop == "fixed" else
            " (a rank-sweep student stops once its loss has settled, capped at the paper's step counts; "
            "recovery students run the paper's steps).")
    devices = sorted({e.provenance.get("device", "?") for e in results.entries})
    if devices:
        text += f" Computed on: {', '.join(devices)}."
    notes = []
    if requested and requested != results.profile:
        notes.append(("note", f"This book is built at the `{requested}` profile, which has no results for this "
                              f"section yet: the committed `{results.profile}` results are shown instead. "
                              f"`{runner.resume_command(results.section, requested, {})}` computes the `{requested}` "
                              f"ones (it resumes where an earlier run stopped)."))
    total = len(results.missing) + len(results.entries)
    unread = {job for job, _ in results.corrupt}
    absent = [job for job in results.missing if job not in unread]
    if absent:
        notes.append(("warning", f"**Partial results:** {len(absent)} of {total} jobs of this profile are "
                                 f"not computed yet, so the tables below cover only part of the grid. "
                                 f"`{results.resume}` computes them (it resumes where an earlier run stopped)."))
    if results.stale:
        notes.append(("warning", f"**Stale results:** {len(results.stale)} of {len(results.entries)} jobs shown here "
                                 f"were computed by code that has changed since (their version keys differ from the "
                                 f"current code's). Their numbers are shown as stored. `{results.resume} --refresh` "
                                 f"recomputes them" + ("." if results.overrides else
                                 f"; `{results.rekey}` verifies the new code on a sample of them and, when it "
                                 f"reproduces their numbers, marks them current without recomputing the rest.")))
    if results.corrupt:
        listed = "; ".join(why for _, why in results.corrupt[:3]) + (" …" if len(results.corrupt) > 3 else "")
        notes.append(("warning", f"**Unreadable results:** the stored entries of {len(results.corrupt)} of {total} "
                                 f"jobs are corrupt (truncated, or failing their checksum), so the tables below leave "
                                 f"them out ({listed}). `{results.resume}` recomputes them and keeps every readable "
                                 f"entry."))
    if results.conflicts:
        notes.append(("note", f"**Recomputed, other numbers:** {len(results.conflicts)} jobs recomputed for this page "
                              f"gave numbers that differ from their stored entries: "
                              + "; ".join(results.conflicts[:3]) + (" …" if len(results.conflicts) > 3 else "")))
    for kind, note in notes:
        text += f"\n\n```{{{kind}}}\n{note}\n```"
    return text


def show_banner(results, requested: str | None = None) -> None:
    from IPython.display import Markdown, display

    display(Markdown(banner_markdown(results, requested)))


def save(results, **frames: pd.DataFrame) -> None:
    """Write a section's tables as CSV under ``build/tables/<label>/<section>/`` for readers and tests."""
    save_tables(results.label, results.section, **frames)


def save_tables(label: str, name: str, **frames: pd.DataFrame) -> None:
    """Write tables as CSV under ``build/tables/<label>/<name>/``."""
    from .. import paths

    folder = paths.TABLES / label / name
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        frame.to_csv(folder / f"{name}.csv")


def ledger_markdown(claims: pd.DataFrame, caption: str, name: str) -> str:
    """The claims ledger as a numbered table: verdict, the deciding table (a link), the quantity, the
    paper's words, ours, whether the claim holds and whether the value agrees."""
    rows = pd.DataFrame({
        "verdict": [badge(v) for v in claims["verdict"]],
        "decided in": [f"{{numref}}`{table}`" if verdict != verdicts.NOT_CHECKED else f"{{doc}}`{section}`"
                       for table, verdict, section in zip(claims["table"], claims["verdict"], claims["section"],
                                                          strict=True)],
        "quantity": claims["quantity"],
        "paper says": claims["paper says"] + " (" + claims["where"] + ")",
        "ours": claims["ours"],
        "computed by": claims["estimator"],
        "claim holds": claims["claim holds"],
        "value agrees": claims["value agrees"],
    })
    return table_markdown(rows, caption, name, index=False,
                          missing="not decided: the claim is not checked, or the paper states no number for it")


def estimator_kinds() -> pd.DataFrame:
    """Every kind of estimator a row can name (``verdicts.ESTIMATOR_KINDS``), with whether it is a pre-training
    estimator in the paper's sense, as a table."""
    return pd.DataFrame([{"kind of estimator": kind, "what it computes": text, "pre-training (the paper's sense)": pre}
                         for kind, (text, pre) in verdicts.ESTIMATOR_KINDS.items()])


def criteria() -> pd.DataFrame:
    """Every criterion of ``verdicts.CRITERIA`` and the value rule, as a table."""
    rows = [{"kind of claim": kind, "the claim holds when": text} for kind, text in verdicts.CRITERIA.items()]
    rows.append({"kind of claim": "(every value)",
                 "the claim holds when": f"our value agrees when {verdicts.VALUE_RULE}"})
    return pd.DataFrame(rows)
