"""The results store: one JSON file per job under ``results/<label>/<section>/``.

An entry holds the job's tidy rows (one list of rows per table), its parameters, the **version key**
of the code it ran, and provenance (package versions, device, wall time, date, stop rule, commit).
Entries are written atomically (a temporary file, then a rename) and carry a checksum of their
content, so an interrupted or corrupted write is detected on reading and the job is recomputed,
never used.

The version key (``pipeline.versions``) is computed by the runner; the store only stores it.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import paths

FORMAT = 1


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


class CorruptEntry(ValueError):
    """A stored entry that cannot be used: unreadable, truncated, or failing its checksum."""


def _checksum(payload: dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


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
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            payload = {k: data[k] for k in ("format", "job", "params", "key", "tables", "provenance")}
            ok = data["checksum"] == _checksum(payload) and data["params"] == job.params
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as error:
            raise CorruptEntry(f"{path} is unreadable ({type(error).__name__}: {error})") from error
        if not ok:
            raise CorruptEntry(f"{path} fails its checksum or does not match its job")
        return Entry(data["job"], data["params"], data["key"], data["tables"], data["provenance"])

    def save(self, job: Job, key: str, tables: dict[str, list[dict]], provenance: dict) -> Path:
        payload = {"format": FORMAT, "job": job.id, "params": job.params, "key": key,
                   "tables": tables, "provenance": provenance}
        text = json.dumps({**payload, "checksum": _checksum(payload)}, indent=1, sort_keys=True, default=_json)
        path = self.path(job)
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(".json.partial")
        staging.write_text(text)
        os.replace(staging, path)  # atomic: a reader sees the old entry or the new one, never half
        return path


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
