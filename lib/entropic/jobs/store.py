"""The results store: one JSON file per job under ``results/<label>/<section>/``.

An entry holds the job's tidy rows (one list of rows per table), its parameters, the **version key**
of the code it ran, and provenance (package versions, device, wall time, date, stop rule, commit).
Entries are written atomically (a temporary file, then a rename) and carry a checksum of their
content, so an interrupted or corrupted write is detected on reading and the job is recomputed,
never used. A freshly computed entry never silently replaces a stored one of the same job and key whose
numbers differ (:meth:`Store.add`): the first is kept, unless a recomputation was asked for.

The version key (``jobs.versions``) is computed by the runner; the store only stores it.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import paths

FORMAT = 1
TIMING = "seconds"  # columns named with it are wall times (train_seconds, seconds_per_model): never compared


@dataclass(frozen=True)
class Job:
    """One independent unit of work of a section: ``fit(job)`` depends on ``params`` alone.

    name : readable coordinates, e.g. ``linear_qk-r4-seed0-sweep``.
    params : everything ``fit`` needs (JSON-able); its hash completes the job's identity.
    """

    name: str
    params: dict = field(hash=False)

    @property
    def id(self) -> str:
        digest = hashlib.sha256(json.dumps(self.params, sort_keys=True).encode()).hexdigest()[:10]
        return f"{self.name}-{digest}"


@dataclass
class Entry:
    """A stored job: its rows per table, the version key it ran with, and its provenance."""

    job: str
    params: dict
    key: str
    tables: dict[str, list[dict]]
    provenance: dict

    @property
    def seconds(self) -> float:
        """The job's wall time: its provenance's, or, for a training job resumed from a checkpoint, the seconds its
        training loop recorded over every part (a row's ``train_seconds``; the provenance counts only the part that
        finished it), whichever is larger."""
        loops = [float(row["train_seconds"]) for rows in self.tables.values() for row in rows
                 if isinstance(row, dict) and row.get("train_seconds") is not None]
        return max([float(self.provenance.get("seconds", 0.0)), *loops])


@dataclass
class Holding:
    """Job ids of a section's jobs by what the store holds of them (:meth:`Store.holding`)."""

    current: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def stored(self) -> list[str]:
        return self.current + self.stale


def _read_umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: done once, at import, before any thread
    os.umask(mask)
    return mask


_UMASK = _read_umask()


class CorruptEntry(ValueError):
    """A stored entry that cannot be used: unreadable, truncated, or failing its checksum."""


def _checksum(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# The contents (their SHA-256) of the entries whose checksum has been verified: by this process, and by the processes
# that read entries with this build folder before (VERIFIED, a digest a line, appended to). A book asks whether every
# entry is current once per page that reads it, each page in a kernel of its own (the ledger's and the intro's read
# every section's: 47 MB at the paper profile), and re-serializing an entry to check its checksum cost several times
# more than reading it. The same bytes pass the same check; a damaged entry has other bytes, and is checked.
VERIFIED = "verified-entries.txt"  # under build/computed/
_VERIFIED: set[bytes] = set()
_READ: set[Path] = set()  # the files of verified digests this process has read
_KEPT_DIGESTS = 100_000  # a longer file is started again


def _verified_file() -> Path:
    return paths.BUILD / "computed" / VERIFIED


def _was_verified(digest: bytes) -> bool:
    """Whether an entry of these bytes passed its checksum, here or in a process before (its file read once)."""
    file = _verified_file()
    if digest not in _VERIFIED and file not in _READ:
        _READ.add(file)
        try:
            lines = file.read_text().split()
            if len(lines) > _KEPT_DIGESTS:
                file.unlink()
            _VERIFIED.update(bytes.fromhex(line) for line in lines if len(line) == 64)
        except (OSError, UnicodeDecodeError, ValueError):  # none yet, or unreadable: the entries are checked
            pass
    return digest in _VERIFIED


def _verified(digest: bytes) -> None:
    """Record that an entry of these bytes passed its checksum: a line appended (one write, whole, beside other
    processes'), or only in this process where the build folder cannot be written."""
    _VERIFIED.add(digest)
    file = _verified_file()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(descriptor, f"{digest.hex()}\n".encode())
        finally:
            os.close(descriptor)
    except OSError:
        pass


# What a process has read of each entry it loaded (its file's signature, its job's parameters, its version key), so that
# asking again whether an entry is current (Store.holding: once per page that reads the section, and in a book the
# intro's and the ledger's pages read every section's) reads no file but its status: an entry is written by a rename
# (a new inode), and an edit changes its size or time, so a file whose signature changed is read again.
_KEYS: dict[Path, tuple[tuple, dict, str]] = {}


def _signature(path: Path) -> tuple[int, int, int, int] | None:
    """The file's device, inode, size and modification time; None where there is none (as ``Path.exists`` says:
    no such file, or a file where a folder of its path should be)."""
    try:
        stat = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


class Store:
    """The entries of one section under one label (a profile name, or ``custom``)."""

    def __init__(self, label: str, section: str, root: Path | None = None):
        self.label, self.section = label, section
        self.folder = (root or paths.RESULTS) / label / section

    def path(self, job: Job) -> Path:
        return self.folder / f"{job.id}.json"

    def writable(self) -> None:
        """Raise ``ValueError`` naming the folder when entries cannot be written there."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            probe = self.folder / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as error:
            raise ValueError(f"cannot write results to {self.folder} ({error.strerror or error}); make it "
                             f"writable or move the store with ENTROPIC_RESULTS=<folder>") from error

    def scratch(self, job: Job) -> Path:
        """Where a job that checkpoints keeps its state until its entry is stored (never committed)."""
        return self.folder / ".partial" / f"{job.id}.pt"

    def load(self, job: Job) -> Entry | None:
        """The stored entry of ``job``, None if there is none; raises :class:`CorruptEntry`."""
        path = self.path(job)
        signature = _signature(path)
        if signature is None:
            return None
        try:
            raw = path.read_bytes()
            digest = hashlib.sha256(raw).digest()
            data = json.loads(raw.decode())
            payload = {k: data[k] for k in ("format", "job", "params", "key", "tables", "provenance")}
            known = _was_verified(digest)
            verified = known or data["checksum"] == _checksum(payload)
            ok = verified and data["params"] == job.params
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
            raise CorruptEntry(f"{path} is unreadable ({type(error).__name__}: {error})") from error
        if verified and not known:
            _verified(digest)
        if not ok:
            raise CorruptEntry(f"{path} fails its checksum or does not match its job")
        _KEYS[path] = (signature, data["params"], data["key"])
        return Entry(data["job"], data["params"], data["key"], data["tables"], data["provenance"])

    def _stored_key(self, job: Job) -> str | None:
        """The version key of ``job``'s stored entry; None when there is none or it is corrupt. Read from the
        entry once per version of its file in this process (:data:`_KEYS`)."""
        path = self.path(job)
        signature = _signature(path)
        if signature is None:
            return None
        known = _KEYS.get(path)
        if known is not None and known[0] == signature and known[1] == job.params:
            return known[2]
        try:
            entry = self.load(job)
        except CorruptEntry:
            return None
        return None if entry is None else entry.key

    def holding(self, jobs: list[Job], key_of) -> Holding:
        """What the store holds of ``jobs``: which are stored and current (their entry's key is ``key_of(kind)``,
        the key of the code that job kind runs now), stored but stale, or missing (no entry, or a corrupt one).
        Answers "is this stored and current?" without running anything."""
        held = Holding()
        for job in jobs:
            key = self._stored_key(job)
            if key is None:
                held.missing.append(job.id)
            elif key == key_of(job.params.get("kind")):
                held.current.append(job.id)
            else:
                held.stale.append(job.id)
        return held

    def _staged(self, job: Job, key: str, tables: dict[str, list[dict]], provenance: dict) -> Path:
        """The entry written to a staging file of its own (two processes may stage the same job at once)."""
        payload = {"format": FORMAT, "job": job.id, "params": job.params, "key": key,
                   "tables": tables, "provenance": provenance}
        text = json.dumps({**payload, "checksum": _checksum(payload)}, indent=1, sort_keys=True, default=_json)
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=self.folder, prefix=f".{job.id}.", suffix=".partial")
        os.fchmod(handle, 0o666 & ~_UMASK)  # mkstemp's file is private (0600): an entry is as readable as any file
        with os.fdopen(handle, "w") as staging:
            staging.write(text)
        return Path(name)

    def save(self, job: Job, key: str, tables: dict[str, list[dict]], provenance: dict) -> Path:
        """Write the entry of ``job``, replacing any stored one."""
        path = self.path(job)
        os.replace(self._staged(job, key, tables, provenance), path)  # atomic: the old entry or the new, never half
        return path

    def add(self, job: Job, key: str, tables: dict[str, list[dict]], provenance: dict,
            force: bool = False) -> str | None:
        """Store a freshly computed entry; returns None, or one line when a stored entry of the same job and
        key has other numbers (:func:`differences`). That entry was stored while this one was computed (the
        same job run elsewhere, on other threads or another device): it is kept and this one dropped, unless
        ``force`` (a recomputation asked for) replaces it; the line says which. An entry with the same numbers
        is kept as it is; an unreadable entry or one of other code is replaced."""
        path, staged = self.path(job), self._staged(job, key, tables, provenance)
        try:
            os.link(staged, path)  # atomic, and only where no entry exists: two runs cannot both be first
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: the same, short of atomicity
            if not path.exists():
                os.replace(staged, path)
                return None
        else:
            staged.unlink()
            return None
        try:
            held = self.load(job)
        except CorruptEntry:
            held = None
        changed = differences(held.tables, tables) if held is not None and held.key == key else None
        if changed is None or force:
            os.replace(staged, path)
        else:
            staged.unlink()
        if not changed:
            return None
        where = [_where(p) for p in (held.provenance, provenance)]
        what = (f"{job.name}: its stored entry (same code{'' if where[0] == where[1] else f', {where[0]}'}) has other "
                f"numbers than this run's{'' if where[0] == where[1] else f' ({where[1]})'} in {', '.join(changed)}")
        return (f"{what}; replaced by this run's, as --force asks" if force else
                f"{what}; the stored entry is kept and this run's numbers are dropped")


def _where(provenance: dict) -> str:
    return f"{provenance.get('device', '?')}, {provenance.get('threads', '?')} thread(s)"


def differences(stored: dict[str, list[dict]], fresh: dict[str, list[dict]]) -> list[str]:
    """``table.column`` of every value in which two entries' tables differ, wall times (:data:`TIMING`) excepted;
    ``fresh`` is compared as it would be stored (JSON). Empty when they hold the same numbers."""
    fresh = as_stored(fresh)
    changed = set()
    for name in sorted(set(stored) | set(fresh)):
        old, new = stored.get(name), fresh.get(name)
        if old is None or new is None or len(old) != len(new):
            changed.add(f"{name} (rows)")
            continue
        for a, b in zip(old, new, strict=True):
            changed |= {f"{name}.{c}" for c in set(a) | set(b)
                        if not wall_time(c) and not same(a.get(c, _ABSENT), b.get(c, _ABSENT))}
    return sorted(changed)


_ABSENT = object()


def as_stored(value):
    """``value`` (tables) as the store writes and reads it back (JSON), so that a fresh float compares as its
    stored text does."""
    return json.loads(json.dumps(value, default=_json))


def wall_time(column: str) -> bool:
    """Whether a column holds a wall time (:data:`TIMING` in its name), which differs from run to run."""
    return TIMING in column


def same(a, b) -> bool:
    """Two stored values equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _json(value):
    if hasattr(value, "item"):  # NumPy scalars
        return value.item()
    raise TypeError(f"cannot store {type(value).__name__} in a result row")


# --- provenance -------------------------------------------------------------------------------------

def _commit() -> str:
    if os.environ.get("ENTROPIC_COMMIT"):  # a copy of the project without its git history (a GPU machine)
        return os.environ["ENTROPIC_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=paths.ROOT, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(device: str, seconds: float, stop: str | None) -> dict:
    """Where and how a job ran: device, package versions, wall time, date, stop rule, commit."""
    import torch

    versions = {name: importlib.metadata.version(name) for name in ("numpy", "pandas")}
    return {"device": device, "torch": torch.__version__, "python": sys.version.split()[0], **versions,
            "threads": torch.get_num_threads(), "machine": platform.machine(), "seconds": round(seconds, 3),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "stop": stop, "commit": _commit()}
