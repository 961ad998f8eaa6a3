"""A section's jobs on a Dask LocalCluster beside the same jobs in this process, in one run.

Workload: the jobs of a section whose names match ``--only`` (default: the frontier's paper-profile grid
at r* = 2, fifteen jobs of 6 to 30 s), computed three times into empty scratch stores:

* in-process: ``entropic run`` without ``--cluster``, one torch thread (the baseline);
* Dask's default workers: a LocalCluster of N single-threaded worker processes as Dask starts them, with
  ``MALLOC_TRIM_THRESHOLD_=65536`` in their environment, reached by its address as a remote cluster is;
* ``--cluster local:N``: the LocalCluster the project starts, whose workers lack that variable.

Setting ``MALLOC_TRIM_THRESHOLD_`` turns off glibc's adaptive mmap threshold, so each tensor over 128 KiB is
mapped and unmapped afresh; the system time this costs is reported beside the wall time. Every run's
tables must equal the baseline's (wall-time columns aside), or the benchmark fails. Run alone: two torch
processes on two cores slow each other several times over.

Usage: python benchmarks/bench_cluster.py [--section frontier] [--only 'grid-r2-*'] [--workers 2] [--no-write]
Appends a dated section to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import resource
import tempfile
import time
from pathlib import Path

import results
import torch

from entropic import paths
from entropic.jobs import cluster, runner


def system_seconds() -> float:
    """CPU time spent in the kernel by this process and its finished children."""
    return sum(resource.getrusage(who).ru_stime for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


@contextlib.contextmanager
def dask_default_cluster(workers: int):
    """A LocalCluster as Dask starts one (its default worker environment); yields its address."""
    from distributed import Client, LocalCluster

    with (LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                       silence_logs=40) as local,
          Client(local) as client):
        assert cluster.slowed_workers(client), "Dask's default no longer sets MALLOC_TRIM_THRESHOLD_"
        yield local.scheduler_address


def timed(section: str, profile: str, only: list[str], where, store: Path) -> dict:
    """Compute the matching jobs into an empty ``store`` on ``where`` (a context manager yielding the
    ``--cluster`` address, or None): wall time and system time (cluster start and stop included), the jobs'
    own seconds, and the tables."""
    paths.RESULTS = store
    kernel, start = system_seconds(), time.perf_counter()
    with where as address:
        done = runner.run(section, profile, only=only, cluster=address, compute=True, progress=False,
                          log=lambda *_: None)
    wall, system = time.perf_counter() - start, system_seconds() - kernel
    tables = [{name: [{k: v for k, v in row.items() if k != "seconds"} for row in rows]
               for name, rows in entry.tables.items()} for entry in done.entries]
    return {"wall": wall, "system": system, "jobs": done.computed, "tables": tables,
            "job_seconds": sum(entry.provenance["seconds"] for entry in done.entries)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default="frontier")
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--only", action="append", help="shell pattern of job names (repeatable)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="print only; do not append to RESULTS.md")
    args = parser.parse_args()
    only, n = args.only or ["grid-r2-*"], args.workers
    scratch = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    torch.set_num_threads(1)
    where = {"in-process, 1 thread (baseline)": contextlib.nullcontext(None),
             f"{n} workers as Dask starts them": dask_default_cluster(n),
             f"`--cluster local:{n}`": contextlib.nullcontext(f"local:{n}")}
    runs = {name: timed(args.section, args.profile, only, place, scratch / str(i))
            for i, (name, place) in enumerate(where.items())}
    baseline = next(iter(runs.values()))
    if not baseline["jobs"]:
        raise SystemExit(f"no job of {args.section} at {args.profile} matches {only}")
    for name, run in runs.items():
        if run["jobs"] != baseline["jobs"] or run["tables"] != baseline["tables"]:
            raise SystemExit(f"{name}: other results than the baseline's")

    lines = [f"\n## {args.section}'s jobs on a Dask LocalCluster — {results.stamp()}\n",
             f"`python benchmarks/bench_cluster.py --section {args.section} "
             + " ".join(f"--only '{p}'" for p in only) + f" --workers {n}`: {baseline['jobs']} jobs of "
             f"the `{args.profile}` profile, each computed three times into an empty store; every run's tables "
             f"equal the baseline's. {platform.processor() or platform.machine()}, {torch.get_num_threads()} torch "
             f"thread per process, torch {torch.__version__}. Wall time and system time (the client's process and "
             f"its workers, in the kernel) include starting and stopping the cluster.\n",
             "| run | wall time | sum of job times | system time | speed-up over in-process |",
             "|---|---|---|---|---|"]
    for name, run in runs.items():
        lines.append(f"| {name} | {run['wall']:.1f} s | {run['job_seconds']:.1f} s | {run['system']:.1f} s "
                     f"| {baseline['wall'] / run['wall']:.2f}× |")
    results.report(lines, write=not args.no_write)


if __name__ == "__main__":
    main()
