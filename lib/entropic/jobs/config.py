"""Parameters, declared once: a section's ``Config`` dataclass holds the paper's values.

Each field is declared with :func:`param`: its default (the paper's value), a one-line description and
a check. Profiles (``notebooks/params/<profile>.yaml``, read by ``profiles``) and command-line or notebook
overrides list only what they change; every route goes through :func:`resolve`, so a bad value fails with the same
one-line ``ValueError`` from YAML, the command line and a notebook, before any work starts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import pandas as pd

from .. import paths
from .profiles import load_profile, profile_path


def kinded(kind: str):
    """Mark a check with the kind of value it accepts, in words (what ``params`` lists for each parameter)."""
    def mark(check):
        check.kind = kind
        return check
    return mark


def param(default, help: str, check=None, stated: bool = True, paper: str | None = None):
    """A config field: ``default`` is the paper's value, ``help`` one line, ``check(name, value)``
    returns the normalized value or raises ``ValueError``. ``stated=False`` marks a choice the paper does
    not state (the default is then ours, and the page says so instead of calling it the paper's). ``paper`` is the
    paper's own words for the value where it states it in words ("five seeds"), which the configuration table shows
    in place of the value."""
    return field(default=default, metadata={"help": help, "check": check, "stated": stated, "paper": paper})


# Every number must be finite and below a stated ceiling: ``1e999`` (inf) or ``lr=1e30`` is refused here,
# naming the parameter, instead of training on NaN. The ceilings are far above any sensible value.
CEILING_INT = 10**9
CEILING = 1e6


@kinded("positive integer")
def positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= CEILING_INT:
        raise ValueError(f"{name} must be a positive integer (at most {CEILING_INT:.0e}), got {value!r}")
    return value


def _number(name, value, low: float, high: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high or (what == "positive" and value == 0):
        raise ValueError(f"{name} must be a finite {what} number up to {high:g}, got {value!r}")
    return float(value)


@kinded("positive number")
def positive(name, value):
    return _number(name, value, 0.0, CEILING, "positive")


@kinded("non-negative number")
def non_negative(name, value):
    return _number(name, value, 0.0, CEILING, "non-negative")


def bounded(low: float, high: float, include_low: bool = False):
    """A finite number in (low, high], or [low, high] with ``include_low``: a stated range for parameters
    whose larger values can only fail (a learning rate of 10³⁰, a noise level of 10⁹⁹⁹)."""
    opening = "[" if include_low else "("

    @kinded(f"number in {opening}{low:g}, {high:g}]")
    def check(name, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high or (value == low and not include_low):
            raise ValueError(f"{name} must be a number in {opening}{low:g}, {high:g}], got {value!r}")
        return float(value)
    return check


learning_rate = bounded(0.0, 1.0)  # Adam and AdamW diverge far below 1
noise_level = bounded(0.0, 10.0, include_low=True)  # σ: the tasks' signals are of order 1
scale = bounded(0.0, 10.0)  # initialization multipliers


@kinded("true or false")
def flag(name, value):
    """True or False; on the command line ``true``/``false`` in any case, as YAML reads them (``reuse=false``)."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def distinct_ints(minimum: int = 0):
    """A non-empty list of distinct integers ≥ ``minimum`` (seeds, ranks), kept as a tuple."""
    @kinded(f"list of distinct integers ≥ {minimum}")
    def check(name, value):
        items = tuple(value) if isinstance(value, (list, tuple)) else None
        if not items or any(isinstance(v, bool) or not isinstance(v, int) or v < minimum for v in items):
            raise ValueError(f"{name} must be a non-empty list of integers ≥ {minimum}, got {value!r}")
        if len(set(items)) != len(items):
            raise ValueError(f"{name} holds duplicates: {value!r}")
        return items
    return check


def or_none(check):
    """``check``, or an empty list: a list parameter that may name nothing (kept as an empty tuple)."""
    @kinded(f"{kind_of(check)}, or []")
    def check_or_none(name, value):
        return () if isinstance(value, (list, tuple)) and not value else check(name, value)
    return check_or_none


def one_of(*allowed):
    @kinded("one of " + ", ".join(map(str, allowed)))
    def check(name, value):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        return value
    return check


def some_of(*allowed):
    """A non-empty list of distinct names from ``allowed`` (a single name is accepted), as a tuple."""
    @kinded("list of distinct names from " + ", ".join(map(str, allowed)))
    def check(name, value):
        items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        if not items or any(item not in allowed for item in items) or len(set(items)) != len(items):
            raise ValueError(f"{name} must be a non-empty list of distinct names from {allowed}, got {value!r}")
        return items
    return check


def ours(default, help: str, check=None):
    """A parameter the paper does not state: the default is our choice (the page says so)."""
    return param(default, help, check, stated=False)


@kinded("non-negative integer")
def non_negative_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= CEILING_INT:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def optional(check):
    """``check``, or None: a parameter that may be left unset (``None`` means a default the section states)."""
    @kinded(f"{kind_of(check)}, or None")
    def optional_check(name, value):
        return None if value is None else check(name, value)
    return optional_check


@kinded("folder name")
def text(name, value):
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a directory name or None, got {value!r}")
    return value


@kinded("number in (0, 1)")
def fraction(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return float(value)


@kinded("increasing fractions in (0, 1] ending with 1")
def fractions(name, value):
    """Increasing fractions in (0, 1] ending with 1 (checkpoints along a budget), kept as a tuple of floats."""
    items = tuple(value) if isinstance(value, (list, tuple)) else None
    if not items or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1 for v in items) \
            or list(items) != sorted(set(items)) or items[-1] != 1:
        raise ValueError(f"{name} must be increasing fractions in (0, 1] ending with 1, got {value!r}")
    return tuple(float(v) for v in items)


@kinded("list of distinct job-name patterns")
def patterns(name, value):
    """A non-empty list of distinct shell patterns of job names (``fnmatch``), kept as a tuple of strings."""
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    if not items or any(not isinstance(v, str) or not v.strip() for v in items) or len(set(items)) != len(items):
        raise ValueError(f"{name} must be a non-empty list of distinct job-name patterns, got {value!r}")
    return items


@kinded("list of [known rank, keys, values, scale]")
def generator_specs(name, value):
    """A non-empty list of routing generators, each [known rank, keys, values, scale] (positive integers, a positive
    scale, at least two values), kept as a tuple of tuples."""
    items = tuple(value) if isinstance(value, (list, tuple)) else ()
    ok = bool(items) and all(isinstance(v, (list, tuple)) and len(v) == 4
                             and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v[:3])
                             and v[2] >= 2 and isinstance(v[3], (int, float)) and not isinstance(v[3], bool)
                             and 0 < v[3] <= CEILING for v in items)
    if not ok or len({tuple(v) for v in items}) != len(items):
        raise ValueError(f"{name} must be a non-empty list of distinct [known rank, keys, values, scale] with positive "
                         f"integers (values ≥ 2) and a positive scale, got {value!r}")
    return tuple((int(v[0]), int(v[1]), int(v[2]), float(v[3])) for v in items)


@kinded("list of distinct positive numbers")
def positive_values(name, value):
    """A non-empty list of distinct positive numbers (noise levels), kept as a tuple of floats."""
    items = tuple(value) if isinstance(value, (list, tuple)) else ()
    if not items or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 for v in items) \
            or len(set(items)) != len(items):
        raise ValueError(f"{name} must be a non-empty list of distinct positive numbers, got {value!r}")
    return tuple(float(v) for v in items)


@dataclass(frozen=True)
class SectionConfig:
    """Base of every section's ``Config``: runs each field's check, then :meth:`validate`."""

    def __post_init__(self):
        for f in fields(self):
            check = f.metadata.get("check")
            if check is not None:
                object.__setattr__(self, f.name, check(f.name, getattr(self, f.name)))
        self.validate()

    def validate(self) -> None:
        """Checks that involve several fields; raise ``ValueError`` naming them."""

    @classmethod
    def from_params(cls, params: dict):
        """Build from a mapping of overrides; unknown names raise ``ValueError``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown} for this section; known: {sorted(known)}")
        return cls(**params)

    def slice(self, *names: str, **extra) -> dict:
        """The named parameters as a job's parameters (plain JSON-able values, tuples as lists), with
        ``extra`` added: a job's parameters are a slice of its section's Config, never copied by hand."""
        unknown = [n for n in names if n not in {f.name for f in fields(self)}]
        if unknown:
            raise ValueError(f"{type(self).__qualname__} has no parameter(s) {unknown}")
        return {**{name: _plain(getattr(self, name)) for name in names}, **extra}

    def params(self) -> dict:
        """The parameters as plain JSON-able values (tuples as lists)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def differences(self, stated: bool = True) -> dict:
        """``name -> (value, default)`` for every parameter that differs from its default: the paper's
        values (``stated=True``), or our choices where the paper states none (``stated=False``)."""
        paper = type(self)()
        return {f.name: (getattr(self, f.name), getattr(paper, f.name)) for f in fields(self)
                if getattr(self, f.name) != getattr(paper, f.name) and f.metadata.get("stated", True) == stated}

    def same_as_paper(self, *names: str) -> bool:
        """Whether the named parameters all hold the paper's values (so its numbers apply)."""
        return not set(names) & set(self.differences())

    def table(self) -> pd.DataFrame:
        """The resolved configuration: name, value, the paper's value, description, and a mark
        on every row that differs from the paper."""
        paper, rows = type(self)(), []
        for f in fields(self):
            value, reference = getattr(self, f.name), getattr(paper, f.name)
            stated = f.metadata.get("stated", True)
            said = f.metadata.get("paper") or shown_value(reference)
            rows.append({"parameter": f.name, "value": shown_value(value),
                         "paper": said if stated else
                         "not stated" + ("" if value == reference else f" (our default: {shown_value(reference)})"),
                         "differs": "◀ differs" if value != reference and stated else "",
                         "description": f.metadata["help"]})
        return pd.DataFrame(rows).set_index("parameter")


def kind_of(check, default=None) -> str:
    """The kind of value a check accepts, in words (``kinded``); for a check without one, the default's type."""
    return getattr(check, "kind", None) or type(default).__name__


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def shown_value(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)


# --- the Config of a section at a profile ------------------------------------------------------------

def resolve(config_class: type[SectionConfig], section: str, profile: str, overrides: dict | None = None,
            source: str | None = None):
    """The section's ``Config``: the paper's values, then the profile's overrides, then ``overrides``. A
    profile without an entry for the section is an error (an empty entry, ``section: {}``, means the
    paper's values), so a new section cannot silently run at the paper's sizes under a small profile. A
    bad value names where it came from: the profile file and the section when the profile's own values fail,
    else ``source``, where the overrides were given ("the command line (n=-5)"; default: "the overrides" and
    their values)."""
    loaded = load_profile(profile)
    if section not in loaded:
        raise ValueError(f"{paths.shown(profile_path(profile))} has no entry for section {section!r}; add "
                         f"`{section}: {{}}` for the paper's values, or the overrides this profile needs")
    try:
        return config_class.from_params({**loaded[section], **(overrides or {})})
    except (TypeError, ValueError) as error:  # a dataclass refusing an argument is reported like the checks
        fault = error
    try:
        config_class.from_params(loaded[section])
    except (TypeError, ValueError) as error:  # the profile's own values fail: the file is at fault
        raise ValueError(f"{paths.shown(profile_path(profile))}, section {section}: {error}") from None
    given = " ".join(f"{name}={_typed(value)}" for name, value in overrides.items())
    raise ValueError(f"{source or f'the overrides ({given})'}, section {section}: {fault}") from None


def _typed(value) -> str:
    """A value as it is typed on the command line: ``[0,1]`` for a list."""
    return "[" + ",".join(map(str, value)) + "]" if isinstance(value, (list, tuple)) else str(value)


