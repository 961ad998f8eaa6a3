"""A copy of the project in which the documented commands run as printed from a fresh shell (no virtual environment on
its PATH), and the books they build there once per test run (the fixtures of conftest.py).

The copy holds the project's files (this virtual environment linked in) with every profile replaced by the tiny one,
so the commands finish in seconds. Its results store starts with the tiny results the session already computed
(every profile being tiny, their job ids are the same under every label), so the commands compute only what their
own parameters add, and its paper book is rendered once, by ``make book``, when the template is made; the commands run
with the HTML build skipped (ENTROPIC_NO_HTML) except where a test reads it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from entropic import paths
from entropic.publish import build as book
from entropic.publish import site

MAKE_INPUTS = ("pyproject.toml", "requirements.lock", "requirements-cffconvert.lock")  # what the stamp depends on


def fresh_shell() -> dict[str, str]:
    """The environment of a fresh shell: this one's, without the virtual environment (activated or not)."""
    venv = (paths.ROOT / ".venv").resolve()
    kept = [p for p in os.environ["PATH"].split(os.pathsep) if p and not Path(p).resolve().is_relative_to(venv)]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return {**env, "PATH": os.pathsep.join(kept)}


def environment(root: Path) -> dict[str, str]:
    """The fresh shell the commands run from in the copy at ``root``: its own code, results and pages, the shared
    corpora, and no HTML build (a command that needs one clears ENTROPIC_NO_HTML)."""
    # PYTHONPATH makes the copy's code the one that runs (this virtual environment's install points at the clone).
    return {**checkout_shell(), "PYTHONPATH": str(root / "lib"), "ENTROPIC_NO_HTML": "1",
            "ENTROPIC_SHARED_CORPORA": str(paths.ROOT.parent / "shared" / "corpora")}


def checkout_shell() -> dict[str, str]:
    """A fresh shell that reads and writes the results and pages of the checkout it runs in, not the test session's
    (no ENTROPIC_RESULTS, ENTROPIC_BUILD)."""
    return {k: v for k, v in fresh_shell().items() if k not in ("ENTROPIC_RESULTS", "ENTROPIC_BUILD")}


def run(command: str, root: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess:
    """``command`` as printed, from the fresh shell ``env``, in the copy at ``root``."""
    return subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)


def copy_project(root: Path, untracked: bool = True) -> None:
    """Copy the project's files into ``root``: those git tracks, and (``untracked``) those it would track (not
    ignored); without them, what a clone of the repository holds."""
    listed = ["git", "ls-files", "--cached", *(["--others", "--exclude-standard"] if untracked else [])]
    for name in subprocess.run(listed, cwd=paths.ROOT, capture_output=True, text=True, check=True).stdout.split():
        if (paths.ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(paths.ROOT / name, root / name)


def template(root: Path) -> None:
    """Fill ``root`` with the project's files with every profile tiny, the session's tiny results as every label's,
    and the paper book rendered by ``make book`` (whose output is checked here: it renders every page)."""
    copy_project(root)
    tiny = (paths.PROFILES / "tiny.yaml").read_text()
    for profile in (root / "notebooks" / "params").glob("*.yaml"):
        profile.write_text(tiny)
    shutil.rmtree(root / "results", ignore_errors=True)
    for label in ("quick", "paper"):  # every profile is tiny here: the session's tiny results are theirs
        shutil.copytree(paths.RESULTS / "tiny", root / "results" / label, ignore=shutil.ignore_patterns(".partial"))
    (root / "build" / "sections").mkdir(parents=True)
    # The theory page reads no results: current at every profile. The teaching page reads two sections' at the book's
    # profile and renders again, its experiments read back from the tiny book's (publish/memo.py).
    shutil.copy(paths.EXECUTED / "theory.ipynb", root / "build" / "sections" / "theory.ipynb")
    shutil.copytree(paths.BUILD / "computed", root / "build" / "computed")
    (root / ".venv").symlink_to(paths.ROOT / ".venv")
    # The copy's install inputs are no newer than the shared environment's stamp, so that make never reinstalls
    # the project from the copy into that environment (its editable install would then point at the copy).
    stamp = paths.ROOT / ".venv" / ".installed-stamp"
    if stamp.exists():
        for name in MAKE_INPUTS:
            if (root / name).exists():
                os.utime(root / name, (stamp.stat().st_mtime - 1, stamp.stat().st_mtime - 1))
    done = run("make book", root, environment(root))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rendered = {line.split(":")[0].removeprefix("[entropic] ") for line in done.stdout.splitlines()
                if line.endswith("rendering the page")}
    assert set(book.toc_sections(root)) <= rendered, done.stdout[-2000:]  # every section page, from its results


def copy(template_root: Path, root: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the template at ``root`` (its own folder, so that its commands change only it), with the fresh
    shell its commands run from."""
    shutil.copytree(template_root, root, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".built"))
    return root, environment(root)


# The README's two commands that build the book a reader opens: the HTML (make book) and the PDF (make pdf).
BOOK_COMMANDS = ("make book", "make pdf")


@dataclass(frozen=True)
class Book:
    """A book built by ``make book`` and ``make pdf`` as printed: its root, the exit status and last lines of each
    command this test run ran (a command missing from them did not run: one before it failed), and the commands that
    ran in this checkout before the test run (``before``: ``make book``, under ENTROPIC_PAPER_BOOK)."""

    root: Path
    ran: dict[str, tuple[int, str]]
    before: tuple[str, ...] = ()

    @property
    def html(self) -> Path:
        """The HTML book's folder (its index.html at the top)."""
        return self.root / "_build" / "html"

    @property
    def single_page(self) -> Path:
        """The single page that ``make pdf`` prints (publish/pdf.py:build_pdf)."""
        return self.root / "_build" / "singlehtml" / "whole-book.html"

    @property
    def pdf(self) -> Path:
        return self.root / "_build" / "pdf" / site.PDF_NAME


def run_in_turn(commands: tuple[str, ...], root: Path, env: dict[str, str], folder: Path) -> None:
    """``commands`` as printed, in turn, in ``root`` from the fresh shell ``env``; each one's exit status and last
    lines go to ``folder/ran.json`` (a command that fails leaves the next unrun, and the tests that read the book say
    so)."""
    ran = {}
    for command in commands:
        done = run(command, root, env)
        ran[command] = (done.returncode, f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        if done.returncode:
            break
    (folder / "ran.json").write_text(json.dumps(ran))


def ran_in(folder: Path) -> dict[str, tuple[int, str]]:
    """What :func:`run_in_turn` left in ``folder``."""
    return {command: tuple(status) for command, status in json.loads((folder / "ran.json").read_text()).items()}


def build_book(template_root: Path, folder: Path) -> None:
    """In a copy of the template (``folder/project``), ``make book`` (its HTML too) and then ``make pdf``, as printed
    from a fresh shell (:func:`run_in_turn`)."""
    root, env = copy(template_root, folder / "project")
    run_in_turn(BOOK_COMMANDS, root, {**env, "ENTROPIC_NO_HTML": ""}, folder)


def built_book(folder: Path) -> Book:
    """The book :func:`build_book` left in ``folder``."""
    return Book(folder / "project", ran_in(folder))


def print_paper_book(folder: Path) -> None:
    """``make pdf`` as printed from a fresh shell in this checkout, where ``make book`` has built the paper book
    (ENTROPIC_PAPER_BOOK): its pages current, it prints them (:func:`run_in_turn`)."""
    run_in_turn(("make pdf",), paths.ROOT, checkout_shell(), folder)
