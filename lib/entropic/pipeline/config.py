"""Parameters, declared once: a section's ``Config`` dataclass holds the paper's values.

Each field is declared with :func:`param`: its default (the paper's value), a one-line description and
a check. Profiles (``notebooks/params/<profile>.yaml``) and command-line or notebook overrides list only
what they change; every route goes through :func:`resolve`, so a bad value fails with the same
one-line ``ValueError`` from YAML, the command line and a notebook, before any work starts.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field, fields

import pandas as pd
import yaml

from .. import paths


def param(default, help: str, check=None, stated: bool = True):
    """A config field: ``default`` is the paper's value, ``help`` one line, ``check(name, value)``
    returns the normalized value or raises ``ValueError``. ``stated=False`` marks a choice the paper does
    not state (the default is then ours, and the page says so instead of calling it the paper's)."""
    return field(default=default, metadata={"help": help, "check": check, "stated": stated})


def positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def positive(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def non_negative(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


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


def load_profile(profile: str) -> dict[str, dict]:
    """``section -> overrides`` of a profile file; an unknown profile names the available ones."""
    path = paths.PROFILES / f"{profile}.yaml"
    if not path.is_file():
        raise ValueError(f"unknown profile {profile!r}; available: {available_profiles()}")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) or v is None for v in data.values()):
        raise ValueError(f"profile {path} must map section names to mappings of parameter overrides")
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
    """``["r_star=4", "seeds=[0,1]"]`` → ``{"r_star": 4, "seeds": [0, 1]}``."""
    params = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise ValueError(f"parameter override {item!r} is not of the form name=value")
        params[name.strip()] = parse_value(text)
    return params


def resolve(config_class: type[SectionConfig], section: str, profile: str, overrides: dict | None = None):
    """The section's ``Config``: the paper's values, then the profile's overrides, then ``overrides``."""
    params = load_profile(profile).get(section, {})
    params.update(overrides or {})
    try:
        return config_class.from_params(params)
    except TypeError as error:  # a dataclass refusing an argument: report it like the checks do
        raise ValueError(str(error)) from error


def replace(cfg: SectionConfig, **changes) -> SectionConfig:
    return dataclasses.replace(cfg, **changes)
