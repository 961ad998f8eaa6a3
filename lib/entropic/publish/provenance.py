"""Where a page's numbers come from, one click away: under a reproduced table or figure, a folded block naming the
stored entries it reads (how many, their version keys, the devices and commits that computed them, their compute
time) with links to those files and to the function that computed them, in the repository at the page's commit
(as showyourwork links each figure to its script and data). Shown by every section page through
``page.show_provenance``.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd

from .. import paths, registry
from ..jobs import versions
from ..report.numbers import number
from . import site


def _source_link(base: str | None, function) -> str:
    """The function's file and first line, as a link into the repository at ``base`` (a tree URL) when known."""
    path = Path(inspect.getsourcefile(function))
    line = inspect.getsourcelines(function)[1]
    shown = paths.shown(path)
    label = f"`{function.__module__.removeprefix('entropic.')}.{function.__name__}` (`{shown}`, line {line})"
    return f"[{label}]({base}/{shown}#L{line})" if base else label


def _seconds(total: float) -> str:
    hours = total / 3600
    return f"{number(total)} s" if hours < 1 else f"{number(total)} s ({number(hours)} h)"


def provenance_table(results) -> pd.DataFrame:
    """One row per kind of job: the entries read, their version keys, devices, commits, thread counts, dates and
    compute time."""
    rows = []
    for entry in results.entries:
        kind = entry.params.get("kind") or "—"
        p = entry.provenance
        rows.append({"kind": kind, "key": entry.key, "device": p.get("device", "?"), "commit": p.get("commit", "?"),
                     "threads": p.get("threads"), "date": p.get("date", ""), "seconds": entry.seconds})
    frame = pd.DataFrame(rows, columns=["kind", "key", "device", "commit", "threads", "date", "seconds"])
    joined = lambda values: ", ".join(dict.fromkeys(str(v) for v in values if v is not None))  # noqa: E731
    return (frame.groupby("kind", sort=False)
            .agg(entries=("key", "size"), keys=("key", joined), devices=("device", joined),
                 commits=("commit", joined), threads=("threads", joined), first=("date", "min"),
                 last=("date", "max"), seconds=("seconds", "sum")))


def _plural(subject: str) -> bool:
    """Whether a subject ("this table", "these tables and the figures of this page") takes a plural verb."""
    return " and " in subject or subject.split()[0].lower() in ("these", "both") or subject.split()[1].endswith("s")


def provenance_markdown(results, what: str = "the table above") -> str:
    """The folded block of the module docstring for ``what`` (a table or figure of ``results``' section)."""
    table = provenance_table(results)
    if table.empty:
        return ""
    repository, sha = site.repository_url(), site.commit()  # no repository named: no link into one
    base = f"{repository}/blob/{sha}" if repository and sha else None
    folder = f"results/{results.label}/{results.section}"
    module = registry.module(results.section)
    lines = []
    for kind, row in table.iterrows():
        function = versions.entry_point(module, None if kind == "—" else kind)
        first, last = row["first"][:10], row["last"][:10]
        when = first if first == last else f"{first} to {last}"
        plural = {name: "s" if "," in row[name] else "" for name in ("keys", "commits")}
        counts = sorted(row["threads"].split(", "), key=int) if row["threads"] else []  # "1 or 2 threads"
        threads = (f" on {' or '.join(counts)} thread{'' if counts == ['1'] else 's'}" if counts else "")
        lines.append(f"- {int(row['entries'])} job{'' if row['entries'] == 1 else 's'}"
                     + ("" if kind == "—" else f" of kind `{kind}`")
                     + f", computed by {_source_link(base, function)} under version key{plural['keys']} "
                       f"`{row['keys']}`: on {row['devices']}{threads}, {when}"
                       f", from commit{plural['commits']} {row['commits']}; {_seconds(row['seconds'])} of compute "
                       f"in all.")
    stored = f"[`{folder}/`]({repository}/tree/{sha}/{folder})" if base else f"`{folder}/`"
    at = f" at commit {sha[:7]}" if sha else ""
    return (f":::{{dropdown}} Where the numbers of {what} come from\n:class-container: provenance\n\n"
            f"{what[:1].upper() + what[1:]} {'read' if _plural(what) else 'reads'} {len(results.entries)} stored "
            f"entries of this section, one JSON "
            f"file per job in {stored}{at}, each holding its parameters, its tables and its provenance:\n\n"
            + "\n".join(lines) + "\n:::\n")
