"""Every command that the README and the pages show runs as printed.

The commands run in a copy of the project (its files, this virtual environment) whose profiles are all
replaced by the tiny one, so they finish in seconds; the HTML build is skipped (ENTROPIC_NO_HTML: the
book build is tested in test_notebooks). ``make test`` (this suite) and ``make bench`` (minutes of
timing) are the two commands not run here.
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
def sandbox(tmp_path_factory):
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
