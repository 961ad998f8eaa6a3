"""Command line of the reproduction (from the project's root, in the virtual environment ``make`` creates:
``.venv/bin/python -m entropic …``).

  book [--profile P]              every page at a profile (default paper: the committed results, read, never
                                  trained), then the HTML book
  run SECTION [name=value ...]    one section with other parameters (over the quick profile by default), then
                                  the book (--no-book: the results only)
  rekey SECTION [--profile P]     verify a section's stale entries on a sample and adopt the current version key
                                  (default profile: paper)
  prune [--profile P]             delete stored entries that no current job reads (default profile: quick)
  sections | profiles             what there is

The book (book, and run without --no-book) is built from a clone of the repository; results are computed
anywhere the package is installed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

BOOK_PROFILE = "paper"  # what `book` shows: the committed paper-profile results, never recomputed by reading
RUN_PROFILE = "quick"  # what `run` computes over: minutes on a CPU


def _parser() -> argparse.ArgumentParser:
    from .paths import shell_command

    parser = argparse.ArgumentParser(prog=shell_command(""), description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--profile", help=f"parameter profile (default: {BOOK_PROFILE} for book, {RUN_PROFILE} "
                                          f"for run)")
    common.add_argument("--force", action="store_true", help="recompute every job, even stored ones")
    common.add_argument("--refresh", action="store_true",
                        help="recompute stale jobs (computed by other code) instead of showing them flagged")
    common.add_argument("--quiet", action="store_true", help="no progress bars")
    common.add_argument("--cluster", metavar="ADDRESS",
                        help="compute the jobs on a Dask cluster: local (every core), local:N (N worker processes) "
                             "or a scheduler address tcp://host:8786 (see the reproducing page)")
    book = sub.add_parser("book", parents=[common], help="every section at a profile, then the HTML book")
    book.add_argument("--compute", action="store_true",
                      help="also compute missing jobs of a committed profile (paper), which reading never does")
    book.add_argument("--no-html", action="store_true",
                      help="compute and render the pages, skip the HTML (also: ENTROPIC_NO_HTML=1)")
    run = sub.add_parser("run", parents=[common], help="one section with parameter overrides, then the book")
    run.add_argument("section")
    run.add_argument("params", nargs="*", metavar="name=value", help="parameter overrides, e.g. r_star=4")
    run.add_argument("--no-book", action="store_true", help="compute the results only")
    run.add_argument("--book-profile", default=BOOK_PROFILE,
                     help=f"the profile the rest of the book shows (default: {BOOK_PROFILE})")
    run.add_argument("--only", action="append", metavar="PATTERN",
                     help="compute only the jobs whose name matches this shell pattern (repeatable), "
                          "e.g. --only '*-1.536M' --only '*-data'; the others are left for a later run")
    rekey = sub.add_parser("rekey", help="verify stale entries under the current code on a sample and, when every "
                                         "sample reproduces its entry, adopt the current version key for them all")
    rekey.add_argument("section")
    rekey.add_argument("--profile", default=BOOK_PROFILE,
                       help=f"the profile whose entries are re-keyed (default: {BOOK_PROFILE})")
    rekey.add_argument("--sample", type=int, default=1,
                       help="entries recomputed per (kind, old key) and regime (default: 1)")
    rekey.add_argument("--cheap", type=float, default=0.0, metavar="SECONDS",
                       help="recompute every entry of a group whose entries took at most this many seconds in all "
                            "(default: 0, never)")
    prune = sub.add_parser("prune", help="delete stored entries that no current job reads")
    prune.add_argument("--profile", default=RUN_PROFILE,
                       help=f"the profile whose orphaned entries are deleted (default: {RUN_PROFILE})")
    sub.add_parser("sections", help="list the sections")
    sub.add_parser("profiles", help="list the parameter profiles")
    return parser


def main(argv: list[str] | None = None) -> int:
    from .jobs import runner

    parser = _parser()
    # name=value pairs may come before or after the options (the Makefile puts --profile first).
    args, extra = parser.parse_known_args(argv)
    stray = [item for item in extra if item.startswith("-") or "=" not in item or args.command != "run"]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    if args.command == "run":
        args.params = [*args.params, *extra]
    if args.command in ("book", "run") and args.profile is None:
        args.profile = BOOK_PROFILE if args.command == "book" else RUN_PROFILE
    try:
        return _command(args)
    except runner.Interrupted as stop:
        print(f"\n{stop}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("\ninterrupted; every finished job is stored: run the same command again to resume", file=sys.stderr)
        return 130
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (RuntimeError, subprocess.CalledProcessError) as error:  # cluster.JobFailed included
        print(f"error: {error}", file=sys.stderr)
        return 1


def _command(args) -> int:
    """One command, its input checked before any work; a refusal raises ``ValueError`` (one line, exit 2)."""
    from . import paths, registry
    from .jobs import cluster, config, runner, store
    from .publish import build

    cluster.max_threads()  # a bad ENTROPIC_MAX_THREADS is refused before anything is read or planned
    if args.command == "sections":
        print("\n".join(registry.names()))
        return 0
    if args.command == "profiles":
        print("\n".join(config.available_profiles()))
        return 0
    if args.command in ("rekey", "prune"):
        config.load_profile(args.profile)  # an unknown profile: one line, not a traceback
    if args.command == "rekey":
        from .jobs import rekey

        groups = rekey.rekey(args.section, args.profile, sample=args.sample, cheap=args.cheap, progress=True)
        if not groups:
            print(f"[entropic] {args.section}: no stale entry at profile {args.profile}: nothing to re-key")
        return 1 if any(not g.verified for g in groups) else 0
    if args.command == "prune":
        for name in registry.names():
            for path in runner.orphans(name, args.profile):
                print(f"[entropic] removing {paths.shown(path)}")
                path.unlink()
        return 0
    wants_book = args.command == "book" or not args.no_book
    if wants_book and not paths.IN_CHECKOUT:
        raise ValueError("the book is built from a clone of the repository (its _toc.yml, _config.yml and "
                         "notebooks/), and this installed package has none: clone the repository to build the "
                         "book" + (", or add --no-book to compute the results only" if args.command == "run" else ""))
    names = build.toc_sections() if args.command == "book" else [args.section]
    overrides = config.parse_overrides(args.params) if args.command == "run" else {}
    if args.cluster:
        cluster.parse(args.cluster)
    for name in names:  # validate everything before any work starts
        runner.plan(name, args.profile, overrides)
    if args.cluster:
        cluster.check(args.cluster)  # an unreachable scheduler: one line in seconds, not a traceback in 30
    keep = False if args.refresh else None
    for name in names:
        compute = True if args.command == "run" or args.compute or args.force or args.refresh else None
        result = runner.run(name, args.profile, overrides, force=args.force, keep_stale=keep,
                            compute=compute, progress=not args.quiet, only=getattr(args, "only", None),
                            cluster=args.cluster, log=print)
        print(f"[entropic] {name}: {len(result.entries)} jobs in {paths.shown(store.Store(result.label, name).folder)} "
              f"({result.computed} computed now, {len(result.stale)} stale, {len(result.missing)} missing)")
    if not wants_book:
        return 0
    pages = args.profile if args.command == "book" else args.book_profile
    # The book shows every section: this one with the given parameters, the others at the book's profile.
    build.execute_all([(name, args.profile, overrides) if name in names and args.command == "run"
                       else (name, pages, {}) for name in build.toc_notebooks()])
    if not getattr(args, "no_html", False) and not os.environ.get("ENTROPIC_NO_HTML"):
        build.build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
