"""How the book writes a number: one function for every table cell and every number in the prose.

``number`` gives three significant digits; a very small or very large value as a power of ten written
with Unicode superscripts (5.17×10⁻⁴, never 5.17e-04), so the same text reads the same in a table, in a
sentence, in a figure's label and in a plain-text copy; a true minus sign (−); whole numbers without a
decimal point, grouped by thousands from 10,000 on; booleans as ✓ and ✗; a missing value as a dash.
``page.cell`` formats every table cell with it and ``page.glue`` every number a page's prose quotes;
sections write the numbers of their generated sentences and row labels with it. A token budget is a name
as much as a number (App. B's jobs and readings are labelled by it), and ``tokens`` writes it the one way
the book does: 1.536M. A generated sentence lists words with ``listed`` ("a, b and c") and says a count
against its total with ``counted`` ("all 90 students", "57 of the 60 students"), and a value against a reference
with ``beside`` ("lies 0.472 above the bound").
"""

from __future__ import annotations

import math

import numpy as np

DASH = "—"
MINUS = "−"
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(value: float, digits: int = 3) -> str:
    """``value`` as mantissa × 10 to a superscript power, ``digits`` significant digits: 5.17×10⁻⁴."""
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa.replace('-', MINUS)}×10{str(int(exponent)).translate(SUPERSCRIPTS)}"


def with_decimals(value, decimals: int) -> str:
    """``value`` at a fixed number of decimals (the precision a paper states: 1.10, 2.31), else as ``number``
    writes it; a value too small or too large for those decimals falls back to ``number``."""
    if missing(value) or isinstance(value, bool | np.bool_) or not 0 < decimals <= 3:  # 2×10⁻⁴ stays a power
        return number(value)
    value = float(value)
    if not math.isfinite(value) or (value != 0 and not 10 ** -decimals <= abs(value) < 1e5):
        return number(value)
    return f"{value:.{decimals}f}".replace("-", MINUS)


def missing(value) -> bool:
    """Whether ``value`` is no number at all: None or NaN."""
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def number(value, digits: int = 3) -> str:
    """The book's text for ``value`` (see the module docstring); ``digits`` significant digits."""
    if missing(value):
        return DASH
    if isinstance(value, bool | np.bool_):
        return "✓" if value else "✗"
    if isinstance(value, int | np.integer):
        return _whole(int(value))
    value = float(value)
    if math.isinf(value):
        return ("" if value > 0 else MINUS) + "∞"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e15:
        return _whole(int(value))
    if abs(value) >= 1e5 or abs(value) < 1e-3:
        return power_of_ten(value, digits)
    text = f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:.0f}"
    if "e" in text:  # rounding reached the next power of ten (99999.7 at 3 digits)
        return power_of_ten(value, digits)
    return _whole(int(text)) if text.lstrip("-").isdigit() else text.replace("-", MINUS)


def span(values, empty: str = DASH) -> str:
    """The range of ``values`` (NaN left out) as the book writes it: "24.7–31.4", one number where all are
    equal, ``empty`` where there is none."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if not values.size:
        return empty
    low, high = values.min(), values.max()
    return number(low) if low == high else f"{number(low)}–{number(high)}"


def tokens(count) -> str:
    """A number of tokens as App. B's budgets are named: 1536000 → "1.536M", 102400 → "0.1024M"."""
    return f"{float(count) / 1e6:g}M"


def _whole(value: int) -> str:
    text = f"{abs(value):,}" if abs(value) >= 10_000 else str(abs(value))
    return (MINUS if value < 0 else "") + text


def listed(words: list[str]) -> str:
    """Words as a list in a sentence: "a", "a and b", "a, b and c" ("nothing" for none)."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words) or "nothing"


def counted(count: int, total: int, noun: str) -> str:
    """A count against its total in words the count decides: "all 90 students", "none of the 90 students",
    "57 of the 90 students" (``noun`` plural; one of one is "the one student")."""
    count, total = int(count), int(total)
    if total == 1:
        return f"{'the' if count else 'not the'} one {noun.removesuffix('s')}"
    if count == total:
        return f"all {_whole(total)} {noun}"
    return f"{'none' if count == 0 else _whole(count)} of the {_whole(total)} {noun}"


def beside(value: float, reference: float, name: str) -> str:
    """Where ``value`` lies against ``reference`` (called ``name``), in words the difference decides: "lies 0.472
    above the bound", "lies 2.1 below it", "equals the bound"."""
    gap = float(value) - float(reference)
    if gap == 0:
        return f"equals {name}"
    return f"lies {number(abs(gap))} {'above' if gap > 0 else 'below'} {name}"
