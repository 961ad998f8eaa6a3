"""A clone of the public repository, alone: no sibling ``shared/`` folder (App. B's corpora, the paper's text), no
cached corpus. There the committed results give App. B's page the same numbers as here, the page names the corpora
the machine lacks instead of counting them, and the tests that need a pinned corpus are skipped, saying which one.

The copy holds the project's tracked files in a temporary folder (so nothing sits beside it) and runs its own code
(PYTHONPATH) with this virtual environment's packages; ``.ci/run`` says which way the suite itself ran.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import sandbox
from entropic import paths

FACTS = """
import json
from entropic.jobs import runner
from entropic.sections import real_corpora
results = runner.run("real_corpora", "paper", compute=False, progress=False, log=lambda *_: None)
print(json.dumps(real_corpora.facts(results, real_corpora.specification(results)), default=str, sort_keys=True))
"""
MACHINE = ("missing", "here_text")  # what the page says about the machine it is built on, apart from the numbers
# Tests that read a pinned corpus (english) beside tests that need none: in the copy the first are skipped.
SUBSET = [*(f"tests/engine/corpus/test_{name}.py" for name in ("corpora", "corpus_provenance", "corpus_sources",
                                                                "preflight")),
          "tests/sections/test_real_corpora.py::test_a_missing_corpus_is_reported_with_where_to_put_it"]


@pytest.fixture(scope="module")
def lone(tmp_path_factory):
    """The copy and the environment of a fresh shell there: no corpus on any path it reads."""
    root = tmp_path_factory.mktemp("lone") / "clone"
    sandbox.copy_project(root, untracked=False)
    assert not (root.parent / "shared").exists()
    return root, {**_shell(root), "ENTROPIC_CACHE": str(root.parent / "cache")}


def _shell(root) -> dict[str, str]:
    """A fresh shell's environment running the code of the project at ``root``: none of this session's settings."""
    env = {k: v for k, v in sandbox.fresh_shell().items() if not k.startswith(("ENTROPIC_", "PYTEST_"))}
    return {**env, "PYTHONPATH": str(root / "lib"), "ENTROPIC_MAX_THREADS": "1"}


def _run(args: list[str], cwd, env) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_app_bs_page_reads_the_same_numbers_from_the_committed_results_and_names_the_missing_corpora(lone):
    root, env = lone
    alone = _run([sys.executable, "-c", FACTS], root, env)
    assert alone.returncode == 0, alone.stderr[-3000:]
    here = _run([sys.executable, "-c", FACTS], paths.ROOT, _shell(paths.ROOT))
    assert here.returncode == 0, here.stderr[-3000:]
    ours, theirs = json.loads(here.stdout), json.loads(alone.stdout)
    assert {k: v for k, v in theirs.items() if k not in MACHINE} == {k: v for k, v in ours.items() if k not in MACHINE}
    assert theirs["n_found"] == 6 and theirs["pinned"] == 6  # the stored results' corpora, not this machine's
    for name in ("english", "shakespeare", "python", "linux", "json", "music"):
        assert f"`{name}`" in theirs["here_text"]
    assert "make corpora" in theirs["here_text"] and not any(c.isdigit() for c in theirs["here_text"])


def test_the_tests_that_need_a_pinned_corpus_are_skipped_there_naming_it(lone):
    root, env = lone
    done = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rs", *SUBSET], root, env)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "tests skipped: they need english, not on this machine (make corpora fetches the six corpora)" in done.stdout
    assert "needs App. B's pinned corpus 'english', which is not on this machine: make corpora fetches it" \
        in done.stdout
    assert " failed" not in done.stdout and " error" not in done.stdout
