"""A page as Colab runs it: the wheel built from this clone, installed (a regular install of the core, no extras)
into a fresh virtual environment that holds torch already, as Colab's does, and a section's downloadable notebook
executed at the tiny profile from a folder outside the clone, with the kernel of that environment."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import torch

from entropic import paths
from entropic.publish import build as book

pytestmark = pytest.mark.integration
RUN = """import nbclient, nbformat
notebook = nbformat.read("surrogate.ipynb", as_version=4)
nbclient.NotebookClient(notebook, kernel_name="python3", timeout=900).execute()
nbformat.write(notebook, "surrogate.executed.ipynb")
"""


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200, **kwargs)
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_a_section_page_runs_from_a_regular_install_outside_the_clone(tmp_path):
    # The one page it launches, rendered at the tiny profile into the session's pages (where the tiny book finds it
    # current, or where it is current already when the tiny book rendered it first).
    page = book.execute("surrogate", "tiny", {}, log=lambda *_: None)
    source = tmp_path / "source"  # what the wheel is built from (an in-tree build would write into build/)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(paths.ROOT / name, source / name)
    shutil.copytree(paths.ROOT / "lib", source / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(paths.PROFILES, source / "notebooks" / "params")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path / "dist"), str(source)])
    wheel = next((tmp_path / "dist").glob("entropic-*.whl"))

    fresh = tmp_path / "fresh"
    _run([sys.executable, "-m", "venv", str(fresh)])
    python = fresh / "bin" / "python"
    # Its torch: this environment's (the lock's version), linked in rather than unpacked again (hundreds of MB); what
    # torch requires and the rest of the core, the wheel's install brings.
    here = Path(torch.__file__).parent.parent
    there = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    record = next(here.glob("torch-*.dist-info")) / "RECORD"
    for name in {line.split("/")[0] for line in record.read_text().splitlines()} - {".."}:
        (there / name).symlink_to(here / name)
    # The core from the wheel, with the lock's versions, and what Jupyter brings (a kernel, a notebook runner); not
    # compiled to bytecode file by file (the notebook's one kernel compiles only what it imports).
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", "-c",
          str(paths.ROOT / "requirements.lock"), str(wheel), "ipykernel", "nbclient"])
    absent = _run([str(python), "-c", "import importlib.util as u; print([m for m in ('jupyter_book', 'papermill', "
                   "'jupytext', 'dask', 'myst_nb') if u.find_spec(m)])"]).stdout.strip()
    assert absent == "[]", f"the core install pulled the book or Dask: {absent}"
    assert (there / "torch").is_symlink()  # the install kept the torch it found

    outside = tmp_path / "reader"  # the folder a launched notebook runs in, far from the clone
    outside.mkdir()
    notebook = nbformat.read(page, as_version=4)
    assert "entropic-setup" in notebook.cells[0].metadata["tags"]
    parameters = next(c for c in notebook.cells if "injected-parameters" in c.metadata.get("tags", []))
    parameters.source = parameters.source.replace('profile = "quick"', 'profile = "tiny"')
    assert 'profile = "tiny"' in parameters.source
    nbformat.write(notebook, outside / "surrogate.ipynb")
    (outside / "run.py").write_text(RUN)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ENTROPIC_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{fresh / 'bin'}{os.pathsep}{env['PATH']}"
    _run([str(python), "run.py"], cwd=outside, env=env)

    executed = nbformat.read(outside / "surrogate.executed.ipynb", as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors[0].get("evalue")
    shown = json.dumps([o for c in executed.cells if c.cell_type == "code" for o in c.outputs])
    assert "profile `tiny`" in shown  # the banner of the page, computed here
    stored = list((outside / "results" / "tiny" / "surrogate").glob("*.json"))  # results beside the notebook
    pinned = re.search(r'"ENTROPIC_COMMIT", "(\w+)"', notebook.cells[0].source)[1]  # the page's commit
    assert stored and {json.loads(p.read_text())["provenance"]["commit"] for p in stored} == {pinned}
    assert list((outside / "build" / "tables" / "tiny" / "surrogate").glob("*.csv"))
    assert not (paths.ROOT / "results" / "tiny").exists()  # and nothing in the clone
