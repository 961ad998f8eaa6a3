"""Every command that the README and the pages show runs as printed; and the paper book warns, never
breaks, when its stored results are missing, stale or corrupt.

The commands run in a copy of the project (its files, this virtual environment) whose profiles are all
replaced by the tiny one, so they finish in seconds. Its results store starts with the tiny results the
session already computed (every profile being tiny, their job ids are the same under every label), so
the commands compute only what their own parameters add; the HTML build is skipped (ENTROPIC_NO_HTML)
except in the warnings test, which builds it once. ``make test`` (this suite) and ``make bench`` (minutes
of timing) are the two commands not run here.
"""

import os
import re
import shutil
import subprocess

import pytest

from entropic import paths

pytestmark = pytest.mark.integration
DOCUMENTS = ["README.md", *sorted(str(p.relative_to(paths.ROOT)) for p in paths.BOOK_SOURCES.glob("*.md")),
             *sorted(str(p.relative_to(paths.ROOT)) for p in paths.NOTEBOOKS.glob("*.md"))]
NOT_RUN = ("make test", "make bench")


def documented_commands() -> list[tuple[str, str]]:
    """(documents, command) for every distinct command in a ```bash block, in order of appearance."""
    found: dict[str, list[str]] = {}
    for document in DOCUMENTS:
        for block in re.findall(r"```bash\n(.*?)```", (paths.ROOT / document).read_text(), re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command and not command.startswith(NOT_RUN):
                    found.setdefault(command, []).append(document)
    return [(", ".join(documents), command) for command, documents in found.items()]


def test_the_documents_show_commands_and_each_is_collected():
    commands = [c for _, c in documented_commands()]
    assert "make book" in commands and any(c.startswith("make section") for c in commands)
    assert any(c.startswith("python -m entropic run") for c in commands)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory, tiny_book):
    root = tmp_path_factory.mktemp("project")
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=paths.ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        if (paths.ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(paths.ROOT / name, root / name)
    tiny = (paths.PROFILES / "tiny.yaml").read_text()
    for profile in (root / "notebooks" / "params").glob("*.yaml"):
        profile.write_text(tiny)
    shutil.rmtree(root / "results", ignore_errors=True)
    for label in ("quick", "paper"):  # every profile is tiny here: the session's tiny results are theirs
        shutil.copytree(paths.RESULTS / "tiny", root / "results" / label, ignore=shutil.ignore_patterns(".partial"))
    (root / "build" / "sections").mkdir(parents=True)
    for page in ("theory", "teaching"):  # pages that compute what they show: current at every profile
        shutil.copy(paths.EXECUTED / f"{page}.ipynb", root / "build" / "sections" / f"{page}.ipynb")
    (root / ".venv").symlink_to(paths.ROOT / ".venv")
    env = {**os.environ, "PYTHONPATH": str(root / "lib"), "ENTROPIC_NO_HTML": "1",
           "ENTROPIC_SHARED_CORPORA": str(paths.ROOT.parent / "shared" / "corpora"),
           "PATH": f"{paths.ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    for name in ("ENTROPIC_RESULTS", "ENTROPIC_BUILD"):
        env.pop(name, None)
    return root, env


@pytest.mark.parametrize("document, command", documented_commands())
def test_a_documented_command_works_as_printed(sandbox, document, command):
    root, env = sandbox
    done = subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{document}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def test_a_custom_run_survives_the_next_make_book(sandbox):
    root, env = sandbox
    for command in ('make section S=surrogate P="r_star=2"', "make book"):
        subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, check=True, timeout=900)
    assert list((root / "results" / "custom" / "surrogate").glob("*.json"))  # the custom run is kept
    assert list((root / "results" / "quick" / "surrogate").glob("*.json"))  # beside the profile's
    page = (root / "build" / "sections" / "surrogate.ipynb").read_text()
    assert '"overrides": {}' in page  # the page shows the profile again


def _html(root, env):
    done = subprocess.run("make book", shell=True, cwd=root, env={**env, "ENTROPIC_NO_HTML": ""},
                          capture_output=True, text=True, timeout=900)
    return done


def test_the_paper_book_warns_instead_of_breaking_and_its_freshness_follows_the_code(sandbox):
    """One paper entry missing (ladder), one corrupt (attention_native), and an engine edit that stales
    the surrogate's data-only jobs: the book builds (exit 0) and each page says what is wrong in an
    admonition; reverting the edit clears the surrogate's warning."""
    root, env = sandbox
    store_root = root / "results" / "paper"
    next(iter(sorted((store_root / "ladder").glob("*.json")))).unlink()
    damaged = next(iter(sorted((store_root / "attention_native").glob("*.json"))))
    damaged.write_text(damaged.read_text()[:200])
    estimators = root / "lib" / "entropic" / "engine" / "estimators.py"
    original = estimators.read_text()
    edited = original.replace("2.0 *", "2.5 *", 1) if "2.0 *" in original else original.replace("2 *", "3 *", 1)
    assert edited != original
    estimators.write_text(edited)
    try:
        done = _html(root, env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        pages = root / "_build" / "html" / "build" / "sections"
        for name, words in (("ladder", "Partial results"), ("attention_native", "Unreadable results"),
                            ("surrogate", "Stale results")):
            html = (pages / f"{name}.html").read_text()
            assert words in html, name
            assert 'class="admonition warning"' in html, name
        assert "Stale results" not in (pages / "ladder.html").read_text()  # the edit reaches the surrogate only
    finally:
        estimators.write_text(original)
    done = subprocess.run("make book", shell=True, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Stale results" not in (root / "build" / "sections" / "surrogate.ipynb").read_text()
