"""The one way a benchmark reports: print its dated section and append it to ``benchmarks/RESULTS.md``."""

from __future__ import annotations

import datetime
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def stamp() -> str:
    """The time a section is dated with, in UTC."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def report(lines: list[str], write: bool = True) -> None:
    """Print the section's lines and, unless ``write`` is False (``--no-write``), append them to RESULTS.md."""
    print("\n".join(lines))
    if write:
        with RESULTS.open("a") as handle:
            handle.write("\n".join(lines) + "\n")
