"""A section page's first lines: what it shows (the profile or custom parameters, how far from the paper's,
the stop rule, the device) and an admonition for each thing a reader must know before the tables. Shown by
every section notebook through ``page.show_banner``.
"""

from __future__ import annotations

from dataclasses import fields

from ..jobs import runner


def _short(value) -> str:
    return f"[{', '.join(map(str, value))}]" if isinstance(value, tuple) else str(value)


def _listed(items, shown: int = 3) -> str:
    """The first ``shown`` of ``items``, with an ellipsis where there are more."""
    return "; ".join(items[:shown]) + (" …" if len(items) > shown else "")


def _stated(cfg) -> tuple[int, int]:
    """(parameters whose value the paper states, parameters that are choices of ours) of a section's ``cfg``."""
    flags = [f.metadata.get("stated", True) for f in fields(cfg)]
    return sum(flags), len(flags) - sum(flags)


def banner_markdown(results, requested: str | None = None) -> str:
    """The page's first lines: what is shown (profile or custom parameters, how far from the paper's, the
    stop rule), then an admonition for each thing a reader must know: results of a smaller profile shown
    in place of the ``requested`` one, jobs not computed yet, entries computed by other code, entries
    that cannot be read, recomputed numbers that differ from the stored ones. Each names the command that
    mends it, as it runs from a fresh shell; none needs ``--force`` (which recomputes every job)."""
    differs = results.cfg.differences()
    distance = ", ".join(f"`{k}` = `{_short(v)}` (the paper's: `{_short(p)}`)" for k, (v, p) in differs.items())
    what = (f"custom parameters `{' '.join(f'{k}={v}' for k, v in results.overrides.items())}` over profile "
            f"`{results.profile}`" if results.overrides else f"profile `{results.profile}`")
    total = len(results.missing) + len(results.entries)
    unread = {job for job, _ in results.corrupt}
    absent = [job for job in results.missing if job not in unread]
    partial = " (not every job of it is computed yet: see below)" if absent or results.corrupt else ""
    stated, ours = _stated(results.cfg)
    own = (f"; the other {ours} are choices of ours, the paper stating none" if ours and stated else
           "; the paper states none of them, every one is a choice of ours" if ours else "")
    text = f"**Shown: {what}.** " + (f"It differs from the paper in {distance}." if differs
                                      else f"Its parameters are the paper's where it states them ({stated} of "
                                           f"{stated + ours}){own}{partial}.")
    chosen = results.cfg.differences(stated=False)
    if chosen:
        text += (" Of the choices the paper leaves open, it changes ours: "
                 + ", ".join(f"`{k}` = `{_short(v)}` (our default: `{_short(p)}`)" for k, (v, p) in chosen.items())
                 + ".")
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
        listed = _listed([why for _, why in results.corrupt])
        notes.append(("warning", f"**Unreadable results:** the stored entries of {len(results.corrupt)} of {total} "
                                 f"jobs are corrupt (truncated, or failing their checksum), so the tables below leave "
                                 f"them out ({listed}). `{results.resume}` recomputes them and keeps every readable "
                                 f"entry."))
    if results.conflicts:
        notes.append(("note", f"**Recomputed, other numbers:** {len(results.conflicts)} jobs recomputed for this page "
                              f"gave numbers that differ from their stored entries: "
                              + _listed(results.conflicts)))
    for kind, note in notes:
        text += f"\n\n```{{{kind}}}\n{note}\n```"
    return f"::::{{container}} web-only\n{text}\n::::"  # what this build shows and how to mend it: the web book's


def show_banner(results, requested: str | None = None) -> None:
    from IPython.display import Markdown, display

    display(Markdown(banner_markdown(results, requested)))
