"""Shared fixtures. The results store and the build folder of the whole test session live in a
temporary folder (``ENTROPIC_RESULTS``, ``ENTROPIC_BUILD``, set before ``entropic`` is imported and
inherited by notebook kernels), so tests never touch the working tree's results or pages."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

_SESSION = Path(tempfile.mkdtemp(prefix="entropic-tests-"))
os.environ["ENTROPIC_RESULTS"] = str(_SESSION / "results")
os.environ["ENTROPIC_BUILD"] = str(_SESSION / "book" / "build")
# Each page rendered, book built and PDF printed adds a line to ENTROPIC_BUILD_LOG (publish/build.py:record), in
# this process and in every command and kernel it starts; under make test's two processes each writes a file of
# its own beside the run's (the name the first process set), so that the lines written during a test are its own.
_BUILD_LOG = os.environ.setdefault("ENTROPIC_BUILD_LOG", str(_SESSION / "builds.log"))
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["ENTROPIC_BUILD_LOG"] = f"{_BUILD_LOG}.{os.environ['PYTEST_XDIST_WORKER']}"

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import sandbox  # noqa: E402
from entropic import paths  # noqa: E402
from entropic.publish import build as book  # noqa: E402

# The teaching and theory pages' experiments are stored per version of the library (publish/memo.py: a digest of its
# files, the thread count, the packages' versions). Those this checkout's own pages stored (its make book: in CI, the
# paper book built before the suite) are this version's values to the last bit: the session starts with them, and
# computes only the versions they lack (a fresh clone's suite computes them all). The ledger rows stored beside them
# are keyed by the checkout's section pages, which no page of the session's results asks for.
if (paths.ROOT / "build" / "computed").is_dir():
    shutil.copytree(paths.ROOT / "build" / "computed", paths.BUILD / "computed", dirs_exist_ok=True)

# ``make test`` runs the suite in two processes (pytest-xdist): each takes its share of the cores, since two
# torch processes each on every core slow each other several times over: this process, the kernels and
# commands it starts (OMP_NUM_THREADS) and every job they run (ENTROPIC_MAX_THREADS caps a section's THREADS).
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    _SHARE = max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    os.environ["OMP_NUM_THREADS"] = os.environ["ENTROPIC_MAX_THREADS"] = str(_SHARE)
    torch.set_num_threads(_SHARE)

# Tests sharing an expensive module- or session-wide fixture run in one process, which builds it once. The marks are
# added before pytest-xdist reads them (tryfirst: its hook, registered later, would otherwise run first, seeing none).
SHARED = {"tiny_html": "html", "readme_book": "readme book", "scheduler": "cluster"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        for fixture, group in SHARED.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break
    if os.environ.get("PYTEST_XDIST_WORKER"):  # make test's processes collect; xdist hands out in their order
        items.sort(key=_turn)


# The order make test's two processes take the work in (pytest-xdist hands out groups and tests in the order collected,
# as pytest_configure asks, not the largest group first). The group whose first command builds the tiny book and then
# the sandbox's paper book (two minutes) goes first, to one process. The other runs meanwhile the slow work that needs
# neither (the wheel, the cluster) and then the tiny HTML book's tests, which need the tiny book only, and the longest
# tests in no group (a copy with no sibling folder, the paper book read in a browser), so that none of them is left to
# run alone at the end; then the groups that need the sandbox, the longest first; then every other test, in the order
# collected, shared out at the end.
FIRST = ("documented commands 1", "tests/test_wheel.py", "cluster", "html", "tests/test_lone_clone.py",
         "tests/test_paper_book.py", "damaged sandbox", "documented commands 0", "readme book")  # groups, or files


def _turn(item) -> int:
    mark = item.get_closest_marker("xdist_group")
    unit = (mark.args[0] if mark.args else mark.kwargs["name"]) if mark else item.nodeid.split("::")[0]
    return FIRST.index(unit) if unit in FIRST else len(FIRST)


def pytest_configure(config):
    if getattr(config.option, "dist", None) == "loadgroup":
        config.option.loadscopereorder = False  # hand the work out in the order above


# A heartbeat: the process that reports (make test's controller, or a plain pytest run) says every TICK seconds in which
# no test ended which tests are running and for how long, so that a long test (a book built, a wheel installed) never
# leaves the terminal silent for minutes.
TICK = 10
_RUNNING: dict[str, float] = {}  # test -> when it started
_QUIET_SINCE = [0.0]  # when the last test ended or the heartbeat last spoke


def pytest_sessionstart(session):
    import threading
    import time

    if os.environ.get("PYTEST_XDIST_WORKER") or session.config.option.collectonly:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    _QUIET_SINCE[0] = time.monotonic()

    def beat():
        while True:
            time.sleep(1)
            now = time.monotonic()
            if now - _QUIET_SINCE[0] >= TICK and _RUNNING and reporter is not None:
                _QUIET_SINCE[0] = now
                running = sorted(_RUNNING.items(), key=lambda item: item[1])
                reporter.write_line("[tests] running: " + "; ".join(
                    f"{test.split('@')[0]} ({now - began:.0f} s)" for test, began in running[:3])
                    + (f"; and {len(running) - 3} more" if len(running) > 3 else ""))

    threading.Thread(target=beat, daemon=True).start()


def pytest_runtest_logstart(nodeid, location):
    import time

    _RUNNING.setdefault(nodeid, time.monotonic())


def pytest_runtest_logfinish(nodeid, location):
    import time

    _RUNNING.pop(nodeid, None)
    _QUIET_SINCE[0] = time.monotonic()


def pytest_collection_finish(session):
    """Under ``make test`` (pytest-xdist's loadgroup) every grouped test's id carries its group, which is how xdist
    keeps a group in one process; where it does not (pytest 9.2 ignores the id xdist 3.8 sets), each such test fails
    saying so, instead of every shared book being built in both processes unnoticed."""
    if getattr(session.config.option, "loadgroup", False):
        for item in session.items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid.rsplit("]", 1)[-1]:
                item.runtest = functools.partial(pytest.fail, "pytest-xdist did not keep this test's group in one "
                                                 "process: install the pytest of requirements.lock", pytrace=False)


# What each test built: the lines its setup, call and teardown added to this process's build log travel with its
# reports (to the first process under make test), and the run ends with their count, the tests that did most first.
_LOGGED = 0  # lines of this process's build log already given to a report
_BUILT: dict[str, list[str]] = {}  # test -> the lines it added


# A clone without App. B's pinned corpora (no sibling ../shared/corpora, nothing fetched by make corpora): a test
# that fails because one of them is not on this machine is skipped, naming the corpus and how to get it; the run
# ends saying how many were skipped, or that every corpus was found.
_MISSING_CORPUS = re.compile(r"corpus '(\w+)' not found|No such file or directory: '[^']*/corpora/(\w+)\.txt'"
                             r"|corpus '(\w+)', which .* is on no path of this machine")
_SKIPPED_FOR: dict[str, set[str]] = {}  # corpus -> the tests skipped for it


def missing_corpus(error: BaseException) -> str | None:
    """The pinned corpus whose absence made ``error`` (any exception in its chain names it), when it is indeed found
    nowhere on this machine; None for any other failure."""
    from entropic.engine.corpus import corpora

    seen = []
    while error is not None and all(error is not e for e in seen):
        seen.append(error)
        error = error.__cause__ or error.__context__
    for found in (m for e in seen for m in [_MISSING_CORPUS.search(str(e))] if m):
        name = found[1] or found[2] or found[3]
        try:
            corpora.locate_corpus(name, substitute=False)
        except corpora.CorpusUnavailable:
            return name
        return None
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    global _LOGGED
    report = (yield).get_result()
    corpus = missing_corpus(call.excinfo.value) if report.failed and call.excinfo else None
    if corpus:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           f"Skipped: needs App. B's pinned corpus {corpus!r}, which is not on this machine: "
                           f"make corpora fetches it (or put it in a folder named by ENTROPIC_CORPORA)")
        report.user_properties.append(("missing corpus", corpus))
    log = Path(os.environ["ENTROPIC_BUILD_LOG"])
    lines = log.read_text().splitlines() if log.exists() else []
    if len(lines) > _LOGGED:
        report.user_properties.append(("built", lines[_LOGGED:]))
    _LOGGED = len(lines)


def pytest_runtest_logreport(report):
    for name, value in report.user_properties:
        if name == "built":
            _BUILT.setdefault(report.nodeid, []).extend(value)
        elif name == "missing corpus":
            _SKIPPED_FOR.setdefault(value, set()).add(report.nodeid)


def _counted(lines: list[str]) -> str:
    """``render``, ``book`` and ``print`` lines (publish/build.py:record) in words: how many pages rendered, at which
    profiles, how many books built, by which builder, and how many PDFs printed."""
    from collections import Counter

    rows = [line.split("\t") for line in lines]
    renders = Counter(row[2] for row in rows if row[0] == "render")
    books = Counter(row[1] for row in rows if row[0] == "book")
    prints = sum(row[0] == "print" for row in rows)
    return ", ".join([f"pages rendered {sum(renders.values())}"
                      + (f" ({', '.join(f'{p} {n}' for p, n in sorted(renders.items()))})" if renders else ""),
                      f"books built {sum(books.values())}"
                      + (f" ({', '.join(f'{b} {n}' for b, n in sorted(books.items()))})" if books else ""),
                      f"PDFs printed {prints}"])


def pytest_terminal_summary(terminalreporter):
    if os.environ.get("PYTEST_XDIST_WORKER") or terminalreporter.config.option.collectonly:
        return
    write = terminalreporter.write_line
    terminalreporter.write_sep("=", "App. B's corpora")
    if _SKIPPED_FOR:
        tests = set().union(*_SKIPPED_FOR.values())
        write(f"{len(tests)} tests skipped: they need {', '.join(sorted(_SKIPPED_FOR))}, not on this machine "
              "(make corpora fetches the six corpora)")
    else:
        write("no test was skipped for a missing corpus")
    terminalreporter.write_sep("=", "pages rendered and books built")
    write("all tests: " + _counted([line for lines in _BUILT.values() for line in lines]))
    files: dict[str, list[str]] = {}
    for test, lines in _BUILT.items():
        files.setdefault(test.split("::")[0], []).extend(lines)
    for name, lines in sorted(files.items(), key=lambda item: -len(item[1])):
        write(f"{name}: {_counted(lines)}")
    for test, lines in sorted(_BUILT.items(), key=lambda item: -len(item[1]))[:25]:
        write(f"  {test}: {_counted(lines)}")


# The header of a MyST notebook, for tests that write a page of their own.
MYST_HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder ``build(folder)`` fills, built once per test run: under ``make test``'s two processes the
    first to ask builds it while the other waits (a lock in the run's shared temporary folder), and both read
    the same folder; a build that fails leaves no folder, so the next process to ask builds it again."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    import fcntl

    shared = tmp_path_factory.getbasetemp().parent
    folder = shared / name
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            (folder / ".built").touch()
    return folder


@pytest.fixture(scope="session")
def tiny_book(tmp_path_factory) -> Path:
    """A book root with every section of the table of contents rendered at the ``tiny`` profile (its pages
    in the session's build folder, its results in the session's store); rendered once per test run."""
    root = _SESSION / "book"

    def render(folder: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        for name in ("_config.yml", "_toc.yml"):
            shutil.copy(paths.ROOT / name, root / name)
        shutil.copytree(paths.BOOK_SOURCES, root / "book", dirs_exist_ok=True)
        shutil.copytree(paths.ROOT / "_assets", root / "_assets", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("mathjax"))
        book.execute_all([(name, "tiny", {}) for name in book.toc_notebooks()], log=lambda *_: None)
        shutil.copytree(root, folder / "book")
        shutil.copytree(paths.RESULTS / "tiny", folder / "results", ignore=shutil.ignore_patterns(".partial"))

    rendered = built_once(tmp_path_factory, "tiny-book", render)
    if not (root / "_toc.yml").exists():  # rendered by the other process: this session's copy
        shutil.copytree(rendered / "book", root, dirs_exist_ok=True)  # a test may have written build/ already
        shutil.copytree(rendered / "results", paths.RESULTS / "tiny", dirs_exist_ok=True)
    return root


@pytest.fixture(scope="session")
def tiny_html(tiny_book) -> Path:
    """The HTML of the tiny book, built once with warnings as errors: its index.html."""
    return book.build(root=tiny_book, log=lambda *_: None)


@pytest.fixture(scope="session")
def sandbox_template(tmp_path_factory, tiny_book) -> Path:
    """A copy of the project with every profile tiny, the session's tiny results as every label's and its paper book
    rendered (``sandbox.template``), where the documented commands run; made once per test run, and each test
    that changes it works in a copy of its own (``sandbox.copy``)."""
    return built_once(tmp_path_factory, "sandbox", sandbox.template)


@pytest.fixture(scope="session")
def readme_book(request, tmp_path_factory) -> sandbox.Book:
    """The book a reader opens, as the README's ``make book`` and ``make pdf`` build it, once per test run for every
    test that reads it (those of the two commands, the PDF's): built in a copy of the sandbox; or, where
    ENTROPIC_PAPER_BOOK says that ``make check`` (or ``.ci/run``) has run ``make book`` in this checkout before the
    tests, the paper book it left in ``_build/``, which ``make pdf`` prints here, as printed, while the other process
    goes on with other tests (printed before the tests, its minute was one of the run's on a single core)."""
    if os.environ.get("ENTROPIC_PAPER_BOOK"):
        index = paths.ROOT / "_build" / "html" / "index.html"
        if not index.is_file():
            pytest.fail(f"ENTROPIC_PAPER_BOOK is set, but there is no {paths.shown(index)}: run make book first "
                        f"(make check does)")
        printed = built_once(tmp_path_factory, "paper-pdf", sandbox.print_paper_book)
        return sandbox.Book(paths.ROOT, sandbox.ran_in(printed), before=("make book",))
    template = request.getfixturevalue("sandbox_template")
    return sandbox.built_book(built_once(tmp_path_factory, "readme-book",
                                         lambda folder: sandbox.build_book(template, folder)))


@pytest.fixture(scope="session")
def tiny_tables(tiny_book):
    """Read a table a tiny page wrote: ``tiny_tables("surrogate", "table1")``."""

    def read(section: str, name: str, **kwargs) -> pd.DataFrame:
        return pd.read_csv(paths.TABLES / "tiny" / section / f"{name}.csv", **kwargs)

    return read


def cli(args, capsys) -> tuple[int, str, str]:
    """The command line run in this process: (exit status, what it printed, what it said on stderr)."""
    from entropic.__main__ import main

    code = main(args)
    out = capsys.readouterr()
    return code, out.out.strip(), out.err.strip()


def check_verdicts(table: pd.DataFrame) -> None:
    """Every verdict of a comparison table follows from its own row: the criterion of its kind, the value
    rule (``verdicts.value_check`` from ours, the paper's number, the seed standard error) and, for a sign
    claim, the p-value."""
    import math

    from entropic.report import verdicts

    for quantity, row in table.iterrows():
        assert row["criterion"] == verdicts.CRITERIA[row["kind"]], quantity
        if row["verdict"] == verdicts.UNDEFINED:
            assert "undefined" in quantity and math.isnan(row["ours"]) and not row["claim holds"]
            continue
        ranged = row.get("paper range")
        claim = verdicts.Claim(row["paper says"], None if pd.isna(row["paper value"]) else row["paper value"], "",
                               range=tuple(ranged) if isinstance(ranged, (tuple, list)) else None)
        spread = row.get("spread")
        agrees, _ = verdicts.value_check(row["ours"], claim, row["se"], bool(row["exact"]), bool(row["upper bound"]),
                                         tuple(spread) if isinstance(spread, (tuple, list)) else None)
        assert agrees == (None if pd.isna(row["value agrees"]) else bool(row["value agrees"])), quantity
        if row["verdict"] == verdicts.UNDECIDED:  # a declared rule leaves it open, and the row names why
            assert isinstance(row["undecided"], str) and row["undecided"], quantity
            continue
        signed = row["kind"] in verdicts.SIGNED and not pd.isna(row["p"])
        significant = bool(row["p"] < verdicts.SIGNIFICANCE) if signed else None
        assert row["verdict"] == verdicts.verdict(bool(row["claim holds"]), agrees, significant), quantity


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy section (tests/toy_section.py), found by the registry from its module file alone."""
    import textwrap

    import toy_section
    from entropic import registry, sections

    folder = tmp_path / "extra_sections"
    folder.mkdir()
    (folder / "toy.py").write_text(textwrap.dedent(toy_section.TOY))
    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(folder)])
    notebooks = tmp_path / "notebooks"
    (notebooks / "params").mkdir(parents=True)
    (notebooks / "toy.md").write_text(toy_section.NOTEBOOK)
    (notebooks / "params" / "quick.yaml").write_text("toy:\n  seeds: [0, 1, 2]\n")
    monkeypatch.setattr(paths, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(paths, "PROFILES", notebooks / "params")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "TABLES", tmp_path / "tables")
    module = registry.module("toy")
    module.CALLS.clear()
    module.FAIL_AT = module.NAN_AT = None
    yield module
    sys.modules.pop("entropic.sections.toy", None)
