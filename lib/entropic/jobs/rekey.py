"""Re-keying stale entries after a change of code that computes the same numbers: verify, then adopt.

A version key follows the syntax of the code a job runs (``versions``), so a behaviour-preserving edit
(a renamed variable, a helper folded into one, a module split) stales every job that runs it. ``rekey``
verifies instead of assuming: for the entries of a section that are stale only because their code changed,
it groups them by (job kind, the key they were stored under), recomputes a **sample** of each group with
the current code — on this machine, with the thread count each sampled entry was computed with — and
compares every table the stored entry holds, value for value (wall-time columns, whose names hold
``seconds``, excepted). Floating point is not bit-reproducible across machines (another CPU's vector units
round differently), so where a sample differs from its stored bytes, the sample is computed once more under
**the code whose key the entry holds** (checked out beside the project, its version key checked against the
entry's; the commit in its provenance, else, for an entry re-keyed since, the commit that last wrote its file,
else ``HEAD``): when old and new code give the same bytes on this machine, the change is
behaviour-preserving and the sample counts as verified. When every sample of a group is verified, every
entry of that group is re-written under the current key, its provenance recording the old key, the new
key, the ids verified and against what, and the tables the new code adds (which re-keyed entries do not
hold). When any sample differs, nothing of that
group is re-keyed and the differences are listed. Each entry is re-written atomically, one after another:
an interrupted re-key leaves every entry old-keyed or new-keyed, never broken, and running it again
finishes the rest.

What it cannot guarantee: a change that alters only jobs outside the sample (a branch that only some
parameters take) passes unnoticed. The sample covers every (kind, old key) group, and within a group the
distinct values of the section's ``REGIME`` parameters (if it names any), cheapest first; ``sample``
recomputes more entries per group and regime, ``cheap`` recomputes every entry of a group whose stored
entries took that many seconds or fewer in all.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from .. import paths, registry
from . import cluster, runner, store, versions


@dataclass
class Group:
    """The stale entries of one (kind, old key) of a section, and what a re-key did with them."""

    kind: str | None
    old: str
    new: str
    jobs: list = field(default_factory=list)  # (job, entry)
    sample: list = field(default_factory=list)  # ids recomputed
    against: dict = field(default_factory=dict)  # id -> "stored bytes" or "the code of commit …, here"
    differences: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # tables the new code adds
    rekeyed: int = 0

    @property
    def verified(self) -> bool:
        return bool(self.sample) and not self.differences


def compare_tables(stored: dict[str, list[dict]], fresh: dict[str, list[dict]]) -> tuple[list[str], list[str]]:
    """(differences, tables added): every table the stored entry holds must be reproduced row for row and
    value for value, wall-time columns excepted; tables only the fresh computation has are listed as added."""
    fresh = store.as_stored(fresh)
    differences = []
    for name, rows in stored.items():
        if name not in fresh:
            differences.append(f"table {name!r} is no longer computed")
            continue
        if len(rows) != len(fresh[name]):
            differences.append(f"table {name!r}: {len(rows)} rows stored, {len(fresh[name])} recomputed")
            continue
        for i, (old, new) in enumerate(zip(rows, fresh[name], strict=True)):
            columns = (set(old) | set(new))
            changed = sorted(c for c in columns if not store.wall_time(c) and not store.same(old.get(c), new.get(c)))
            if changed:
                column = changed[0]
                differences.append(f"table {name!r}, row {i}: {', '.join(changed)} differ (e.g. {column}: stored "
                                   f"{old.get(column)!r}, recomputed {new.get(column)!r})")
                break
    return differences, sorted(set(fresh) - set(stored))


def stale_groups(section: str, profile: str, progress: bool = False) -> list[Group]:
    """The entries of ``section`` at ``profile`` whose key is not the current code's, grouped by (kind, old key).
    ``progress`` shows a bar over the stored entries read (App. B's and the frontier's take tens of seconds)."""
    module, _, jobs = runner.plan(section, profile)
    shelf = store.Store(runner.label_of(profile, {}), section)
    groups = {}
    for job in tqdm(jobs, desc=f"{section}: reading stored entries", unit="entry", disable=not progress, leave=False):
        try:
            entry = shelf.load(job)
        except store.CorruptEntry:
            continue  # a corrupt entry is recomputed by a run, never re-keyed
        kind = job.params.get("kind")
        new = versions.version_key(module, kind)
        if entry is not None and entry.key != new:
            groups.setdefault((kind, entry.key), Group(kind, entry.key, new)).jobs.append((job, entry))
    return list(groups.values())


def _regime(module, job) -> tuple:
    names = getattr(module, "REGIME", ())
    return tuple(job.params.get(name) for name in names)


def choose(module, group: Group, sample: int = 1, cheap: float = 0.0) -> list:
    """The (job, entry) pairs to recompute: all of them when the group's stored seconds total at most ``cheap``;
    else, per distinct regime, the ``sample`` cheapest (by stored seconds), computed on this machine's kind of
    device where the group has such entries."""
    total = sum(e.provenance.get("seconds", 0.0) for _, e in group.jobs)
    if cheap > 0 and total <= cheap:
        return list(group.jobs)
    here = cluster._device()
    local = [(j, e) for j, e in group.jobs if e.provenance.get("device") == here] or group.jobs
    by_regime = {}
    for job, entry in sorted(local, key=lambda pair: pair[1].provenance.get("seconds", 0.0)):
        by_regime.setdefault(_regime(module, job), []).append((job, entry))
    return [pair for pairs in by_regime.values() for pair in pairs[:sample]]


def _recompute(section: str, job, entry, shelf, threads: int | None = None) -> dict:
    """The job's tables under the current code, with ``threads`` torch threads (default: the thread count its
    stored entry was computed with, else the section's own)."""
    threads = threads or entry.provenance.get("threads")
    try:
        tables, _ = cluster.compute(section, job, shelf.scratch(job), threads=int(threads) if threads else None)
    finally:
        shelf.scratch(job).unlink(missing_ok=True)
    return tables


# Run by ``old_code`` in a checkout of the stored entry's commit: the job's tables under that code, as JSON.
_OLD = """
import inspect, json, sys, torch
from entropic import registry
from entropic.jobs import cluster, store, versions
section, name, params, threads, key = json.loads(sys.argv[1])
module = registry.module(section)
own = versions.version_key(module, params.get("kind"))
if own != key:
    print(f"the code of this commit has version key {own}, the entry {key}", file=sys.stderr)
    sys.exit(3)
torch.set_num_threads(threads)
job = store.Job(name, params)
threaded = "threads" in inspect.signature(cluster.compute).parameters  # newer code fixes a job's threads itself
tables, _ = cluster.compute(section, job, threads=threads) if threaded else cluster.compute(section, job)
print(json.dumps(tables, default=store._json))
"""


class OtherKey(ValueError):
    """The code of a commit has another version key than the entry's."""


def old_code(section: str, job, entry, commit: str, threads: int) -> dict:
    """The job's tables under the code of ``commit`` (checked out beside the project for the call), whose
    version key must be the entry's (:class:`OtherKey` if it is not); ValueError naming the reason when that
    cannot be done."""
    with tempfile.TemporaryDirectory(prefix="entropic-rekey-") as folder:
        tree = Path(folder) / "tree"
        made = subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=paths.ROOT,
                              capture_output=True, text=True)
        if made.returncode:
            raise ValueError(f"cannot check out commit {commit!r}: {made.stderr.strip() or made.stdout.strip()}")
        try:
            shared = paths.ROOT.parent / "shared"  # found by the old code beside its tree, as beside the project
            if shared.is_dir():
                (Path(folder) / "shared").symlink_to(shared)
            env = {**os.environ, "PYTHONPATH": str(tree / "lib"), "ENTROPIC_RESULTS": str(Path(folder) / "results"),
                   "OMP_NUM_THREADS": str(threads)}
            argument = json.dumps([section, job.name, job.params, threads, entry.key])
            done = subprocess.run([sys.executable, "-c", _OLD, argument], cwd=tree, env=env, capture_output=True,
                                  text=True)
            if done.returncode:
                error = OtherKey if done.returncode == 3 else ValueError
                raise error(f"the code of commit {commit} could not compute {job.id}: "
                                 f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
            return json.loads(done.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=paths.ROOT, capture_output=True)


def _git(*arguments: str) -> str:
    done = subprocess.run(["git", *arguments], cwd=paths.ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def candidate_commits(entry, path: Path) -> list[str]:
    """Commits whose code may hold the entry's version key, most likely first: the one that computed it, the
    one that last wrote its file (a re-keyed entry's key is that of the code it was re-keyed under), HEAD."""
    found = [entry.provenance.get("commit"), _git("log", "-1", "--format=%h", "--", str(path)), store._commit()]
    return list(dict.fromkeys(c for c in found if c and c != "unknown"))


def _old_tables(section: str, job, entry, shelf) -> tuple[dict | None, str]:
    """The job's tables under the first candidate commit whose code has the entry's key, on one thread, and
    that commit; (None, the reasons) when none can compute them."""
    reasons = []
    for commit in candidate_commits(entry, shelf.path(job)):
        try:
            return old_code(section, job, entry, commit, 1), commit
        except OtherKey as error:
            reasons.append(str(error))
        except ValueError as error:
            return None, str(error)
    return None, "; ".join(reasons) or "no commit holds the code that stored it"


def _verify(section: str, job, entry, shelf, group: Group, log) -> None:
    """Recompute one sample under the current code and compare it with its stored entry; where the bytes
    differ, with the same job under the code that stored it (see the module docstring)."""
    fresh = _recompute(section, job, entry, shelf)
    differences, added = compare_tables(entry.tables, fresh)
    group.sample.append(job.id)
    group.added = sorted(set(group.added) | set(added))
    against = "stored bytes"
    if differences:
        # On one thread both codes compute deterministically: a library that picks its thread count by the load
        # of the machine (MKL's dynamic threads) makes multi-threaded bytes vary from run to run.
        log(f"[entropic] {job.id}: differs from its stored bytes ({differences[0]}); computing it under the code "
            f"that stored it and under this code on this machine, on one thread, to tell the code from the machine")
        old, commit = _old_tables(section, job, entry, shelf)
        if old is None:
            differences.append(commit)
        else:
            differences = compare_tables(old, _recompute(section, job, entry, shelf, threads=1))[0]
            against = f"the code of commit {commit}, both computed on this machine on one thread"
    group.against[job.id] = against
    group.differences += [f"{job.id}: {d}" for d in differences]


def rekey(section: str, profile: str = "paper", *, sample: int = 1, cheap: float = 0.0,
          log: Callable[[str], None] = print, progress: bool = False) -> list[Group]:
    """Verify and re-key the stale entries of ``section`` at ``profile`` (see the module docstring)."""
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
        raise ValueError(f"sample must be a positive number of entries per group and regime, got {sample!r}")
    if not isinstance(cheap, (int, float)) or not cheap >= 0:
        raise ValueError(f"cheap must be a non-negative number of seconds, got {cheap!r}")
    module = registry.module(section)
    shelf = store.Store(runner.label_of(profile, {}), section)
    groups = stale_groups(section, profile, progress)
    if groups:
        shelf.writable()
    for group in groups:
        chosen = choose(module, group, sample, cheap)
        log(f"[entropic] {section}: {len(group.jobs)} entries of kind {group.kind} stored under {group.old}; "
            f"recomputing {len(chosen)} under {group.new}")
        for job, entry in chosen:
            _verify(section, job, entry, shelf, group, log)
            if group.differences:
                break
        if not group.verified:
            log(f"[entropic] {section}: not re-keyed ({group.kind}, {group.old}): " + "; ".join(group.differences))
            continue
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        for job, entry in group.jobs:
            record = {"from": group.old, "to": group.new, "verified": group.sample, "against": group.against,
                      "date": stamp, "tables added by the new code, not held": [t for t in group.added
                                                                                if t not in entry.tables]}
            provenance = {**entry.provenance, "rekeyed": [*entry.provenance.get("rekeyed", []), record]}
            shelf.save(job, group.new, entry.tables, provenance)
            group.rekeyed += 1
        log(f"[entropic] {section}: re-keyed {group.rekeyed} entries of kind {group.kind} ({group.old} → "
            f"{group.new}), {len(group.sample)} verified" + (f"; tables the new code adds, not held: "
                                                             f"{', '.join(group.added)}" if group.added else ""))
    return groups
