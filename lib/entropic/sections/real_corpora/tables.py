"""App. B's main table and its specification table: every claim under the main reading, marked where its
verdict depends on the budget, and recomputed under every other reading (see ``analysis``)."""

from __future__ import annotations

import dataclasses

import pandas as pd

from ...report import verdicts
from ...report.numbers import number, tokens
from . import long_run
from .analysis import KINDS, claims
from .grid import budgets, grid, main_budget, per_results
from .readings import ALTERNATIVES, FAILS, HOLDS, MAIN, OPEN, Reading
from .spec import CLAIMS


def compare(results) -> pd.DataFrame:
    """App. B beside the paper under the main reading, with a column saying which claims flip under other
    readings and on which choice."""
    if "heads" not in results.tables or "predictor" not in results.tables:
        return verdicts.table([verdicts.undefined(k, c, "range", "no model or no corpus is stored", estimator=KINDS[k])
                               for k, c in CLAIMS.items()])
    rows = claims(results, dataclasses.replace(MAIN, budget=main_budget(results)))
    spec = specification(results)
    table = verdicts.table([{k: v for k, v in row.items() if k != "key"} for row in rows])
    budget_notes = by_budget(results, spec)
    table["by budget"] = [budget_notes.get(row["key"], "") for row in rows]
    table["note"] = [f"Judged at the main budget, {tokens(main_budget(results))}; the reading at each budget's final "
                     f"checkpoint: {text.removeprefix('differs: ')}." if text.startswith("differs") else ""
                     for text in table["by budget"]]
    long = long_run.verdicts(results)
    if len(long):  # the layer ranges, read again on the long run by its declared rule
        where = [row["key"] for row in rows].index("layer_values")
        said = "; ".join(f"layer {int(r['layer'])} reads {number(r['ours'])} at {tokens(r['tokens'])} tokens "
                         f"({long_run.percent(r['change over the last doubling'])} over the last doubling): "
                         f"{r['outcome']}" for _, r in long.iterrows())
        table.iloc[where, table.columns.get_loc("note")] = (table["note"].iloc[where] + " " if table["note"].iloc[where]
                                                            else "") + f"The long run: {said}."
    table["under other readings"] = [spec["flips on"].get(row["key"], "") for row in rows]
    return table


def _budget_column(results, budget: int) -> str:
    return "main" if budget == main_budget(results) else f"budget: {budget / 1e6:g}M at 100%"


def by_budget(results, spec: pd.DataFrame) -> dict[str, str]:
    """Per claim: its mark at the final checkpoint of every budget stored ("same at every budget", or each
    mark with the budgets that give it: "differs: ✗ at 1.536M; ✓ at 15.36M", each incomplete grid named with
    its cells). A budget is a reading: its mark is never a second verdict."""
    table = budgets(results)
    stored = [int(b) for b, row in table.iterrows() if row["cells stored"]]
    out = {}
    for key, row in spec.iterrows():
        marks = {b: row.get(_budget_column(results, b)) for b in stored}
        marks = {b: m for b, m in marks.items() if m is not None and not pd.isna(m)}
        if len(marks) < 2 or len(set(marks.values())) == 1:
            out[key] = "same at every budget" if len(marks) > 1 else ""
            continue

        def named(b):
            cells = table.loc[b]
            return tokens(b) + ("" if cells["complete"] else
                                f" ({int(cells['cells stored'])} of {int(cells['cells asked'])} cells)")

        out[key] = "differs: " + "; ".join(f"{m} at {', '.join(named(b) for b, x in marks.items() if x == m)}"
                                           for m in dict.fromkeys(marks.values()))
    return out


def readings(results) -> dict[str, Reading]:
    """Every reading the specification table uses: the main one and one change at a time, including the
    other budgets and checkpoints stored and the other widths."""
    main = main_budget(results)
    base = dataclasses.replace(MAIN, budget=main)
    out = {"main": base}
    for field, values in ALTERNATIVES.items():
        for value in values:
            out[f"{field}: {value}"] = dataclasses.replace(base, **{field: value})
    models = grid(results, "models")
    points = models.drop_duplicates(["budget", "fraction"])[["budget", "fraction"]]
    for budget, fraction in points.itertuples(index=False):
        if (budget, fraction) != (main, 1.0):
            out[f"budget: {budget / 1e6:g}M at {fraction:.0%}"] = dataclasses.replace(base, budget=int(budget),
                                                                                    fraction=float(fraction))
    for width in sorted(set(models["d_model"]))[:-1]:
        out[f"width: {width}"] = dataclasses.replace(base, width=int(width))
    return out


def reading_mark(row: dict) -> str | None:
    """A claim under one reading: ✓ holds, ✗ fails, ○ not significant or undecided there (the sign undecided, or
    a declared rule's reading still moving with the budget), None where the reading leaves it undefined. A reading
    is never a second verdict: the main table's is the claim's."""
    if row["verdict"] == verdicts.UNDEFINED:
        return None
    if row["verdict"] in (verdicts.NOT_SIGNIFICANT, verdicts.UNDECIDED):
        return OPEN
    return HOLDS if row["claim holds"] else FAILS


@per_results
def specification(results) -> pd.DataFrame:
    """One row per claim, one column per reading (``reading_mark``), and the choices on which the mark changes."""
    columns = {}
    for label, reading in readings(results).items():
        try:
            rows = claims(results, reading, spread=False)
        except (KeyError, ValueError, IndexError):  # a reading the stored rows cannot support (a missing width)
            continue
        columns[label] = {r["key"]: reading_mark(r) for r in rows}
    frame = pd.DataFrame(columns)
    if frame.empty:  # no reading the stored rows support (e.g. a single corpus)
        return pd.DataFrame({"flips on": pd.Series(dtype=object)}).rename_axis("claim")
    flips = []
    for _, row in frame.iterrows():
        main = row["main"]
        changed = ", ".join(dict.fromkeys(label.split(":")[0] for label, value in row.items()
                                          if value is not None and not pd.isna(value) and value != main))
        flips.append(changed or "the same under every reading")
    frame.insert(0, "flips on", flips)
    frame.index.name = "claim"
    return frame
