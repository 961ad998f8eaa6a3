"""A page's notebook as readers download and launch it (Binder, Colab), and the site that serves it.

The executed notebook of each page becomes downloadable (:func:`downloadable`): plumbing hidden, no
machine paths or stderr, and a first, hidden cell (:func:`setup_cell`) that installs the project where
it is missing, from the book's repository at the commit the page was built from (a regular install:
``paths`` then finds the profiles inside the package and writes results beside the notebook), and, for a
section whose configuration names App. B's corpora, downloads them from their sources, checked against
their pins. Launched, the notebook computes at the ``quick`` profile.

:func:`assemble_site` lays out what the publishing workflow pushes to the ``gh-pages`` branch: the HTML,
the PDF, the executed notebooks where the launch buttons look for them (``build/sections/``), and
Binder's environment (Python 3.11, PyTorch's CPU build, the project at the same commit):
``python -m entropic.publish.launch SITE`` (after ``make book`` and ``make pdf``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from .. import paths, registry
from ..jobs import config
from . import site

LAUNCH_PROFILE = "quick"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's CPU wheels: Binder has no GPU
SETUP = """# Launched outside the book's build (Binder, Colab, a download), this notebook installs the project at
# the commit its page was built from, where it is missing, and computes at the quick profile (minutes on a
# CPU); the book's own page shows `{shown}`.
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("entropic") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "{requirement}"], check=True)
from entropic import paths

if not paths.IN_CHECKOUT:  # a regular install: results name the commit installed
    os.environ.setdefault("ENTROPIC_COMMIT", "{commit}")"""
# The same cell in a book built where no repository is named (``site.repository_url`` is None): nothing to install
# from, so it says where the project comes from instead of naming an address the book was not published at.
UNPUBLISHED = """# This notebook comes from a book built outside its publishing workflow, which names no repository
# to install the project from: it runs where the project is installed (pip install -e . in the checkout
# the book was built from) and computes at the quick profile; the book's own page shows `{shown}`.
import importlib.util
import os

if importlib.util.find_spec("entropic") is None:
    raise ModuleNotFoundError("install the project first: pip install -e . in the checkout this book was built from")
from entropic import paths

if not paths.IN_CHECKOUT:  # a regular install: results name the commit installed
    os.environ.setdefault("ENTROPIC_COMMIT", "{commit}")"""
CORPORA = """
from entropic.engine.corpus import sources as corpus_sources

corpus_sources.fetch_missing({names!r})  # App. B's corpora, from their sources, checked against their pins"""


def requirement(name: str, repository: str, sha: str | None) -> str:
    """What a launched page installs: the core for a section, with the book's extras for a page that
    glues into other pages (theory, teaching, the ledger)."""
    extras = "" if name in registry.names() else "[book]"
    return f"entropic{extras} @ git+{repository}" + (f"@{sha}" if sha else "")


def launch_corpora(name: str) -> list[str]:
    """The corpora a launched section reads (its ``quick`` configuration's ``corpora``), if any."""
    from ..engine.corpus.corpora import CORPUS_NAMES

    if name not in registry.names():
        return []
    cfg = config.resolve(registry.module(name).Config, name, LAUNCH_PROFILE)
    chosen = getattr(cfg, "corpora", ())
    return [c for c in chosen if c in CORPUS_NAMES] if isinstance(chosen, tuple) else []


def setup_cell(name: str, shown: str, repository: str | None, sha: str | None) -> str:
    """The source of the first, hidden cell of page ``name``'s downloadable notebook (``UNPUBLISHED``'s where the book
    names no ``repository``)."""
    source = (SETUP.format(shown=shown, requirement=requirement(name, repository, sha), commit=sha or "unknown")
              if repository else UNPUBLISHED.format(shown=shown, commit=sha or "unknown"))
    corpora = launch_corpora(name)
    return source + (CORPORA.format(names=corpora) if corpora else "")


def downloadable(notebook, name: str):
    """The executed notebook of page ``name`` as readers download and launch it: plumbing cells hidden
    on the page, no papermill paths or stderr (progress bars, warnings), the parameters of the launch
    profile, and the setup cell first."""
    import nbformat

    shown = "paper"
    for cell in notebook.cells:
        tags = cell.metadata.setdefault("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "remove-cell" not in tags:
            tags.append("remove-cell")  # plumbing: the banner says which parameters the page shows
        if "injected-parameters" in tags:
            shown = next((line.split('"')[1] for line in cell.source.splitlines() if line.startswith("profile =")),
                         shown)
            cell.source = "\n".join(
                f'profile = "{LAUNCH_PROFILE}"  # the book shows "{shown}"; run here, this notebook computes at '
                f'"{LAUNCH_PROFILE}"' if line.startswith("profile =") else line for line in cell.source.splitlines())
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
    notebook.metadata.get("papermill", {}).pop("input_path", None)
    notebook.metadata.get("papermill", {}).pop("output_path", None)
    notebook.cells = [c for c in notebook.cells if "entropic-setup" not in c.metadata.get("tags", [])]
    source = setup_cell(name, shown, site.repository_url(), site.commit())
    notebook.cells.insert(0, nbformat.v4.new_code_cell(source, metadata={"tags": ["remove-cell", "entropic-setup"]}))
    return notebook


def binder_files(repository: str, sha: str | None, lock: str) -> dict[str, str]:
    """Binder's environment (``binder/`` of the published branch): Python 3.11, PyTorch's CPU build, the
    project with the book's extras at the commit of the site, every version constrained by the lock."""
    import re

    torch = re.search(r"^torch==([\w.]+)$", lock, re.M)
    if torch is None:
        raise ValueError("the lock pins no torch version (a line torch==X.Y.Z)")
    project = f"entropic[book] @ git+{repository}" + (f"@{sha}" if sha else "")
    return {
        "runtime.txt": "python-3.11\n",
        "constraints.txt": lock,
        "requirements.txt": (f"# Binder: the project at the commit this site was built from, on PyTorch's CPU build\n"
                             f"--extra-index-url {TORCH_CPU_INDEX}\n-c constraints.txt\ntorch=={torch[1]}+cpu\n"
                             f"{project}\n"),
    }


def assemble_site(out: Path, html: Path = paths.HTML, executed: Path | None = None,
                  pdf: Path | None = None) -> Path:
    """Lay out the published site in ``out`` (see the module docstring); returns ``out``. Publishing needs the
    repository (``site.published_repository``: ``ValueError`` without one)."""
    executed = executed or paths.EXECUTED
    notebooks = sorted(executed.glob("*.ipynb"))
    notebooks = [p for p in notebooks if not p.name.endswith((".failed.ipynb", ".input.ipynb", ".running.ipynb"))]
    if not (html / "index.html").is_file() or not notebooks:
        raise ValueError(f"no built book at {html} or no executed notebooks in {executed}: run `make book` first")
    shutil.copytree(html, out, dirs_exist_ok=True)
    for notebook in notebooks:
        target = out / "build" / "sections" / notebook.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(notebook, target)
    if pdf is not None:
        shutil.copy2(pdf, out / site.PDF_NAME)
    lock = (paths.CHECKOUT / "requirements.lock").read_text()
    for name, text in binder_files(site.published_repository(), site.commit(), lock).items():
        (out / "binder").mkdir(exist_ok=True)
        (out / "binder" / name).write_text(text)
    (out / ".nojekyll").touch()  # serve _static/ and friends as they are
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m entropic.publish.launch SITE_FOLDER")
    pdf = paths.ROOT / "_build" / "pdf" / site.PDF_NAME
    if not pdf.is_file():
        sys.exit(f"no PDF at {pdf}: run `make pdf` first (every page's footer links it)")
    print(assemble_site(Path(sys.argv[1]), pdf=pdf))
