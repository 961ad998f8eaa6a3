"""The environment variables the project reads, declared once: what each does, which commands read it, and the
check that refuses a bad value before any work, in one line naming the variable. The command line checks them
first (``check``) and lists them in each subcommand's ``--help`` (``described``); the README's table lists the
same (a test compares the two, and this declaration with every ``ENTROPIC_*`` name the code reads).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

JOBS = "jobs"  # not a command: what planning and computing jobs read (``runner.run`` checks these, in a notebook too)
COMPUTING = ("book", "run", "rekey", JOBS)  # what computes or reads results


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, one line on what it does, the commands that read it (whose ``--help``
    lists it) and how its value is checked (``folder``: it must name a folder; ``existing``: if it names
    anything, a folder; ``whole``: a positive whole number; ``folders``: folders separated by ``os.pathsep``;
    None: any value)."""

    name: str
    what: str
    commands: tuple[str, ...]
    check: str | None = None


VARIABLES = (
    Variable("ENTROPIC_RESULTS", "the results store, results/<profile>/<section>/ (default: results/ at the root)",
             (*COMPUTING, "prune"), "existing"),
    Variable("ENTROPIC_BUILD", "the executed pages and their tables (default: build/ at the root)", ("book", "run"),
             "existing"),
    Variable("ENTROPIC_PROFILES", "a folder of parameter profiles used instead of notebooks/params/",
             (*COMPUTING, "prune", "profiles", "params"), "folder"),
    Variable("ENTROPIC_SECTIONS", "folders of section modules of one's own (separated by ':'), searched after "
             "lib/entropic/sections/", (*COMPUTING, "prune", "sections", "params"), "folders"),
    Variable("ENTROPIC_CORPORA", "a folder of <corpus>.txt files that App. B and the capacity sweep read first",
             (*COMPUTING, "corpora"), "folder"),
    Variable("ENTROPIC_SHARED_CORPORA", "the shared corpora folder, instead of ../shared/corpora beside the clone "
             "(a missing one is passed over)", (*COMPUTING, "corpora"), "existing"),
    Variable("ENTROPIC_CACHE", "the cache of downloaded corpora, <folder>/corpora (default: "
             "$XDG_CACHE_HOME/entropic or ~/.cache/entropic)", (*COMPUTING, "corpora"), "existing"),
    Variable("ENTROPIC_MAX_THREADS", "the most torch threads a job takes (a machine shared with other work)",
             COMPUTING, "whole"),
    Variable("ENTROPIC_PAGE_WORKERS", "pages rendered at once (default: one per CPU core)", ("book", "run"), "whole"),
    Variable("ENTROPIC_NO_HTML", "non-empty: render the pages, skip the HTML (as book --no-html)", ("book", "run")),
    Variable("ENTROPIC_REPOSITORY", "the repository the pages link to (the publishing workflow sets it)",
             ("book", "run")),
    Variable("ENTROPIC_COMMIT", "the commit a result's provenance records, in a copy without git history",
             COMPUTING),
    Variable("ENTROPIC_BUILD_LOG", "a file to which each page rendered, book built and PDF printed adds a line (the "
             "tests count them)", ("book", "run")),
    Variable("ENTROPIC_PAPER_BOOK", "non-empty: make book has built the paper book in _build/: its tests run, the "
             "tests of make book read it, and make pdf prints it for the PDF's (make check and .ci/run set it)", ()),
    Variable("ENTROPIC_SKIP_BROWSER", "non-empty: the tests that open a browser are skipped (without it, a missing "
             "chromium fails them)", ()),
    Variable("ENTROPIC_NETWORK_TESTS", "non-empty: the test that downloads a corpus from Debian's archive runs", ()),
)


def check(command: str | None = None) -> None:
    """Refuse, in one line naming the variable and its value, the first set variable read by ``command`` (every
    declared one when None) whose value fails its check."""
    for variable in VARIABLES:
        value = os.environ.get(variable.name)
        if value is None or variable.check is None or (command is not None and command not in variable.commands):
            continue
        problem = _problem(variable, value)
        if problem:
            raise ValueError(f"{problem} (the environment variable {variable.name} names {variable.what})")


def _problem(variable: Variable, value: str) -> str:
    """What is wrong with ``value`` for ``variable`` ("" when nothing is)."""
    if variable.check == "whole":
        fine = value.strip().isdigit() and int(value) >= 1
        return "" if fine else f"{variable.name} must be a positive whole number, got {value!r}"
    folders = [part for part in value.split(os.pathsep) if part] if variable.check == "folders" else [value]
    for folder in folders:
        path = Path(folder).expanduser()
        if variable.check == "existing" and path.exists() and not path.is_dir():
            return f"{variable.name}={value}: {folder} is not a folder"
        if variable.check in ("folder", "folders") and not path.is_dir():
            return f"{variable.name}={value}: there is no folder {folder}"
    return ""


def described(command: str) -> str:
    """The environment variables ``command`` reads, one line each (for its ``--help``)."""
    read = [v for v in VARIABLES if command in v.commands]
    if not read:
        return ""
    width = max(len(v.name) for v in read)
    return "environment variables:\n" + "\n".join(f"  {v.name:<{width}}  {v.what}" for v in read)
