"""What a page computes from the library alone (the teaching page's and the theory page's experiments), computed once
per version of the code it runs and set of arguments; and a section's rows of the claims ledger
(``ledger.section_rows``), computed once per version of the library, which name what else they are computed from, the
section page's fingerprint, among their arguments.

A page that computes what it shows renders again whenever its inputs change: a stored result it also reads, its
profile, any library file. Most of its computations depend on none of these but some of the library, so rendering it
again at another profile, after an edit of code they do not run, or after an edit is undone, would repeat them to the
last bit. :class:`Remembered` wraps a library module for a page: each call of one of its functions is computed once
and stored under ``build/computed/<function>-<version>/`` (``version``: a digest of the code the function reaches, as
the jobs' version keys hash it (``jobs.versions.code_key``: its syntax, so a comment or a docstring changes nothing),
the thread count and the versions of Python, torch, NumPy and pandas), and read back from there by the next render of
any page that makes the same call. A call through :func:`remembered_call` (the ledger's rows, whose code is found at
run time) is stored under ``build/computed/<version>/``, ``version`` a digest of every library file instead. The
functions are seeded through their arguments (no global random state), so a value read back is the value a new call
computes. A stored value that cannot be read is an error naming its file, never recomputed in silence.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys

from .. import paths
from ..jobs import versions

KEPT = 4  # versions (of a function's code, or of the library) whose computations stay stored: the newest


def version() -> str:
    """What a stored computation depends on besides its function and arguments: the library's files, the torch
    threads, and the versions of Python and of the packages that compute and hold the values."""
    return hashlib.sha256("\n".join([versions.library_digest(), *_environment()]).encode()).hexdigest()[:16]


def code_version(function) -> str:
    """What a remembered experiment depends on besides its arguments: the code ``function`` reaches
    (``jobs.versions.code_key``), the torch threads, and the versions of Python and of the packages that compute and
    hold the values."""
    return hashlib.sha256("\n".join([_code_key(function), *_environment()]).encode()).hexdigest()[:16]


@functools.cache
def _code_key(function) -> str:
    return versions.code_key(function)


def _environment() -> list[str]:
    import numpy
    import pandas
    import torch

    return [str(torch.get_num_threads()), sys.version.split()[0], torch.__version__, numpy.__version__,
            pandas.__version__]


PLAIN = (int, float, str, bool, type(None))


def _plain(value) -> bool:
    """Whether ``value`` is a number, a string, True/False/None, or a tuple, list or dict of these: a value its
    ``repr`` names whole (a table's repr, say, shows part of it)."""
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return isinstance(value, PLAIN)


def _call_key(function, args: tuple, kwargs: dict) -> str:
    """The file name of one call: its function and a digest of its arguments, which must be plain values."""
    if not _plain((args, kwargs)):
        raise TypeError(f"{function.__qualname__} is called with an argument other than numbers, strings and "
                        "tuples, lists or dicts of these: call it directly, not through memo.Remembered")
    shown = repr((function.__module__, function.__qualname__, args, sorted(kwargs.items())))
    return f"{function.__qualname__}-{hashlib.sha256(shown.encode()).hexdigest()[:16]}.pickle"


def remembered_call(function, *args, **kwargs):
    """``function(*args, **kwargs)``, read from ``build/computed/`` where this library version stored it before."""
    return _remembered(paths.BUILD / "computed" / version(), function, args, kwargs)


def remembered_experiment(function, *args, **kwargs):
    """``function(*args, **kwargs)``, read from ``build/computed/`` where this version of the code it reaches stored
    it before (:func:`code_version`)."""
    folder = paths.BUILD / "computed" / f"{function.__module__}.{function.__qualname__}-{code_version(function)}"
    return _remembered(folder, function, args, kwargs)


def _remembered(folder, function, args: tuple, kwargs: dict):
    path = folder / _call_key(function, args, kwargs)
    if path.exists():
        try:
            return pickle.loads(path.read_bytes())
        except Exception as error:
            raise RuntimeError(f"{path} cannot be read ({error!r}): delete it, and the page computes it "
                               "again") from error
    value = function(*args, **kwargs)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        kind = folder.name.rpartition("-")[0]  # a function's versions, or (no name) the library's
        paths.keep_newest(folder.parent, KEPT, lambda p: p.name.rpartition("-")[0] == kind)
    staged = path.with_name(f"{path.name}.{os.getpid()}.partial")
    staged.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    staged.replace(path)  # whole or not at all, whichever page writes it first
    return value


class Remembered:
    """A library module whose functions a page calls through :func:`remembered_experiment`: ``computed =
    Remembered(teaching)``, then ``computed.break_demo(T=8)``. Anything else of the module (a class, a constant) is
    the module's own."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name: str):
        value = getattr(self._module, name)
        if callable(value) and not isinstance(value, type):
            return functools.partial(remembered_experiment, value)
        return value
