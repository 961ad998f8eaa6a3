"""Every command that the README and the pages show runs as printed from a fresh shell (no virtual
environment on its PATH), the commands the pages' banners print included; the paper book warns, never
breaks, when its stored results are missing, stale or corrupt; and a fault of the input is one line.

The commands run in a copy of the project whose profiles are all replaced by the tiny one (tests/sandbox.py, made once
per test run with its paper book rendered), so they finish in seconds. ``make book`` and ``make pdf``, which build the
book a reader opens, run once per test run for these tests and the PDF's (conftest.readme_book: in a copy of the
sandbox, or the paper book that make check built in this checkout); a command that shows the book at another profile
(``make book PROFILE=quick``, every page rendered again) runs as ``make --dry-run`` (shows_another_profile says what
tests the rest). ``make test`` (this suite), ``make bench`` (minutes of timing) and ``make corpora`` (a download from
the corpora's public sources, which no test may need; tests/engine/corpus/test_corpus_command.py runs it against a
mirror served on this machine) are the three commands not run here.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

from entropic import paths
from entropic.jobs import runner
from entropic.publish import build as book
from sandbox import BOOK_COMMANDS, copy, fresh_shell, run

pytestmark = pytest.mark.integration
DOCUMENTS = ["README.md", *sorted(str(p.relative_to(paths.ROOT)) for p in paths.BOOK_SOURCES.glob("*.md")),
             *sorted(str(p.relative_to(paths.ROOT)) for p in paths.NOTEBOOKS.glob("*.md"))]
NOT_RUN = ("make test", "make bench", "make corpora")


def documented_commands() -> list[tuple[str, str]]:
    """(documents, command) for every distinct command in a ```bash block, in order of appearance."""
    found: dict[str, list[str]] = {}
    for document in DOCUMENTS:
        for block in re.findall(r"```bash\n(.*?)```", (paths.ROOT / document).read_text(), re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command and not command.startswith(("#", *NOT_RUN)):  # a comment line says what follows
                    found.setdefault(command, []).append(document)
    return [(", ".join(documents), command) for command, documents in found.items()]


def test_the_documents_show_commands_and_each_is_collected():
    commands = [c for _, c in documented_commands()]
    assert "make book" in commands and any(c.startswith("make section") for c in commands)
    assert any(c.startswith(".venv/bin/python -m entropic run") for c in commands)
    assert not [c for c in commands if c.startswith("python")]  # no fresh shell has the project's python on PATH


def shows_another_profile(command: str) -> bool:
    """Whether a command renders the book's pages at a profile other than the book's own (paper): every page again,
    a minute of the suite's two (``make book PROFILE=quick``). Such a command runs as ``make --dry-run``, which
    checks that make takes it and passes the profile on to ``entropic book``; that ``entropic book`` renders every
    page at a profile with no committed results is what the tiny book does (conftest.tiny_book: every page, at the
    ``tiny`` profile, read by the tests of the sections and of the HTML book) and tests/publish/test_book.py."""
    return "PROFILE=" in command or "--book-profile" in command


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory, sandbox_template):
    """A copy of the sandbox with its paper book rendered, for this process's commands (each process of ``make test``
    works in a copy of its own)."""
    return copy(sandbox_template, tmp_path_factory.mktemp("project"))


def command_groups(commands: list[str]) -> list[int]:
    """The group (0 or 1) each command runs in: the commands of one section (``S=<section>``, ``run <section>``) run
    in one group, in the order printed, so that those printed with the same parameters compute them once; the
    sections, and the commands of none, alternate between the two groups in order of first appearance."""
    keys = [(found[1] or found[2]) if (found := re.search(r"\bS=(\w+)|entropic run (\w+)", command)) else command
            for command in commands]
    first = list(dict.fromkeys(keys))
    return [first.index(key) % 2 for key in keys]


COMMANDS = documented_commands()


# The documented commands run in two groups (command_groups) and the three tests that damage and mend a copy in a
# third, so that ``make test``'s two processes can share them out evenly; each process works in a sandbox of its own
# (a copy of the template), and the documented commands never damage theirs. make book and make pdf run once for
# every test that reads the book they build (conftest.readme_book), in the group of those tests.
@pytest.mark.parametrize("document, command", [
    pytest.param(document, command, marks=pytest.mark.xdist_group("readme book" if command in BOOK_COMMANDS
                                                                  else f"documented commands {group}"))
    for (document, command), group in zip(COMMANDS, command_groups([command for _, command in COMMANDS]),
                                          strict=True)])
def test_a_documented_command_works_as_printed(request, tmp_path, document, command):
    if command in BOOK_COMMANDS:
        built = request.getfixturevalue("readme_book")
        if command in built.before:  # make check ran it in this checkout before the tests: what it left
            made = ([built.html / "index.html"] + [built.html / book.TOC_FOLDER / f"{name}.html"
                                                   for name in book.toc_notebooks(built.root)]
                    if command == "make book" else [built.pdf, built.single_page])
            assert all(path.is_file() for path in made), [str(path) for path in made if not path.is_file()]
            return
        status, said = built.ran.get(command, (None, "not run: a command before it failed"))
        assert status == 0, f"{document}: {command}\n{said}"
        return
    root, env = request.getfixturevalue("sandbox")
    if shows_another_profile(command):  # its make line (shows_another_profile)
        assert command.startswith("make "), f"{document}: {command} shows another profile, and is no make command"
        profile = re.search(r"PROFILE=(\w+)", command)[1]
        done = run(f"make --dry-run {command.removeprefix('make ')}", root, env)
        assert done.returncode == 0, f"{document}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert f"-m entropic book --profile {profile}" in done.stdout, done.stdout[-2000:]
        return
    done = run(command, root, env)
    assert done.returncode == 0, f"{document}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


@pytest.mark.xdist_group("damaged sandbox")
def test_a_custom_run_survives_the_next_make_book(sandbox):
    """The custom run's results stay beside the profile's, and the next make book shows the profile's page again: the
    page rendered before the run, restored with its tables, not rendered again."""
    root, env = sandbox
    page, table = root / "build" / "sections" / "surrogate.ipynb", root / "build" / "tables" / "paper" / "surrogate"
    shown, tables = page.read_text(), {p.name: p.read_text() for p in table.glob("*.csv")}
    for command in ('make section S=surrogate P="r_star=2"', "make book"):
        done = run(command, root, env)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert list((root / "results" / "custom" / "surrogate").glob("*.json"))  # the custom run is kept
    assert list((root / "results" / "quick" / "surrogate").glob("*.json"))  # beside the profile's
    assert "[entropic] surrogate: page restored" in done.stdout, done.stdout[-2000:]
    assert page.read_text() == shown and '"overrides": {}' in shown  # the page shows the profile again
    assert tables and {p.name: p.read_text() for p in table.glob("*.csv")} == tables


def _outputs(page: Path, streams: bool = False) -> list[str]:
    """The Markdown each output of an executed page shows (its banner and notes among them), with what it prints
    where ``streams``."""
    def shown(output: dict) -> str:
        markdown = "".join(output.get("data", {}).get("text/markdown", ""))
        return markdown + "".join(output.get("text", "")) if streams else markdown

    return [shown(output) for cell in json.loads(page.read_text())["cells"] for output in cell.get("outputs", [])]


def _shown_markdown(page: Path) -> str:
    return "".join(_outputs(page))


def printed_commands(pages: Path) -> list[str]:
    """Every command the executed pages print (in backquotes, in their outputs: banners and notes)."""
    found = [command for page in sorted(pages.glob("*.ipynb")) for text in _outputs(page, streams=True)
             for command in re.findall(r"`((?:\.venv/bin/python -m entropic|python -m entropic|make) [^`]+)`", text)]
    return list(dict.fromkeys(found))


@pytest.mark.xdist_group("damaged sandbox")
def test_the_paper_book_warns_instead_of_breaking_and_its_freshness_follows_the_code(sandbox):
    """One paper entry missing (predictability), one corrupt (ablation), and an engine edit that stales
    the surrogate's data-only jobs: the book's pages render (exit 0) and each says what is wrong in a warning
    admonition, never in a log line; reverting the edit clears the surrogate's warning; and each command
    the pages print runs as printed from a fresh shell and mends what its page says. (The pages only: that MyST
    turns a page's admonition into the book's HTML is Sphinx's part, built and read by the tests of the book.) The
    two damaged sections are among those no page but the ledger and the intro reads, so that mending each renders
    three pages again, not the teaching page too."""
    root, env = sandbox
    store_root = root / "results" / "paper"
    next(iter(sorted((store_root / "predictability").glob("*.json")))).unlink()
    damaged = next(iter(sorted((store_root / "ablation").glob("*.json"))))
    damaged.write_text(damaged.read_text()[:200])
    estimators = root / "lib" / "entropic" / "engine" / "synthetic" / "estimators.py"
    original = estimators.read_text()
    edited = original.replace("2.0 *", "2.5 *", 1) if "2.0 *" in original else original.replace("2 *", "3 *", 1)
    assert edited != original
    estimators.write_text(edited)
    executed = root / "build" / "sections"
    try:
        done = run("make book", root, env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        for name, words in (("predictability", "Partial results"), ("ablation", "Unreadable results"),
                            ("surrogate", "Stale results")):
            assert f"```{{warning}}\n**{words}:**" in _shown_markdown(executed / f"{name}.ipynb"), name
        assert "Stale results" not in _shown_markdown(executed / "ladder.ipynb")  # the edit reaches the surrogate only
        unreadable = _shown_markdown(executed / "ablation.ipynb")
        assert "not computed yet" not in unreadable and "--force" not in unreadable  # corrupt, and the plain command
    finally:
        estimators.write_text(original)
    assert not [p.name for p in executed.glob("*.ipynb") if "[entropic]" in p.read_text()]  # no log line on a page
    printed = printed_commands(executed)
    assert any("run predictability" in c for c in printed) and any("run ablation" in c for c in printed)
    custom = runner.resume_command("surrogate", "quick", {"r_star": 2, "seeds": [0]})  # an interrupt's, with a list
    for command in [*printed, custom]:
        ran = subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=900)
        assert ran.returncode == 0, f"{command}\n{ran.stdout[-2000:]}\n{ran.stderr[-2000:]}"
    done = subprocess.run("make book", shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("surrogate", "predictability", "ablation"):
        text = (executed / f"{name}.ipynb").read_text()
        assert "Stale results" not in text and "Partial results" not in text and "Unreadable" not in text, name


@pytest.mark.xdist_group("damaged sandbox")
def test_the_ledger_renders_again_when_a_stored_entry_it_reads_changes(sandbox):
    root, env = sandbox
    for _ in range(2):  # the second finds every page current
        book = subprocess.run("make book", shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert book.returncode == 0 and "[entropic] ledger: page is current" in book.stdout, book.stdout[-2000:]
    next(iter(sorted((root / "results" / "paper" / "ablation").glob("*.json")))).unlink()
    book = subprocess.run("make book", shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert book.returncode == 0, book.stderr[-2000:]
    assert "[entropic] ledger: rendering the page" in book.stdout and "[entropic] ablation: rendering" in book.stdout
    assert "[entropic] surrogate: page is current" in book.stdout  # only what reads the entry


@pytest.mark.parametrize("arguments, message", [
    ("--cluster tcp://127.0.0.1:1", r"no Dask scheduler answers at tcp://127\.0\.0\.1:1"),
    ("n=abc n=1000", r"parameter n is given twice \(n=abc and n=1000\)"),
    ("--only 'nomatch*'", r"--only 'nomatch\*' matches no job of surrogate"),
])
def test_a_fault_of_the_input_is_one_line_and_a_failing_exit_from_a_fresh_shell(tmp_path, arguments, message):
    command = f".venv/bin/python -m entropic run surrogate --profile tiny --no-book {arguments}"
    env = {**fresh_shell(), "ENTROPIC_RESULTS": str(tmp_path / "results"), "ENTROPIC_BUILD": str(tmp_path / "build")}
    done = subprocess.run(command, shell=True, cwd=paths.ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stdout == "", done.stdout
    assert len(done.stderr.splitlines()) == 1 and re.match(r"error: " + message, done.stderr), done.stderr
    assert not (tmp_path / "results").exists()  # nothing ran
