"""The results store: one JSON file per job under ``results/<label>/<section>/``.

An entry holds the job's tidy rows (one list of rows per table), its parameters, the **version key**
of the code it ran, and provenance (package versions, device, wall time, date, stop rule, commit).
Entries are written atomically (a temporary file, then a rename) and carry a checksum of their
content, so an interrupted or corrupted write is detected on reading and the job is recomputed,
never used.

The version key of a section's jobs hashes the engine modules the section imports (transitively)
and the source of the section's ``fit`` with every module-level function it calls: editing a figure,
a verdict or the book invalidates nothing; editing the students module invalidates every job that
trains students.
"""

from __future__ import annotations

import ast
import datetime
import hashlib
import importlib.metadata
import inspect
import json
import os
import platform
import subprocess
import sys
import types
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


def sweep_and_recovery(name: str, task: dict, steps: int, recovery_steps: int, recovery_init: float) -> list[Job]:
    """The two jobs of one App. C teacher task (``engine.protocol.sweep_or_recovery``): its rank sweep
    and its over-parameterized recovery student. The recovery student always runs the paper's fixed
    steps (see ``RECOVERY_STOP``)."""
    return [Job(f"{name}-sweep", {"kind": "sweep", **task, "steps": steps}),
            Job(f"{name}-recovery", {"kind": "recovery", **task, "stop": RECOVERY_STOP, "steps": recovery_steps,
                                     "init_scale": recovery_init})]


# Recovery students measure ranks, and the Shannon effective rank of a learned kernel keeps drifting
# after its loss has settled (measured: under softmax it moved by about 2 % between the converged stop
# and the paper's 2,500 steps, enough to change CV_seed fourfold). So the converged rule applies to the
# rank sweeps only; every recovery student runs the paper's step count.
RECOVERY_STOP = "fixed"


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


# --- version keys -----------------------------------------------------------------------------------

def _engine_imports(source: str, package: str) -> set[str]:
    """Names of ``entropic.engine`` modules imported by a module's source."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if package == "engine" and node.level == 1:  # inside the engine: ``from . import x``, ``from .x``
                found |= {parts[0]} if node.module else {a.name for a in node.names}
            elif "engine" in parts:
                tail = parts[parts.index("engine") + 1:]
                found |= {tail[0]} if tail else {a.name for a in node.names}
    return found


def engine_modules(module: types.ModuleType) -> list[Path]:
    """The engine module files a section imports, closed over the engine's own imports."""
    todo, seen = _engine_imports(inspect.getsource(module), "sections"), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo |= _engine_imports((paths.ENGINE / f"{name}.py").read_text(), "engine")
    return sorted(paths.ENGINE / f"{name}.py" for name in seen)


def fit_sources(module: types.ModuleType) -> list[str]:
    """Source of the section's ``fit`` and of every function or class of the same module it uses."""
    todo, seen, sources = ["fit"], set(), []
    while todo:
        name = todo.pop()
        obj = getattr(module, name, None)
        if name in seen or not callable(obj) or getattr(obj, "__module__", None) != module.__name__:
            continue
        seen.add(name)
        sources.append(inspect.getsource(obj))
        codes = [obj.__code__] if hasattr(obj, "__code__") else [
            m.__code__ for m in vars(obj).values() if hasattr(m, "__code__")]
        while codes:
            code = codes.pop()
            todo += list(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return sources


def version_key(module: types.ModuleType) -> str:
    """The hash of the code a section's jobs run (see the module docstring)."""
    digest = hashlib.sha256()
    for path in engine_modules(module):
        digest.update(path.name.encode() + path.read_bytes())
    for source in fit_sources(module):
        digest.update(source.encode())
    return digest.hexdigest()[:12]


# --- provenance -------------------------------------------------------------------------------------

def _commit() -> str:
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
