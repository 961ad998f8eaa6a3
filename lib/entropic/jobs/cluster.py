"""Computing jobs: one at a time in this process, or mapped over a Dask distributed cluster.

``compute(section, job, scratch)`` is the one place a job runs: it calls the section's fit with the
number of threads the section declares (``threads_for``), refuses non-finite numbers (naming the job, its
parameters and the columns, storing nothing) and returns the job's tables with their provenance. The
thread count is fixed because it changes the order of floating-point reductions, hence the last digits of
trained numbers: a job stores the same numbers in this process and on a worker. The runner calls it
in-process by default; ``--cluster`` maps the missing jobs of a section over a cluster instead:

* ``local`` or ``local:N``: a ``distributed.LocalCluster`` of N worker processes (one task at a time each)
  on this machine — every CPU core, or every process a GPU can keep busy;
* ``tcp://host:port``: the scheduler of a cluster someone already runs (``dask scheduler`` and
  ``dask worker tcp://host:port`` on each machine, each with this project installed).

Each worker computes its job with its own installed code and checks that the code's version key is
the client's (a worker running other code refuses, naming both keys); the client stores every result
as it arrives, in the same entries a local run writes, with the worker added to the provenance. A
worker that dies loses only the job it was running: the scheduler gives that job to another worker.
An interrupted client loses nothing stored: the next run submits only what is still missing.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import sys
import time
from collections.abc import Iterator

from . import store, versions

LOCAL = "local"
# Dask's nanny starts each worker with MALLOC_TRIM_THRESHOLD_=65536 (and leaves it in the environment of the
# process running the nanny). Setting it turns off glibc's adaptive mmap threshold, so every tensor over 128 KiB
# is mapped and unmapped afresh: jobs ran 1.5-3x slower in a worker than in this process, most of it system
# time. Local workers start without it: None removes it from Dask's setting, and it is out of this process's
# environment while the cluster runs (workers inherit that environment, restarted ones included).
TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
TRIM_VARIABLE = TRIM.rpartition(".")[2]
THREADS = 1  # torch threads of a job, unless its section declares ``THREADS`` (a number, or one per job kind)
CONNECT_SECONDS = 5.0  # how long a scheduler address may take to accept a connection before it is called unreachable


class JobFailed(RuntimeError):
    """A job that raised or produced non-finite numbers; nothing of it is stored."""


def _non_finite(tables: dict[str, list[dict]]) -> list[str]:
    bad = set()
    for name, rows in tables.items():
        for row in rows:
            for column, value in row.items():
                if isinstance(value, float) and not math.isfinite(value):
                    bad.add(f"{name}.{column}")
    return sorted(bad)


def _device() -> str:
    import platform

    import torch

    if torch.cuda.is_available():
        return torch.cuda.get_device_name()
    return f"CPU ({platform.processor() or platform.machine()})"


def threads_for(module, job: store.Job) -> int:
    """The torch threads a job of ``module`` runs with: the section's ``THREADS`` (a number, or a mapping from
    job kind to number for sections whose heavy jobs run on more), else :data:`THREADS`; at most
    ``ENTROPIC_MAX_THREADS`` when that is set (a machine shared with other work: two processes each on every
    core slow each other several times over)."""
    declared = getattr(module, "THREADS", THREADS)
    if isinstance(declared, dict):
        declared = declared.get(job.params.get("kind"), THREADS)
    if isinstance(declared, bool) or not isinstance(declared, int) or declared < 1:
        raise ValueError(f"{module.__name__}.THREADS must be a positive number of threads (or one per job kind), "
                         f"got {declared!r}")
    return min(declared, max_threads() or declared)


def max_threads() -> int | None:
    """``ENTROPIC_MAX_THREADS``, the most torch threads a job may take (None when unset)."""
    value = os.environ.get("ENTROPIC_MAX_THREADS", "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"ENTROPIC_MAX_THREADS must be a positive whole number of threads, got {value!r}")
    return int(value)


@contextlib.contextmanager
def _threads(count: int):
    """torch on ``count`` threads for the duration, then as it was."""
    import torch

    held = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(held)


def compute(section: str, job: store.Job, scratch=None, threads: int | None = None) -> tuple[dict, dict]:
    """Run one job of ``section`` on ``threads`` torch threads (default: :func:`threads_for`, whatever this
    process was set to; restored afterwards): ``(tables, provenance)``, the provenance recording the thread
    count. Raises :class:`JobFailed` naming the job."""
    import inspect

    from .. import registry

    module = registry.module(section)
    count = threads_for(module, job) if threads is None else threads
    start = time.perf_counter()
    with _threads(count):
        try:
            fit = versions.entry_point(module, job.params.get("kind"))  # the function its version key covers
            if "scratch" in inspect.signature(fit).parameters:
                tables = fit(job, scratch=scratch)
            else:
                tables = fit(job)
        except KeyboardInterrupt:
            raise
        except Exception as error:
            raise JobFailed(f"job {job.name} of {section} failed ({type(error).__name__}: {error}); its "
                            f"parameters: {_shown(job.params)}") from error
        provenance = store.provenance(_device(), time.perf_counter() - start, job.params.get("stop"))
    bad = _non_finite(tables)
    if bad:
        raise JobFailed(f"job {job.name} of {section} produced non-finite numbers in {', '.join(bad)}; nothing "
                        f"was stored. Its parameters: {_shown(job.params)}")
    return tables, provenance


def _shown(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items() if k not in ("sha256", "sources", "corpus_dir"))


def _work(section: str, job: store.Job, key: str, scratch: str | None) -> tuple[dict, dict]:
    """What a worker runs: check its code is the client's, then :func:`compute`."""
    from .. import registry

    own = versions.version_key(registry.module(section), job.params.get("kind"))
    if own != key:
        raise JobFailed(f"worker {socket.gethostname()} runs other code than the client for {section} "
                        f"(version key {own}, client {key}): install the same version of the project there")
    tables, provenance = compute(section, job, scratch)
    return tables, {**provenance, "worker": f"{socket.gethostname()}:{os.getpid()}"}


def parse(address: str) -> tuple[str, int | None]:
    """``local`` / ``local:N`` / ``tcp://host:port`` → (kind or address, N); anything else raises ValueError."""
    if address == LOCAL or address.startswith(LOCAL + ":"):
        count = address.partition(":")[2]
        if count and (not count.isdigit() or int(count) < 1):
            raise ValueError(f"--cluster local:N needs a positive number of workers, got {address!r}")
        return LOCAL, int(count) if count else None
    if address.startswith(("tcp://", "tls://", "ucx://")) and ":" in address.split("://", 1)[1]:
        return address, None
    raise ValueError(f"--cluster must be local, local:N or a scheduler address like tcp://host:8786, got {address!r}")


class Unreachable(RuntimeError):
    """A scheduler address that accepts no connection."""


def _unreachable(address: str, why) -> Unreachable:
    return Unreachable(f"no Dask scheduler answers at {address} ({why}): start one there (`dask scheduler`, and "
                       f"`dask worker {address}` on each worker), or compute on this machine with --cluster local:N")


def check(address: str) -> None:
    """Raise :class:`Unreachable` (one line: the address, why, what to do) when ``address`` is a scheduler that
    does not accept a TCP connection within :data:`CONNECT_SECONDS`; ``local`` addresses pass. Called before
    any work starts, so an unreachable cluster costs seconds, not Dask's 30-second connect timeout."""
    where, _ = parse(address)
    if where == LOCAL or not where.startswith(("tcp://", "tls://")):
        return
    host, _, port = where.split("://", 1)[1].rstrip("/").rpartition(":")
    if not port.isdigit():
        raise ValueError(f"--cluster {address}: the port must be a number, got {port!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:  # refused, no route, unknown host, timed out
        raise _unreachable(address, error.strerror or type(error).__name__) from None


@contextlib.contextmanager
def _unset(variable: str):
    """``variable`` out of this process's environment for the duration, then as it was."""
    held = os.environ.pop(variable, None)
    try:
        yield
    finally:
        if held is not None:
            os.environ[variable] = held


@contextlib.contextmanager
def client(address: str):
    """A ``distributed.Client`` for ``address`` (see :func:`parse`); a LocalCluster is started and closed."""
    try:
        from dask import config
        from distributed import Client, LocalCluster
    except ImportError as error:  # pragma: no cover - dask is a dependency
        raise RuntimeError("--cluster needs dask[distributed]: pip install 'dask[distributed]'") from error
    where, workers = parse(address)
    if where != LOCAL:
        check(address)
        try:
            dask = Client(where, timeout="30s")
        except OSError as error:  # it went away since the check, or is not a Dask scheduler
            raise _unreachable(address, f"{type(error).__name__}: {error}") from None
        with dask:
            yield dask
        return
    with (_unset(TRIM_VARIABLE), config.set({TRIM: None}),
          LocalCluster(n_workers=workers or os.cpu_count(), threads_per_worker=1, processes=True,
                       dashboard_address=None, silence_logs=40) as cluster,
          Client(cluster) as dask):
        yield dask


def _trim_setting() -> str | None:
    """This process's ``MALLOC_TRIM_THRESHOLD_`` (run on a worker: a bound ``os.environ.get`` would be pickled
    with the client's environment)."""
    return os.environ.get(TRIM_VARIABLE)


def slowed_workers(dask) -> list[str]:
    """The workers of a connected client that started with ``MALLOC_TRIM_THRESHOLD_`` set (see ``TRIM``)."""
    return sorted(worker for worker, value in dask.run(_trim_setting).items() if value)


def map_jobs(section: str, todo: list[tuple[store.Job, str, str | None]],
             address: str) -> Iterator[tuple[store.Job, dict, dict]]:
    """Submit every ``(job, key, scratch)`` to the cluster and yield ``(job, tables, provenance)`` as each
    finishes (in completion order). A job that fails raises :class:`JobFailed` here, after the jobs that
    finished before it were yielded."""
    from distributed import as_completed

    with client(address) as dask:
        slowed = slowed_workers(dask)
        if slowed:
            print(f"[entropic] note: {len(slowed)} worker(s) started with MALLOC_TRIM_THRESHOLD_ set (Dask's "
                  f"default), which makes these jobs 1.5-3x slower: start them with `{TRIM}: null` in their Dask "
                  f"configuration (README, 'The paper profile on a GPU or a cluster')", file=sys.stderr)
        futures = {dask.submit(_work, section, job, key, scratch, pure=False,
                               key=f"{section}-{job.id}"): job for job, key, scratch in todo}
        for future in as_completed(futures):
            tables, provenance = future.result()
            yield futures[future], tables, provenance
