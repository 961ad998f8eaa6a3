"""Parameters, declared once: a section's ``Config`` dataclass holds the paper's values.

Each field is declared with :func:`param`: its default (the paper's value), a one-line description and
a check. Profiles (``notebooks/params/<profile>.yaml``) and command-line or notebook overrides list only
what they change; every route goes through :func:`resolve`, so a bad value fails with the same
one-line ``ValueError`` from YAML, the command line and a notebook, before any work starts.
"""

from __future__ import annotations

import ast
import math
import os
from dataclasses import dataclass, field, fields

import pandas as pd
import yaml

from .. import paths


def param(default, help: str, check=None, stated: bool = True):
    """A config field: ``default`` is the paper's value, ``help`` one line, ``check(name, value)``
    returns the normalized value or raises ``ValueError``. ``stated=False`` marks a choice the paper does
    not state (the default is then ours, and the page says so instead of calling it the paper's)."""
    return field(default=default, metadata={"help": help, "check": check, "stated": stated})


# Every number must be finite and below a stated ceiling: ``1e999`` (inf) or ``lr=1e30`` is refused here,
# naming the parameter, instead of training on NaN. The ceilings are far above any sensible value.
CEILING_INT = 10**9
CEILING = 1e6


def positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= CEILING_INT:
        raise ValueError(f"{name} must be a positive integer (at most {CEILING_INT:.0e}), got {value!r}")
    return value


def _number(name, value, low: float, high: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high or (what == "positive" and value == 0):
        raise ValueError(f"{name} must be a finite {what} number up to {high:g}, got {value!r}")
    return float(value)


def positive(name, value):
    return _number(name, value, 0.0, CEILING, "positive")


def non_negative(name, value):
    return _number(name, value, 0.0, CEILING, "non-negative")


def bounded(low: float, high: float, include_low: bool = False):
    """A finite number in (low, high], or [low, high] with ``include_low``: a stated range for parameters
    whose larger values can only fail (a learning rate of 10³⁰, a noise level of 10⁹⁹⁹)."""
    opening = "[" if include_low else "("

    def check(name, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high or (value == low and not include_low):
            raise ValueError(f"{name} must be a number in {opening}{low:g}, {high:g}], got {value!r}")
        return float(value)
    return check


learning_rate = bounded(0.0, 1.0)  # Adam and AdamW diverge far below 1
noise_level = bounded(0.0, 10.0, include_low=True)  # σ: the tasks' signals are of order 1
scale = bounded(0.0, 10.0)  # initialization multipliers


def flag(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def distinct_ints(minimum: int = 0):
    """A non-empty list of distinct integers ≥ ``minimum`` (seeds, ranks), kept as a tuple."""
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
    def check_or_none(name, value):
        return () if isinstance(value, (list, tuple)) and not value else check(name, value)
    return check_or_none


def one_of(*allowed):
    def check(name, value):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        return value
    return check


def some_of(*allowed):
    """A non-empty list of distinct names from ``allowed`` (a single name is accepted), as a tuple."""
    def check(name, value):
        items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        if not items or any(item not in allowed for item in items) or len(set(items)) != len(items):
            raise ValueError(f"{name} must be a non-empty list of distinct names from {allowed}, got {value!r}")
        return items
    return check


def ours(default, help: str, check=None):
    """A parameter the paper does not state: the default is our choice (the page says so)."""
    return param(default, help, check, stated=False)


def non_negative_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= CEILING_INT:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def optional(check):
    """``check``, or None: a parameter that may be left unset (``None`` means a default the section states)."""
    def optional_check(name, value):
        return None if value is None else check(name, value)
    return optional_check


def text(name, value):
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a directory name or None, got {value!r}")
    return value


def fraction(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return float(value)


def fractions(name, value):
    """Increasing fractions in (0, 1] ending with 1 (checkpoints along a budget), kept as a tuple of floats."""
    items = tuple(value) if isinstance(value, (list, tuple)) else None
    if not items or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1 for v in items) \
            or list(items) != sorted(set(items)) or items[-1] != 1:
        raise ValueError(f"{name} must be increasing fractions in (0, 1] ending with 1, got {value!r}")
    return tuple(float(v) for v in items)


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
            rows.append({"parameter": f.name, "value": _shown(value),
                         "paper": _shown(reference) if stated else
                         "not stated" + ("" if value == reference else f" (our default: {_shown(reference)})"),
                         "differs": "◀ differs" if value != reference and stated else "",
                         "description": f.metadata["help"]})
        return pd.DataFrame(rows).set_index("parameter")


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def _shown(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)


# --- profiles and overrides -------------------------------------------------------------------------

def available_profiles() -> list[str]:
    return sorted(p.stem for p in paths.PROFILES.glob("*.yaml"))


def profile_path(profile: str):
    return paths.PROFILES / f"{profile}.yaml"


def load_profile(profile: str) -> dict[str, dict]:
    """``section -> overrides`` of a profile file. An unknown profile names the available ones; malformed
    YAML, a section name that is no section, or a mapping of the wrong shape names the file (and line)."""
    from .. import registry

    path = profile_path(profile)
    if not paths.PROFILES.is_dir():
        named = " (ENTROPIC_PROFILES)" if "ENTROPIC_PROFILES" in os.environ else ""
        raise ValueError(f"the profiles folder {paths.shown(paths.PROFILES)}{named} does not exist, so profile "
                         f"{profile!r} cannot be read")
    if not path.is_file():
        raise ValueError(f"unknown profile {profile!r}; available in {paths.shown(paths.PROFILES)}: "
                         f"{', '.join(available_profiles()) or 'none'}")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or type(error).__name__
        raise ValueError(f"{paths.shown(path)} is not valid YAML{where}: {problem}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) or v is None for v in data.values()):
        raise ValueError(f"{paths.shown(path)} must map section names to mappings of parameter overrides")
    unknown = sorted(set(data) - set(registry.names()))
    if unknown:
        raise ValueError(f"{paths.shown(path)} names no section {unknown}; sections: {registry.names()}")
    return {name: dict(values or {}) for name, values in data.items()}


def parse_value(text: str):
    """A command-line value: a Python literal, a bare word (a string), or a list of either.

    ``[B0,B1c]`` (what the shell leaves of ``['B0','B1c']``) reads as ``["B0", "B1c"]``.
    """
    text = text.strip()
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text.startswith(("[", "(")) and text.endswith(("]", ")")):
            inner = text[1:-1].strip()
            return [parse_value(item) for item in inner.split(",")] if inner else []
        return text
    return list(value) if isinstance(value, tuple) else value


def parse_overrides(items: list[str]) -> dict:
    """``["r_star=4", "seeds=[0,1]"]`` → ``{"r_star": 4, "seeds": [0, 1]}``. A name given twice is refused
    (naming both values): which one was meant cannot be guessed."""
    params, given = {}, {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ValueError(f"parameter override {item!r} is not of the form name=value")
        if name in given:
            raise ValueError(f"parameter {name} is given twice ({given[name]} and {item}): give it once")
        given[name], params[name] = item, parse_value(text)
    return params


def resolve(config_class: type[SectionConfig], section: str, profile: str, overrides: dict | None = None):
    """The section's ``Config``: the paper's values, then the profile's overrides, then ``overrides``. A
    profile without an entry for the section is an error (an empty entry, ``section: {}``, means the
    paper's values), so a new section cannot silently run at the paper's sizes under a small profile. A
    bad value names the profile file and the section."""
    loaded = load_profile(profile)
    if section not in loaded:
        raise ValueError(f"{paths.shown(profile_path(profile))} has no entry for section {section!r}; add "
                         f"`{section}: {{}}` for the paper's values, or the overrides this profile needs")
    params = {**loaded[section], **(overrides or {})}
    try:
        return config_class.from_params(params)
    except (TypeError, ValueError) as error:  # a dataclass refusing an argument is reported like the checks
        source = f" (overrides: {', '.join(overrides)})" if overrides else ""
        raise ValueError(f"{paths.shown(profile_path(profile))}, section {section}{source}: {error}") from None


