"""The Makefile's long steps say how long they have run at least every ten seconds, and ``make clean`` leaves the
project as a clone has it, whatever a build, a wheel or the tests left."""

import re
import shutil
import subprocess
import sys

from entropic import paths


def _make(folder, *args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-f", str(folder / "Makefile"), *args], cwd=folder,
                          capture_output=True, text=True, timeout=timeout)


def test_a_long_step_says_how_long_it_has_run_and_keeps_its_commands_exit_status(tmp_path):
    (tmp_path / "Makefile").write_text(f"include {paths.ROOT / 'Makefile'}\n"
                                       "slow:\n\t@$(call TICKING,waiting,sleep 5; echo done)\n"
                                       "failing:\n\t@$(call TICKING,failing,sleep 2; exit 3)\n")
    done = _make(tmp_path, "slow", "TICK=2")
    assert done.returncode == 0 and done.stdout.splitlines() == ["  waiting: 2 s", "  waiting: 4 s", "done"], done
    failed = _make(tmp_path, "failing", "TICK=1")
    assert failed.returncode != 0 and "  failing: 1 s" in failed.stdout


def test_the_install_and_the_pdf_tick_every_ten_seconds():
    makefile = (paths.ROOT / "Makefile").read_text()
    assert re.search(r"^TICK \?= 10$", makefile, re.M)
    for what in ("installing", "rendering the pages", "printing the PDF"):
        assert f"$(call TICKING,{what}," in makefile, what
    quiet = [line for line in makefile.splitlines() if "pip install" in line]
    assert quiet and all("$(call TICKING," in line for line in quiet)  # no pip run without its ticker


def test_make_clean_removes_what_a_wheel_a_build_and_the_tests_leave(tmp_path):
    source = tmp_path / "clone"
    source.mkdir()
    for name in ("Makefile", "pyproject.toml", "setup.cfg", "README.md", "LICENSE"):
        shutil.copy2(paths.ROOT / name, source / name)
    shutil.copytree(paths.ROOT / "lib", source / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(paths.PROFILES, source / "notebooks" / "params")
    (source / "_assets").mkdir()
    (source / "_assets" / "custom.css").write_text("")  # a tracked asset: it stays
    (source / "results" / "paper").mkdir(parents=True)
    (source / "results" / "paper" / "kept.json").write_text("{}")  # results are not a build's: they stay
    before = sorted(p.relative_to(source) for p in source.rglob("*"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "."],
                          cwd=source, capture_output=True, text=True, timeout=600)  # as a reader types it
    assert done.returncode == 0, done.stderr[-2000:]
    left = {p.relative_to(source).parts[0] for p in source.rglob("*")} - {p.parts[0] for p in before}
    assert {".setuptools-build"} <= left and any(name.endswith(".whl") for name in left)
    for made in ("build/sections/x.ipynb", "_build/html/index.html", "_build/pdf/entropic-bound.pdf",
                 "_assets/mathjax/tex-chtml.js", ".pytest_cache/v/cache", "lib/entropic/__pycache__/paths.pyc"):
        (source / made).parent.mkdir(parents=True, exist_ok=True)
        (source / made).write_text("")  # what make book, make pdf and the tests leave (too slow to build here)
    cleaned = _make(source, "clean")
    assert cleaned.returncode == 0, cleaned.stderr
    assert sorted(p.relative_to(source) for p in source.rglob("*")) == before
