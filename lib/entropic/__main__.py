"""Command line of the reproduction (from the project's root, in the virtual environment ``make`` creates:
``.venv/bin/python -m entropic …``).

  book [--profile P]              every page at a profile (default paper: the committed results, read, never
                                  trained), then the HTML book
  run SECTION [name=value ...]    one section with other parameters (over the quick profile by default), then
                                  the book (--no-book: the results only)
  params SECTION [--profile P]    a section's parameters: the paper's value, the profile's, kind and description
  rekey SECTION [--profile P]     verify a section's stale entries on a sample and adopt the current version key
                                  (default profile: paper)
  prune [--profile P]             delete stored entries that no current job reads (default profile: quick)
  sections | profiles             what there is

Every argument, profile and environment variable is checked before any work. Exit status: 0 done; 2 refused
before any work (one line naming the value and where it came from); 1 failed while working (a job, a page, the
HTML build) or, for rekey, a sample that did not reproduce; 130 interrupted (what finished is stored).

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
DONE, FAILED, REFUSED, INTERRUPTED = 0, 1, 2, 130  # exit statuses (REFUSED is also argparse's)
# Each subcommand: its one-line description and an example.
SUBCOMMANDS = {
    "book": ("every page at a profile (default paper: the committed results, read, never trained), then the "
             "HTML book", "book --profile quick --no-html"),
    "run": ("one section with parameter overrides over a profile (default quick), then the book",
            "run surrogate r_star=4 n=1000 --no-book"),
    "params": ("list a section's parameters: the paper's value, the value at a profile (default quick), the kind "
               "of value and one line each", "params surrogate"),
    "rekey": ("verify stale entries under the current code on a sample and, when every sample reproduces its "
              "entry, adopt the current version key for them all", "rekey frontier --profile paper"),
    "prune": ("delete stored entries that no current job reads (default profile: quick)", "prune --profile quick"),
    "corpora": ("fetch App. B's six corpora from their public sources (or a mirror of them) and check each against "
                "its pinned sha256; a corpus already here is checked, not fetched", "corpora"),
    "sections": ("list the sections", "sections"),
    "profiles": ("list the parameter profiles", "profiles"),
}


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each subcommand's (whose usage a fault of its arguments prints)."""
    from . import variables
    from .paths import shell_command

    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog=shell_command(""), description=__doc__, formatter_class=raw)
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
    parsers = {}
    for name, (what, example) in SUBCOMMANDS.items():
        epilog = "\n\n".join(part for part in (f"example:\n  {shell_command(example)}", variables.described(name))
                             if part)
        parsers[name] = sub.add_parser(name, parents=[common] if name in ("book", "run") else [], help=what,
                                       description=what[0].upper() + what[1:] + ".", epilog=epilog,
                                       formatter_class=raw)
    book, run, params, rekey, prune = (parsers[n] for n in ("book", "run", "params", "rekey", "prune"))
    book.add_argument("--compute", action="store_true",
                      help="also compute missing jobs of a committed profile (paper), which reading never does")
    book.add_argument("--no-html", action="store_true",
                      help="compute and render the pages, skip the HTML (also: ENTROPIC_NO_HTML=1)")
    run.add_argument("section")
    run.add_argument("params", nargs="*", default=[], metavar="name=value",
                     help="parameter overrides, e.g. r_star=4 (params SECTION lists them)")
    run.add_argument("--no-book", action="store_true", help="compute the results only")
    run.add_argument("--book-profile", help=f"the profile the rest of the book shows (default: {BOOK_PROFILE})")
    run.add_argument("--only", action="append", metavar="PATTERN",
                     help="compute only the jobs whose name matches this shell pattern (repeatable; each must "
                          "match a job), e.g. --only '*-1.536M' --only '*-data'; the others are left for a later run")
    params.add_argument("section")
    params.add_argument("--profile", default=RUN_PROFILE,
                        help=f"the profile whose values are listed beside the paper's (default: {RUN_PROFILE})")
    rekey.add_argument("section")
    rekey.add_argument("--profile", default=BOOK_PROFILE,
                       help=f"the profile whose entries are re-keyed (default: {BOOK_PROFILE})")
    rekey.add_argument("--sample", type=int, default=1,
                       help="entries recomputed per (kind, old key) and regime (default: 1)")
    rekey.add_argument("--cheap", type=float, default=0.0, metavar="SECONDS",
                       help="recompute every entry of a group whose entries took at most this many seconds in all "
                            "(default: 0, never)")
    corpora = parsers["corpora"]
    corpora.add_argument("--mirror", metavar="URL",
                         help="read every public source https://HOST/PATH at URL/HOST/PATH instead (a mirror of them)")
    corpora.add_argument("--files", metavar="URL",
                         help="fetch the pinned files themselves from a mirror of the shared corpora folder "
                              "(URL/<name>.txt)")
    prune.add_argument("--profile", default=RUN_PROFILE,
                       help=f"the profile whose orphaned entries are deleted (default: {RUN_PROFILE})")
    return parser, parsers


def main(argv: list[str] | None = None) -> int:
    from .jobs import cluster, runner

    parser, parsers = _parser()
    # name=value pairs may come before or after the options (the Makefile puts --profile first).
    args, extra = parser.parse_known_args(argv)
    stray = [item for item in extra if item.startswith("-") or "=" not in item or args.command != "run"]
    if stray:
        hint = (f" (parameters go to run: {' '.join(['run SECTION', *stray])})"
                if args.command == "book" and all("=" in item and not item.startswith("-") for item in stray) else "")
        parsers[args.command].error(f"unrecognized arguments: {' '.join(stray)}{hint}")  # its usage; exit 2
    if args.command == "run":
        args.params = [*args.params, *extra]
    try:
        return _command(args)
    except runner.Interrupted as stop:
        print(f"\n{stop}", file=sys.stderr)
        return INTERRUPTED
    except KeyboardInterrupt:
        print("\ninterrupted; every finished job is stored: run the same command again to resume", file=sys.stderr)
        return INTERRUPTED
    except (ValueError, cluster.Unreachable) as error:  # refused before any work
        print(f"error: {error}", file=sys.stderr)
        return REFUSED
    except (RuntimeError, subprocess.CalledProcessError) as error:  # cluster.JobFailed included
        print(f"error: {error}", file=sys.stderr)
        return FAILED


def _given(option: str, profile: str | None, default: str) -> tuple[str, str | None]:
    """The profile an option names, and the option as the source of an error about it (None for a default)."""
    return (default, None) if profile is None else (profile, f"{option} {profile}")


def _readable(profile: str, source: str | None) -> None:
    """Refuse an unknown or unreadable profile before any work, naming the option that gave it."""
    from .jobs import profiles

    try:
        profiles.load_profile(profile)
    except ValueError as error:
        raise ValueError(f"{source}: {error}" if source else str(error)) from None


def _command(args) -> int:
    """One command, its input checked before any work; a refusal raises ``ValueError`` (one line, exit 2)."""
    from . import paths, registry, variables
    from .jobs import profiles, runner

    variables.check(args.command)  # every variable this command reads, before anything is read or planned
    if args.command == "sections":  # each imported, so that a module of one's own that fails says so
        reasons = {name: registry.check(name) for name in registry.names()}
        print("\n".join(name for name, why in reasons.items() if not why))
        for why in filter(None, reasons.values()):
            print(f"error: {why}", file=sys.stderr)
        return REFUSED if any(reasons.values()) else DONE
    if args.command == "profiles":
        names = profiles.available_profiles()  # a missing folder is refused, naming it
        print("\n".join(names) if names else f"no profiles in {paths.shown(paths.PROFILES)}",
              file=sys.stdout if names else sys.stderr)
        return DONE
    if args.command == "corpora":
        from .engine.corpus import sources

        failed = sources.fetch_each(mirror=args.mirror, files=args.files,
                                    log=lambda line: print(f"[entropic] {line}", flush=True))
        if failed:
            rest = "; the others are in place" if len(failed) < len(sources.corpora.CORPUS_NAMES) else ""
            print(f"error: {len(failed)} corpora could not be fetched ({', '.join(failed)}){rest}. Put a missing file "
                  f"at $ENTROPIC_CORPORA/<name>.txt, or name a mirror with --mirror or --files", file=sys.stderr)
        return FAILED if failed else DONE
    if args.command in ("rekey", "prune", "params"):
        _readable(args.profile, None)  # an unknown profile: one line, not a traceback
    if args.command == "params":
        print(_parameters(args.section, args.profile))
        return DONE
    if args.command == "rekey":
        from .jobs import rekey

        groups = rekey.rekey(args.section, args.profile, sample=args.sample, cheap=args.cheap, progress=True)
        if not groups:
            print(f"[entropic] {args.section}: no stale entry at profile {args.profile}: nothing to re-key")
        return FAILED if any(not g.verified for g in groups) else DONE
    if args.command == "prune":
        for name in registry.names():
            for path in runner.orphans(name, args.profile):
                print(f"[entropic] removing {paths.shown(path)}")
                path.unlink()
        return DONE
    return _compute(args)


def _compute(args) -> int:
    """``book`` and ``run``: every option checked, every section planned, then the jobs, then the book."""
    from . import paths
    from .jobs import cluster, profiles, runner, store
    from .publish import build

    wants_book = args.command == "book" or not args.no_book
    if wants_book and not paths.IN_CHECKOUT:
        raise ValueError("the book is built from a clone of the repository (its _toc.yml, _config.yml and "
                         "notebooks/), and this installed package has none: clone the repository to build the "
                         "book" + (", or add --no-book to compute the results only" if args.command == "run" else ""))
    profile, source = _given("--profile", args.profile, BOOK_PROFILE if args.command == "book" else RUN_PROFILE)
    _readable(profile, source)
    pages = profile if args.command == "book" else None
    if args.command == "run" and wants_book:
        pages, source = _given("--book-profile", args.book_profile, BOOK_PROFILE)
        _readable(pages, source)
    names = build.toc_sections() if args.command == "book" else [args.section]
    overrides = profiles.parse_overrides(args.params) if args.command == "run" else {}
    if args.cluster:
        cluster.parse(args.cluster)
    for name in names:  # validate everything before any work starts
        _, _, jobs = runner.plan(name, profile, overrides, source=f"the command line ({' '.join(args.params)})"
                                 if args.command == "run" else None)
        runner.check_only(name, jobs, getattr(args, "only", None))
    for name in build.toc_sections() if args.command == "run" and wants_book else ():
        if name not in names:
            runner.plan(name, pages)  # the pages the rest of the book shows, at the book's profile
    compute = True if args.command == "run" or args.compute or args.force or args.refresh else None
    for name in names:  # what the jobs to compute read (App. B's corpora), before the first section computes
        runner.check_inputs(name, profile, overrides, getattr(args, "only", None), compute)
    if args.cluster:
        cluster.check(args.cluster)  # an unreachable scheduler: one line in seconds, not a traceback in 30
    keep = False if args.refresh else None
    for name in names:
        result = runner.run(name, profile, overrides, force=args.force, keep_stale=keep,
                            compute=compute, progress=not args.quiet, only=getattr(args, "only", None),
                            cluster=args.cluster, log=print)
        print(f"[entropic] {name}: {len(result.entries)} jobs in {paths.shown(store.Store(result.label, name).folder)} "
              f"({result.computed} computed now, {len(result.stale)} stale, {len(result.missing)} not computed yet"
              + (": its page shows what is stored and says so)" if result.missing else ")"))
    if not wants_book:
        return DONE
    # The book shows every section: this one with the given parameters, the others at the book's profile.
    build.execute_all([(name, profile, overrides) if name in names and args.command == "run"
                       else (name, pages, {}) for name in build.toc_notebooks()])
    if not getattr(args, "no_html", False) and not os.environ.get("ENTROPIC_NO_HTML"):
        build.build()
    return DONE


def _parameters(section: str, profile: str) -> str:
    """A section's parameters, one line each: name, the paper's value, the value at ``profile``, the kind of
    value, and its description (what ``params SECTION`` prints)."""
    from dataclasses import fields

    from . import registry
    from .jobs import config
    from .paths import shell_command

    config_class = registry.module(section).Config
    cfg = config.resolve(config_class, section, profile)
    rows = [("parameter", "paper", profile, "kind", "description")]
    for f in fields(config_class):
        paper = config.shown_value(f.default)
        paper = paper if f.metadata.get("stated", True) else f"({paper}, ours)"
        rows.append((f.name, paper, config.shown_value(getattr(cfg, f.name)),
                     config.kind_of(f.metadata.get("check"), f.default), f.metadata.get("help", "")))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)) + "  " + row[4]
             for row in rows]
    command = shell_command(f"run {section} name=value")
    note = (f"{section}: {len(rows) - 1} parameters; 'paper' is the paper's value (ours in parentheses where the "
            f"paper states none); `{command}` overrides one")
    return "\n".join([note, *lines])


if __name__ == "__main__":
    sys.exit(main())
