"""Shared fixtures. The results store and the build folder of the whole test session live in a
temporary folder (``ENTROPIC_RESULTS``, ``ENTROPIC_BUILD``, set before ``entropic`` is imported and
inherited by notebook kernels), so tests never touch the working tree's results or pages."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

_SESSION = Path(tempfile.mkdtemp(prefix="entropic-tests-"))
os.environ["ENTROPIC_RESULTS"] = str(_SESSION / "results")
os.environ["ENTROPIC_BUILD"] = str(_SESSION / "book" / "build")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from entropic import paths  # noqa: E402
from entropic.pipeline import book  # noqa: E402


@pytest.fixture(scope="session")
def tiny_book() -> Path:
    """A book root with every section of the table of contents rendered at the ``tiny`` profile."""
    root = _SESSION / "book"
    root.mkdir(parents=True, exist_ok=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(paths.ROOT / name, root / name)
    shutil.copytree(paths.BOOK_SOURCES, root / "book", dirs_exist_ok=True)
    shutil.copytree(paths.ROOT / "_assets", root / "_assets", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("mathjax"))
    for name in book.toc_notebooks():
        book.execute(name, "tiny", {}, log=lambda *_: None)
    return root


@pytest.fixture(scope="session")
def tiny_html(tiny_book) -> Path:
    """The HTML of the tiny book, built once with warnings as errors: its index.html."""
    return book.build(root=tiny_book, log=lambda *_: None)


@pytest.fixture(scope="session")
def tiny_tables(tiny_book):
    """Read a table a tiny page wrote: ``tiny_tables("surrogate", "table1")``."""

    def read(section: str, name: str, **kwargs) -> pd.DataFrame:
        return pd.read_csv(paths.TABLES / "tiny" / section / f"{name}.csv", **kwargs)

    return read
