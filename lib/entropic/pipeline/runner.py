"""Run a section: resolve its configuration, compute the jobs the store lacks, and read its tables.

``run(section, profile, overrides)`` is the one entry point used by the command line and by every
notebook. Results land under ``results/<label>/<section>/``: ``label`` is the profile's name, or
``custom`` when overrides are given (custom runs keep their own place and never overwrite a
profile's). A job is computed when it is missing, when its entry is corrupt (reported, then
recomputed), when its version key differs from the code's (unless stale entries are kept, the
default for the committed ``paper`` profile: then they are listed and shown with a note), or with
``force``. Each job is stored as soon as it finishes, so an interrupted run resumes where it stopped.

In a committed profile, reading (the notebook, ``make book``) never starts computing: the page shows
what is stored, and names the jobs still missing and the command that computes them (``python -m
entropic run SECTION --profile paper``, which resumes).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

import pandas as pd
from tqdm import tqdm

from .. import paths, sections
from . import cluster, config, store, versions

COMMITTED = ("paper",)  # profiles whose results are committed: stale entries are kept and flagged


class Interrupted(RuntimeError):
    """Ctrl-C during a run: what was stored, and how to resume."""


@dataclass
class Results:
    """A section's results as the notebook sees them.

    tables : one DataFrame per table name, the rows of every job concatenated.
    stale : ids of jobs whose entries were computed by other code (their version key differs).
    """

    section: str
    profile: str
    overrides: dict
    label: str
    cfg: config.SectionConfig
    keys: dict  # job kind -> the version key of the current code
    tables: dict[str, pd.DataFrame]
    entries: list[store.Entry]
    stale: list[str] = field(default_factory=list)
    computed: int = 0
    missing: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    def provenance(self) -> pd.DataFrame:
        """One row per distinct (device, torch, stop rule, commit, key): how many jobs, when, how long."""
        rows = [{**{k: e.provenance.get(k) for k in ("device", "torch", "stop", "commit")}, "key": e.key,
                 "date": e.provenance.get("date"), "seconds": e.provenance.get("seconds", 0.0)}
                for e in self.entries]
        frame = pd.DataFrame(rows)
        return (frame.groupby(["device", "torch", "stop", "commit", "key"], dropna=False)
                .agg(jobs=("date", "size"), first=("date", "min"), last=("date", "max"),
                     seconds=("seconds", "sum")).reset_index())

    def banner(self) -> str:
        """One line: the profile (or custom parameters), how far it is from the paper's sizes, the stop
        rule; and a warning when stale entries are shown."""
        differs = self.cfg.differences()
        distance = ", ".join(f"{k} = {_short(v)} (paper {_short(p)})" for k, (v, p) in differs.items())
        what = (f"custom parameters `{_overrides(self.overrides)}` over profile `{self.profile}`"
                if self.overrides else f"profile `{self.profile}`")
        line = (f"**Shown: {what}.** " + (f"It differs from the paper in {distance}." if differs
                                          else "These are exactly the paper's parameters."))
        stop = getattr(self.cfg, "stop", None)
        if stop:
            line += f" Training stop rule: **{stop}**" + (
                " (the paper's fixed step counts)." if stop == "fixed" else
                " (a rank-sweep student stops once its loss has settled, capped at the paper's step counts; "
                "recovery students run the paper's steps).")
        if self.missing:
            total = len(self.missing) + len(self.entries)
            line += (f"\n\n```{{warning}}\n**Partial results:** {len(self.missing)} of {total} jobs of this profile "
                     f"are not computed yet, so the tables below cover only part of the grid. "
                     f"`python -m entropic run {self.section} --profile {self.profile} --no-book` computes them "
                     f"(it resumes where an earlier run stopped).\n```")
        if self.stale:
            keys = sorted({e.key for e in self.entries} - set(self.keys.values()))
            current = ", ".join(sorted(set(self.keys.values())))
            commits = sorted({e.provenance.get("commit", "?") for e in self.entries if e.key not in self.keys.values()})
            line += (f"\n\n```{{warning}}\n{len(self.stale)} of {len(self.entries)} jobs shown here were computed "
                     f"by an earlier version of the code (version key {', '.join(keys)}, commit "
                     f"{', '.join(commits)}; current key {current}). Their numbers are shown as they were "
                     f"stored, not as current. Recompute them with `python -m entropic run {self.section} "
                     f"--profile {self.profile} --refresh`.\n```")
        return line

    def config_table(self):
        """The resolved configuration for the page: rows that differ from the paper highlighted."""
        table = self.cfg.table()
        return table.style.apply(lambda row: ["background-color: #fff3cd" if row["differs"] else ""] * len(row),
                                 axis=1)

    def save(self, **frames: pd.DataFrame) -> None:
        """Write tables as CSV under ``build/tables/<label>/<section>/`` for readers and tests."""
        folder = paths.TABLES / self.label / self.section
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in frames.items():
            frame.to_csv(folder / f"{name}.csv")


def _short(value) -> str:
    return f"[{', '.join(map(str, value))}]" if isinstance(value, tuple) else str(value)


def _overrides(overrides: dict) -> str:
    return " ".join(f"{k}={v!r}".replace(" ", "").replace("'", "") for k, v in overrides.items())


def _shown_path(path):
    return path.relative_to(paths.ROOT) if path.is_relative_to(paths.ROOT) else path


def label_of(profile: str, overrides: dict | None) -> str:
    return "custom" if overrides else profile


def plan(section: str, profile: str, overrides: dict | None = None):
    """Validate before any work: the section module, its resolved Config, its jobs."""
    module = sections.module(section)
    cfg = config.resolve(module.Config, section, profile, overrides)
    return module, cfg, module.jobs(cfg)


def run(section: str, profile: str = "quick", overrides: dict | None = None, *, force: bool = False,
        keep_stale: bool | None = None, compute: bool | None = None, progress: bool = True,
        log=print, only: list[str] | None = None, cluster: str | None = None) -> Results:
    """Compute what the store lacks for one section and return its results (see the module docstring).

    ``compute`` defaults to True except in committed profiles; when False, missing jobs are listed in
    ``Results.missing`` instead of computed. ``only`` (shell patterns of job names) restricts computing
    to the matching jobs; the others are read if stored and listed as missing if not. ``cluster`` maps
    the jobs to compute over a Dask cluster (``pipeline.cluster``) instead of running them here.
    """
    overrides = dict(overrides or {})
    module, cfg, jobs = plan(section, profile, overrides)
    label = label_of(profile, overrides)
    keep_stale = label in COMMITTED if keep_stale is None else keep_stale
    compute = label not in COMMITTED if compute is None else compute
    shelf, keys = store.Store(label, section), {}
    found, stale, missing, todo = {}, [], [], []
    for job in jobs:
        try:
            entry = shelf.load(job)
        except store.CorruptEntry as error:
            log(f"[entropic] {error}: it will be recomputed" if compute else
                f"[entropic] {error}: not shown (`{resume_command(section, profile, overrides)} --force` "
                f"recomputes it)")
            entry = None
        kind = job.params.get("kind")
        key = keys[kind] if kind in keys else keys.setdefault(kind, versions.version_key(module, kind))
        fresh = entry is not None and entry.key == key
        if entry is not None and not force and (fresh or keep_stale):
            if not fresh:
                stale.append(job.id)
            found[job.id] = entry
        elif not compute or (only and not any(fnmatch.fnmatchcase(job.name, pattern) for pattern in only)):
            missing.append(job.id)
        else:
            todo.append((job, key))
    if todo:
        shelf.writable()  # before any work: an unwritable store fails now, not after hours
    bar = tqdm(total=len(todo), desc=f"{section} ({label})", disable=not progress or not todo, leave=False,
               unit="job")
    computed = 0
    try:
        for job, tables, provenance in _computed(section, shelf, todo, cluster, bar):
            shelf.save(job, keys[job.params.get("kind")], tables, provenance)
            shelf.scratch(job).unlink(missing_ok=True)
            found[job.id] = shelf.load(job)
            computed += 1
            bar.update()
    except KeyboardInterrupt:
        on_disk = sum(shelf.path(job).exists() for job in jobs)
        raise Interrupted(f"interrupted: {on_disk} of {len(jobs)} jobs of {section} are stored in "
                          f"{_shown_path(shelf.folder)} ({computed} computed in this run); "
                          f"`{resume_command(section, profile, overrides)}` resumes") from None
    finally:
        bar.close()
    if stale:
        log(f"[entropic] {section}: {len(stale)} stale job(s) kept and flagged (computed by other code): "
            + ", ".join(stale[:5]) + (" …" if len(stale) > 5 else ""))
    entries = [found[job.id] for job in jobs if job.id in found]  # job order, however they were computed
    tables = {}
    for name in sorted({t for e in entries for t in e.tables}):
        tables[name] = pd.DataFrame([r for e in entries for r in e.tables.get(name, [])])
    return Results(section, profile, overrides, label, cfg, keys, tables, entries, stale, computed, missing)


def _computed(section, shelf, todo, address, bar):
    """``(job, tables, provenance)`` of every job to do: here, one after another, or on a cluster."""
    if address:
        scratch = [(job, key, str(shelf.scratch(job))) for job, key in todo]
        yield from cluster.map_jobs(section, scratch, address)
        return
    for job, _ in todo:
        bar.set_postfix_str(job.name)
        tables, provenance = cluster.compute(section, job, shelf.scratch(job))
        yield job, tables, provenance


def resume_command(section: str, profile: str, overrides: dict) -> str:
    """The command that computes what is missing of this run (never ``--force``)."""
    pairs = "".join(f" {name}={_cli(value)}" for name, value in overrides.items())
    return f"python -m entropic run {section} --profile {profile}{pairs} --no-book"


def _cli(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(str, value)) + "]"
    return str(value)


def orphans(section: str, profile: str) -> list:
    """Stored entries of a profile that no current job of the section reads (left by changed parameters)."""
    _, _, jobs = plan(section, profile)
    shelf = store.Store(profile, section)
    wanted = {shelf.path(job) for job in jobs}
    return sorted(p for p in shelf.folder.glob("*.json") if p not in wanted) if shelf.folder.is_dir() else []


def glue_facts(section: str, facts: dict) -> None:
    """Glue every fact of a section for its page's prose, named ``<section>_<fact>``; text facts are
    Markdown (use ``{glue:md}``), numbers are numbers (use ``{glue:text}`` with a format)."""
    from IPython.display import Markdown
    from myst_nb import glue

    for name, value in facts.items():
        glue(f"{section}_{name}", Markdown(value) if isinstance(value, str) else value, display=False)


def show(comparison: pd.DataFrame):
    """The comparison table for the page, with its verdict count above it."""
    from IPython.display import Markdown, display

    from . import verdicts

    criteria = "\n".join(f"- *{kind}*: {verdicts.CRITERIA[kind]}" for kind in dict.fromkeys(comparison["kind"]))
    display(Markdown(f"{verdicts.summary_markdown(comparison)} A claim holds when\n\n{criteria}"))
    return verdicts.styled(comparison)
