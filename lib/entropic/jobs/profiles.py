"""Parameter profiles and command-line overrides: the files of ``notebooks/params/`` (or the folder
``ENTROPIC_PROFILES`` names), each listing, per section, only what it changes of the paper's values, and the
``name=value`` pairs of the command line. ``config.resolve`` applies both to a section's ``Config``.
"""

from __future__ import annotations

import ast
import os

import yaml

from .. import paths


def profiles_folder():
    """The folder of the profiles (``paths.PROFILES``); a ValueError naming it (and ENTROPIC_PROFILES, when that
    set it) where it does not exist."""
    if not paths.PROFILES.is_dir():
        named = " (ENTROPIC_PROFILES)" if "ENTROPIC_PROFILES" in os.environ else ""
        raise ValueError(f"the profiles folder {paths.shown(paths.PROFILES)}{named} does not exist")
    return paths.PROFILES


def available_profiles() -> list[str]:
    """The profiles' names; a ValueError where their folder does not exist (``profiles_folder``)."""
    return sorted(p.stem for p in profiles_folder().glob("*.yaml"))


def profile_path(profile: str):
    return paths.PROFILES / f"{profile}.yaml"


def load_profile(profile: str) -> dict[str, dict]:
    """``section -> overrides`` of a profile file. An unknown profile names the available ones; malformed
    YAML, a section name that is no section, or a mapping of the wrong shape names the file (and line)."""
    from .. import registry

    path = profile_path(profile)
    try:
        profiles_folder()
    except ValueError as error:
        raise ValueError(f"{error}, so profile {profile!r} cannot be read") from None
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
