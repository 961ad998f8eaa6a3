"""Run the section notebooks with papermill and assemble the Jupyter Book.

A section is one jupytext notebook in ``notebooks/`` plus the config class that validates its
parameters. Parameters come from a profile file (``notebooks/params/<profile>.yaml``) with optional
``name=value`` overrides; they are validated *before* any kernel starts.

Executed notebooks are kept under ``build/sections/`` together with a fingerprint of what produced
them (notebook source, library code, parameters). ``build`` re-executes a section only when that
fingerprint changed; a notebook that fails keeps its last good result and is written beside it as
``<section>.failed.ipynb``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import paths
from .configs import AttentionGridConfig, LadderConfig, SurrogateConfig

DEFAULT_PROFILE = "quick"


@dataclass(frozen=True)
class Section:
    name: str  # notebooks/<name>.md
    config: type  # validates the notebook's parameters


SECTIONS = {s.name: s for s in (
    Section("surrogate", SurrogateConfig),  # §4, Table 1
    Section("ladder", LadderConfig),  # §5, Table 2
    Section("attention_native", AttentionGridConfig),  # §6, Table 3
)}


def section(name: str) -> Section:
    if name not in SECTIONS:
        raise ValueError(f"unknown section {name!r}; expected one of {sorted(SECTIONS)}")
    return SECTIONS[name]


def available_profiles() -> list[str]:
    return sorted(p.stem for p in paths.PROFILES.glob("*.yaml"))


def load_profile(profile: str) -> dict[str, dict]:
    """The parameters of every section under ``profile`` (a file in ``notebooks/params/``)."""
    path = paths.PROFILES / f"{profile}.yaml"
    if not path.is_file():
        raise ValueError(f"unknown profile {profile!r}; available: {available_profiles()}")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"profile {path} must map section names to parameter mappings")
    for name in data:
        section(name)
    return data


def parse_overrides(items: list[str]) -> dict:
    """``["r_star=4", "seeds=[0, 1]"]`` → ``{"r_star": 4, "seeds": [0, 1]}`` (values are Python literals;
    a bare word such as ``spectrum=flat`` is taken as a string)."""
    params = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise ValueError(f"parameter override {item!r} is not of the form name=value")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            value = text.strip()
        params[name.strip()] = list(value) if isinstance(value, tuple) else value
    return params


def resolve_params(name: str, profile: str = DEFAULT_PROFILE, overrides: dict | None = None) -> dict:
    """Profile parameters of a section with ``overrides`` applied, validated by its config class."""
    params = dict(load_profile(profile).get(name, {}))
    params.update(overrides or {})
    section(name).config.from_params(params)  # raises ValueError naming the bad parameter
    return params


def fingerprint(name: str, params: dict) -> str:
    """Hash of everything an executed notebook depends on: its source, the library, its parameters."""
    digest = hashlib.sha256(paths.notebook_source(name).read_bytes())
    for module in sorted((paths.ROOT / "lib" / "entropic").glob("*.py")):
        digest.update(module.read_bytes())
    digest.update(json.dumps(params, sort_keys=True).encode())
    return digest.hexdigest()[:16]


def stored_fingerprint(name: str) -> str | None:
    """Fingerprint recorded in the executed notebook, None if there is none yet.

    Raises ``ValueError`` when the file exists but is not a readable executed notebook.
    """
    path = paths.executed_notebook(name)
    if not path.exists():
        return None
    try:
        meta = json.loads(path.read_text())["metadata"]["entropic"]
        return meta["fingerprint"]
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is corrupt or was not written by this project ({error!r}); "
                         f"delete it to re-execute the section") from error


def execute(name: str, params: dict, profile: str = DEFAULT_PROFILE, progress: bool = True,
            out_dir: Path = paths.EXECUTED) -> Path:
    """Execute one section notebook with papermill into ``out_dir``; returns the executed notebook.

    The notebook runs with ``out_dir`` as its working directory, where it also saves its tables as CSV.
    """
    import jupytext
    import nbformat
    import papermill

    source = paths.notebook_source(name)
    stamp = fingerprint(name, params)  # what the run starts from, even if files change meanwhile
    out_dir.mkdir(parents=True, exist_ok=True)
    notebook = jupytext.read(source)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    staged_input = out_dir / f"{name}.input.ipynb"
    staged_output = out_dir / f"{name}.running.ipynb"
    nbformat.write(notebook, staged_input)
    try:
        papermill.execute_notebook(staged_input, staged_output, parameters=params, kernel_name="python3",
                                   progress_bar=progress, cwd=str(out_dir))
    except Exception as error:
        failed = out_dir / f"{name}.failed.ipynb"
        if staged_output.exists():
            staged_output.replace(failed)
        raise RuntimeError(f"section {name!r} failed; the executed notebook is at {failed}") from error
    finally:
        staged_input.unlink(missing_ok=True)
    executed = nbformat.read(staged_output, as_version=4)
    executed.metadata["entropic"] = {"section": name, "profile": profile, "params": params,
                                     "fingerprint": stamp}
    nbformat.write(executed, staged_output)
    target = out_dir / f"{name}.ipynb"
    staged_output.replace(target)
    return target


def ensure_executed(profile: str = DEFAULT_PROFILE, force: bool = False, only_missing: bool = False,
                    progress: bool = True, log=print) -> None:
    """Execute every section whose stored fingerprint differs from its current one (or, with
    ``only_missing``, every section that has no executed notebook at all)."""
    plans = {name: resolve_params(name, profile) for name in SECTIONS}  # validate all before running any
    for name, params in plans.items():
        stored = stored_fingerprint(name)
        if not force and (stored == fingerprint(name, params) or (only_missing and stored is not None)):
            log(f"[entropic] {name}: kept ({paths.executed_notebook(name).relative_to(paths.ROOT)})")
            continue
        log(f"[entropic] {name}: executing with profile {profile!r} {params}")
        execute(name, params, profile, progress)


def build_book(root: Path = paths.ROOT, log=print) -> Path:
    """Build the HTML book under ``root`` with Jupyter Book 1, warnings as errors; returns index.html.

    ``root`` holds ``_config.yml``, ``_toc.yml``, ``book/`` and the executed ``build/sections/``.
    """
    missing = [n for n in SECTIONS if not (root / paths.EXECUTED.relative_to(paths.ROOT) / f"{n}.ipynb").exists()]
    if missing:
        raise RuntimeError(f"sections not executed yet: {missing}; run `make book` first")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book if jupyter_book.exists() else shutil.which("jupyter-book")),
               "build", str(root), "--warningiserror", "--keep-going", "--quiet"]
    log(f"[entropic] building the book: {' '.join(command)}")
    subprocess.run(command, check=True, cwd=root)
    index = root / paths.HTML.relative_to(paths.ROOT) / "index.html"
    log(f"[entropic] the book is at {index}")
    return index
