"""Shared fixtures. Integration fixtures execute the notebooks once per session into a temporary book."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from entropic import paths, sections


@pytest.fixture(scope="session")
def tiny_book(tmp_path_factory) -> Path:
    """A temporary book root with every section executed at the ``tiny`` profile."""
    root = tmp_path_factory.mktemp("book")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(paths.ROOT / name, root / name)
    shutil.copytree(paths.BOOK_SOURCES, root / "book")
    out_dir = root / paths.EXECUTED.relative_to(paths.ROOT)
    for name in sections.SECTIONS:
        sections.execute(name, sections.resolve_params(name, "tiny"), "tiny", progress=False, out_dir=out_dir)
    return root


@pytest.fixture(scope="session")
def tiny_tables(tiny_book):
    """Read a CSV table a tiny notebook wrote: ``tiny_tables("surrogate_table1")``."""
    out_dir = tiny_book / paths.EXECUTED.relative_to(paths.ROOT)

    def read(name: str, **kwargs) -> pd.DataFrame:
        return pd.read_csv(out_dir / f"{name}.csv", **kwargs)

    return read
