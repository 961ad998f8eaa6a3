"""Run a section: resolve its configuration, compute the jobs the store lacks, and read its tables.

``run(section, profile, overrides)`` is the one entry point used by the command line and by every
notebook. Results land under ``results/<label>/<section>/``: ``label`` is the profile's name, or
``custom`` when overrides are given (custom runs keep their own place and never overwrite a
profile's; a job the overrides leave unchanged, stored by the profile under the current code, is copied
from there instead of computed again). A job is computed when it is missing, when its entry is corrupt (reported, then
recomputed), when its version key differs from the code's (unless stale entries are kept, the
default for the committed ``paper`` profile: then they are listed and shown with a note), or with
``force``. Each job is stored as soon as it finishes, so an interrupted run resumes where it stopped.

In a committed profile, reading (the notebook, ``make book``) never starts computing: the page shows
what is stored, and names the jobs still missing and the command that computes them (``.venv/bin/python -m
entropic run SECTION --profile paper --no-book``, which resumes; ``paths.shell_command`` spells it as it
works from a fresh shell).

What a run has to say (a corrupt entry, stale entries kept, a recomputed job whose numbers differ from its
stored entry's) goes to ``log`` (the command line prints it; silent by default) and into :class:`Results`,
whose banner (``publish.page``) shows it on the page.
"""

from __future__ import annotations

import fnmatch
import json
import shlex
from dataclasses import dataclass, field

import pandas as pd
from tqdm import tqdm

from .. import paths, registry, variables
from . import cluster, config, profiles, store, versions

COMMITTED = ("paper",)  # profiles whose results are committed: stale entries are kept and flagged


class Interrupted(RuntimeError):
    """Ctrl-C during a run: what was stored, and how to resume."""


@dataclass
class Results:
    """A section's results as the notebook sees them (``publish.page`` shows them).

    tables : one DataFrame per table name, the rows of every job concatenated, in job order.
    stale : ids of jobs whose entries were computed by other code (their version key differs).
    missing : ids of jobs with no usable entry that this run did not compute.
    corrupt : ``(job id, what is wrong)`` of stored entries that could not be read (among ``missing``
        unless this run recomputed them).
    conflicts : one line per job this run recomputed whose numbers differ from an entry of the same code
        stored meanwhile (``store.Store.add``: the first is kept, unless ``force``).
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
    corrupt: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    def provenance(self) -> pd.DataFrame:
        """One row per distinct (device, torch, stop rule, commit, key): how many jobs, when, how long."""
        rows = [{**{k: e.provenance.get(k) for k in ("device", "torch", "stop", "commit")}, "key": e.key,
                 "date": e.provenance.get("date"), "seconds": e.seconds}
                for e in self.entries]
        frame = pd.DataFrame(rows)
        return (frame.groupby(["device", "torch", "stop", "commit", "key"], dropna=False)
                .agg(jobs=("date", "size"), first=("date", "min"), last=("date", "max"),
                     seconds=("seconds", "sum")).reset_index())

    @property
    def resume(self) -> str:
        """The command that computes what this run lacks."""
        return resume_command(self.section, self.profile, self.overrides)

    @property
    def rekey(self) -> str:
        """The command that verifies and re-keys this run's stale entries (``jobs.rekey``)."""
        return paths.shell_command(f"rekey {self.section} --profile {self.profile}")


def label_of(profile: str, overrides: dict | None) -> str:
    return "custom" if overrides else profile


_PLANS: dict[tuple, tuple] = {}


def plan(section: str, profile: str, overrides: dict | None = None, source: str | None = None):
    """Validate before any work: the section module, its resolved Config, its jobs. Planned once per
    process for the same module, profile file (as it is on disk) and overrides: a build resolves and plans
    each section once, however many times its page, its fingerprint and its ledger rows ask. ``source`` says
    where the overrides were given, for the error that refuses one of them (``config.resolve``)."""
    module = registry.module(section)
    path = profiles.profile_path(profile)
    stamp = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else None
    key = (section, id(module), str(path), stamp, json.dumps(overrides or {}, sort_keys=True, default=str))
    if key not in _PLANS:
        cfg = config.resolve(module.Config, section, profile, overrides, source)
        _PLANS[key] = (module, cfg, module.jobs(cfg))
    return _PLANS[key]


def run(section: str, profile: str = "quick", overrides: dict | None = None, *, force: bool = False,
        keep_stale: bool | None = None, compute: bool | None = None, progress: bool = True,
        log=None, only: list[str] | None = None, cluster: str | None = None, planned: tuple | None = None) -> Results:
    """Compute what the store lacks for one section and return its results (see the module docstring).

    ``compute`` defaults to True except in committed profiles; when False, missing jobs are listed in
    ``Results.missing`` instead of computed. ``only`` (shell patterns of job names) restricts computing
    to the matching jobs; the others are read if stored and listed as missing if not. ``cluster`` maps
    the jobs to compute over a Dask cluster (``jobs.cluster``) instead of running them here. ``log``
    (e.g. ``print``) receives one line per thing worth saying; pages leave it silent and show ``Results``.
    ``planned`` is what :func:`plan` returned for these arguments, when the caller has it (a page's build).
    """
    log = log or _silent
    overrides = dict(overrides or {})
    variables.check(variables.JOBS)  # a bad variable is refused before any work, here as on the command line
    module, cfg, jobs = planned or plan(section, profile, overrides)
    check_only(section, jobs, only)
    label = label_of(profile, overrides)
    keep_stale = label in COMMITTED if keep_stale is None else keep_stale
    compute = label not in COMMITTED if compute is None else compute
    shelf, keys = store.Store(label, section), {}
    base = store.Store(profile, section) if label != profile else None  # a custom run's profile: its entries are read
    found, stale, missing, todo, corrupt, reused = {}, [], [], [], [], 0
    for job in jobs:
        try:
            entry = shelf.load(job)
        except store.CorruptEntry as error:
            corrupt.append((job.id, str(error).removeprefix(str(shelf.folder) + "/")))
            log(f"[entropic] {_relative(error)}: it will be recomputed" if compute else
                f"[entropic] {_relative(error)}: not shown; `{resume_command(section, profile, overrides)}` "
                f"recomputes it")
            entry = None
        kind = job.params.get("kind")
        key = keys[kind] if kind in keys else keys.setdefault(kind, versions.version_key(module, kind))
        if entry is None and base is not None and not force and (held := _current(base, job, key)) is not None:
            # The same job (its id hashes its parameters) under the same code, stored by the profile the overrides
            # start from: its numbers are what this run would compute, so it is copied, never recomputed.
            try:
                shelf.save(job, key, held.tables, held.provenance)
            except OSError:  # an unwritable custom store: computing this job says so (shelf.writable) before work
                pass
            else:
                entry, reused = held, reused + 1
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
        preflight(module, cfg, [job for job, _ in todo])  # what the jobs read (a corpus), before the first runs
        shelf.writable()  # before any work: an unwritable store fails now, not after hours
        if cluster:
            _reachable(cluster)
    bar = tqdm(total=len(todo), desc=f"{section} ({label})", disable=not progress or not todo, leave=False,
               unit="job")
    computed, conflicts = 0, []
    try:
        for job, tables, provenance in _computed(section, shelf, todo, cluster, bar):
            conflict = shelf.add(job, keys[job.params.get("kind")], tables, provenance, force=force)
            if conflict:
                conflicts.append(conflict)
                log(f"[entropic] {section}: {conflict}")
            shelf.scratch(job).unlink(missing_ok=True)
            found[job.id] = shelf.load(job)
            computed += 1
            bar.update()
    except KeyboardInterrupt:
        on_disk = sum(shelf.path(job).exists() for job in jobs)
        raise Interrupted(f"interrupted: {on_disk} of {len(jobs)} jobs of {section} are stored in "
                          f"{paths.shown(shelf.folder)} ({computed} computed in this run); "
                          f"`{resume_command(section, profile, overrides)}` resumes") from None
    finally:
        bar.close()
    if reused:
        log(f"[entropic] {section}: {reused} job(s) the overrides leave unchanged copied from "
            f"{paths.shown(base.folder)}")
    if stale:
        log(f"[entropic] {section}: {len(stale)} stale job(s) kept and flagged (computed by other code): "
            + ", ".join(stale[:5]) + (" …" if len(stale) > 5 else ""))
    entries = [found[job.id] for job in jobs if job.id in found]  # job order, however they were computed
    tables = {}
    for name in sorted({t for e in entries for t in e.tables}):
        tables[name] = pd.DataFrame([r for e in entries for r in e.tables.get(name, [])])
    corrupt = [(job_id, why) for job_id, why in corrupt if job_id not in found]
    return Results(section, profile, overrides, label, cfg, keys, tables, entries, stale, computed, missing, corrupt,
                   conflicts)


def preflight(module, cfg, jobs: list[store.Job]) -> None:
    """The section's own check of what ``jobs`` will read (its ``preflight(cfg, jobs)``, where it has one: App. B's
    and the capacity sweep's corpora), raising ``ValueError`` in one line before any of them runs."""
    check = getattr(module, "preflight", None)
    if check is not None and jobs:
        check(cfg, jobs)


def check_inputs(section: str, profile: str, overrides: dict | None = None, only: list[str] | None = None,
                 compute: bool | None = None) -> None:
    """Before any section of a command computes: ``preflight`` on the jobs a run of this section would compute (not
    stored here or in the profile's store, matching ``only``), so that a missing corpus stops ``make book
    PROFILE=quick`` before the first section's first job, not at App. B's."""
    module, cfg, jobs = plan(section, profile, overrides)
    label = label_of(profile, overrides or {})
    if not (label not in COMMITTED if compute is None else compute):
        return
    shelves = [store.Store(label, section), *([store.Store(profile, section)] if label != profile else [])]
    todo = [job for job in jobs if not any(shelf.path(job).exists() for shelf in shelves)
            and (not only or any(fnmatch.fnmatchcase(job.name, pattern) for pattern in only))]
    preflight(module, cfg, todo)


def check_only(section: str, jobs: list[store.Job], only: list[str] | None) -> None:
    """Refuse, before any work, an ``only`` pattern that names no job of ``jobs``, whatever the other patterns
    match (a mistyped pattern would leave its jobs uncomputed without a word)."""
    unmatched = [pattern for pattern in only or () if not any(fnmatch.fnmatchcase(job.name, pattern) for job in jobs)]
    if unmatched:
        named = f"its {len(jobs)} jobs are named like {jobs[0].name} … {jobs[-1].name}" if jobs else "it has no jobs"
        raise ValueError(f"--only {' '.join(map(repr, unmatched))} matches no job of {section} at this profile; "
                         f"{named}")


def _silent(*_) -> None:
    """The default ``log``: a page shows what a run says in its banner, not as printed lines."""


def _current(shelf: store.Store, job: store.Job, key: str) -> store.Entry | None:
    """The entry ``shelf`` holds of ``job`` when it was computed by the current code (``key``), else None."""
    try:
        entry = shelf.load(job)
    except store.CorruptEntry:
        return None
    return entry if entry is not None and entry.key == key else None


def _reachable(address: str) -> None:
    cluster.check(address)


def _relative(error) -> str:
    return str(error).replace(str(paths.ROOT) + "/", "")


def _computed(section, shelf, todo, address, bar):
    """``(job, tables, provenance)`` of every job to do: here, one after another, or on a cluster."""
    if not todo:
        return
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
    pairs = "".join(" " + shlex.quote(f"{name}={_cli(value)}") for name, value in overrides.items())
    return paths.shell_command(f"run {section} --profile {profile}{pairs} --no-book")


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
