"""The book's pages rendered in warm kernels (forked from a process that has imported torch: publish/kernels.py) beside
the same pages in new kernels, in one run.

Workload: every page of the table of contents at the ``tiny`` profile (its results computed first, outside the timing;
the teaching and theory pages' experiments remembered, so both ways render the same cells), rendered with ``force``
by ``build.execute_all`` two pages at a time as ``make book`` does, in rounds that alternate the two ways. Reported per
way: wall time, and the CPU time of this process's children (kernels, the zygote and its kernels), which on a
machine whose cores are all busy (a test run, a cluster) is what the pages cost. Every page's tables must be the
same both ways, or the benchmark fails. Run alone.

Usage: python benchmarks/bench_pages.py [--rounds 2] [--no-write]
Appends a dated section to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path

import results

SCRATCH = Path(tempfile.mkdtemp(prefix="bench-pages-"))  # its own results and pages, which the kernels read too
os.environ["ENTROPIC_RESULTS"], os.environ["ENTROPIC_BUILD"] = str(SCRATCH / "results"), str(SCRATCH / "build")

from entropic import paths  # noqa: E402
from entropic.jobs import runner  # noqa: E402
from entropic.publish import build, kernels  # noqa: E402


def children_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def render(warm: bool) -> tuple[float, float, dict[str, str]]:
    """Every page of the book at tiny, rendered anew: wall seconds, children's CPU seconds, and the tables written."""
    for page in paths.EXECUTED.glob("*.ipynb"):
        page.unlink()
    shutil.rmtree(paths.BUILD / "rendered", ignore_errors=True)  # no page restored: each renders
    command = kernels.warm_command
    if not warm:
        kernels.warm_command = lambda given: given
    try:
        cpu, start = children_seconds(), time.perf_counter()
        build.execute_all([(name, "tiny", {}) for name in build.toc_notebooks()], workers=2, log=lambda *_: None)
        kernels._stop_all()  # the zygote's CPU time, and its kernels', counts once it has ended
        wall, cpu = time.perf_counter() - start, children_seconds() - cpu
    finally:
        kernels.warm_command = command
    tables = {str(p.relative_to(paths.TABLES)): p.read_text() for p in sorted(paths.TABLES.rglob("*.csv"))}
    return wall, cpu, tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    for section in build.toc_sections():
        runner.run(section, "tiny", progress=False)
    render(warm=True)  # the teaching and theory pages' experiments, remembered for every round
    timings = {"new kernels": [], "warm kernels": []}
    baseline = None
    for round_ in range(args.rounds):
        for warm in ((False, True) if round_ % 2 == 0 else (True, False)):
            wall, cpu, tables = render(warm)
            baseline = baseline or tables
            assert tables == baseline, "the pages' tables differ between warm and new kernels"
            timings["warm kernels" if warm else "new kernels"].append((wall, cpu))
            print(f"round {round_ + 1}: {'warm' if warm else 'new'} kernels: {wall:.1f} s wall, {cpu:.1f} s CPU")
    pages = len(build.toc_notebooks())
    lines = [f"### {results.stamp()} — CPU ({platform.machine()}), {pages} pages at tiny, two at a time, "
             f"{args.rounds} rounds", "",
             "| kernels | wall (s), per round | CPU of the kernels (s), per round | CPU per page (s) |",
             "|---|---|---|---|"]
    for way, runs in timings.items():
        lines.append(f"| {way} | {', '.join(f'{w:.1f}' for w, _ in runs)} | {', '.join(f'{c:.1f}' for _, c in runs)} "
                     f"| {sum(c for _, c in runs) / len(runs) / pages:.2f} |")
    results.report(["", "## The pages' kernels: warm (forked) beside new", "", *lines], write=not args.no_write)


if __name__ == "__main__":
    main()
