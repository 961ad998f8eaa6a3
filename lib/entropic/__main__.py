"""Command line: ``python -m entropic book`` and ``python -m entropic run SECTION name=value …``."""

from __future__ import annotations

import argparse
import subprocess
import sys

from . import sections


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m entropic", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    book = sub.add_parser("book", help="execute every section (where stale) and build the HTML book")
    book.add_argument("--profile", default=sections.DEFAULT_PROFILE)
    book.add_argument("--force", action="store_true", help="re-execute even up-to-date sections")
    run = sub.add_parser("run", help="execute one section with new parameters, then rebuild the book")
    run.add_argument("section", choices=sorted(sections.SECTIONS))
    run.add_argument("params", nargs="*", metavar="name=value", help="parameter overrides")
    run.add_argument("--profile", default=sections.DEFAULT_PROFILE)
    run.add_argument("--no-book", action="store_true", help="only execute the notebook")
    sub.add_parser("profiles", help="list the parameter profiles")
    args = parser.parse_args(argv)

    try:
        if args.command == "profiles":
            print("\n".join(sections.available_profiles()))
            return 0
        if args.command == "book":
            sections.ensure_executed(args.profile, force=args.force)
        else:
            params = sections.resolve_params(args.section, args.profile, sections.parse_overrides(args.params))
            print(f"[entropic] {args.section}: executing with {params}")
            sections.execute(args.section, params, args.profile)
            if args.no_book:
                return 0
            # The book needs every section: execute those never executed, at the profile's defaults.
            sections.ensure_executed(args.profile, only_missing=True)
        sections.build_book()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (RuntimeError, subprocess.CalledProcessError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
