"""Version keys: a hash of the code a job runs, as syntax, not text.

A stored result is current while the code that computed it is unchanged. "The code" is everything a
job's fit function can reach: starting from the section's ``fit`` (or, when the section maps job
kinds to their own functions in ``FITS``, from the function of the job's kind), every function, class
and module-level constant of this package that it names, followed transitively across modules —
through ``from .x import f``, through ``module.attribute`` accesses, through the methods and base
classes of every class reached and through the values of module-level containers (a dict of classes,
a tuple of names). Code outside the package (torch, NumPy) is not hashed; its versions are part of
each entry's provenance.

Each piece is hashed as its **normalized syntax tree**: docstrings removed, comments and formatting
gone with the text (``ast.dump``). So a comment, a docstring or a re-wrapped line changes no key; a
changed constant, default or statement changes the key of exactly the jobs whose code reaches it, and
nothing else: editing the estimators of §4 leaves the training jobs of §5 current, and a figure or a
verdict is never part of any key (no fit function reaches them).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import re
import sys
import textwrap
import threading
import types
import weakref
from pathlib import Path, PurePath

from .. import paths


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _dump(node) -> str:
    """A syntax tree as text, the same on every Python version: node names and field values, with
    empty fields (None, []) left out (3.12 added ``type_params=[]`` to every function, 3.13's
    ``ast.dump`` drops empty fields; neither changes what the code computes)."""
    if isinstance(node, ast.AST):
        fields = [_dump(value) for _, value in ast.iter_fields(node) if value is not None and value != []]
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(_dump(item) for item in node) + "]"
    return repr(node)


def normalized_source(obj) -> str:
    """The syntax tree of a function's or class's source, docstrings removed, as version-independent text."""
    try:
        source = inspect.getsource(obj)
    except (OSError, TypeError):  # generated code without a file: its bytecode stands in
        return getattr(getattr(obj, "__code__", None), "co_code", b"").hex()
    return _dump(_strip_docstrings(ast.parse(textwrap.dedent(source))))


# Each object's normalized source, read once per process: a function reached by several sections' jobs (the engine's
# estimators, the training loop) is read once, not once per section and kind (a third of the time of every command
# that checks the store, each computing every section's keys). Like the keys, it holds while the object exists: an
# edited module is a new module object, with new objects.
_NORMALIZED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _normalized(obj) -> str:
    known = _NORMALIZED.get(obj)
    if known is None:
        known = _NORMALIZED[obj] = normalized_source(obj)
    return known


def _codes(obj) -> list[types.CodeType]:
    """The code objects of a function, or of every method of a class (properties and static methods
    included), with the code objects nested in them (lambdas, comprehensions, inner functions)."""
    if inspect.isclass(obj):
        members = []
        for member in vars(obj).values():
            member = getattr(member, "__func__", member)  # staticmethod, classmethod
            if isinstance(member, property):
                members += [f for f in (member.fget, member.fset, member.fdel) if f is not None]
            elif inspect.isfunction(member):
                members.append(member)
        todo = [m.__code__ for m in members]
    else:
        todo = [obj.__code__]
    found = []
    while todo:
        code = todo.pop()
        found.append(code)
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return found


class _Walker:
    """Collects the normalized pieces of code reachable from an entry point within one package."""

    def __init__(self, package: str):
        self.package = package
        self.pieces: dict[str, str] = {}  # qualified name -> normalized source or stable value
        self._todo: list = []

    def ours(self, obj) -> bool:
        module = getattr(obj, "__module__", None) or ""
        return module == self.package or module.startswith(self.package + ".")

    def visit(self, entry) -> dict[str, str]:
        self._todo.append(entry)
        while self._todo:
            obj = inspect.unwrap(self._todo.pop())
            name = f"{obj.__module__}.{obj.__qualname__}"
            if name in self.pieces:
                continue
            self.pieces[name] = _normalized(obj)
            namespace = vars(sys.modules[obj.__module__]) if inspect.isclass(obj) else obj.__globals__
            names = {n for code in _codes(obj) for n in code.co_names}
            if inspect.isclass(obj):
                self._todo += [base for base in obj.__mro__[1:] if self.ours(base)]
            for n in names:
                if n in namespace and not n.startswith("__"):  # never __file__ & co (machine-local)
                    self._reference(f"{obj.__module__}.{n}", namespace[n], names)
        return self.pieces

    def _reference(self, name: str, value, names: set[str]) -> None:
        """A global named in reachable code: follow what belongs to the package, record constants."""
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith(self.package):  # ``module.attribute``: follow the attributes named
                for n in names & set(vars(value)):
                    self._reference(f"{value.__name__}.{n}", vars(value)[n], set())
            return
        if inspect.isfunction(value) or inspect.isclass(value):
            if self.ours(value):
                self._todo.append(value)
            return
        if callable(value):  # functools.partial, builtins, torch functions: not ours, or not hashable code
            return
        self.pieces.setdefault(name, self._stable(value))

    def _stable(self, value) -> str:
        """A representation of a module-level value that does not depend on memory addresses; classes and
        functions inside it are followed like any other reference."""
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self._stable(k)}: {self._stable(v)}" for k, v in
                                   sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
        if isinstance(value, (list, tuple, set, frozenset)):
            items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
            return f"{type(value).__name__}({', '.join(self._stable(v) for v in items)})"
        if inspect.isfunction(value) or inspect.isclass(value):
            if self.ours(value):
                self._todo.append(value)
            return f"<{value.__qualname__}>"
        if isinstance(value, PurePath):  # a location, not a computation (and machine-local)
            return "Path"
        text = repr(value)
        return type(value).__name__ if " at 0x" in text else text


def entry_point(module: types.ModuleType, kind: str | None = None):
    """The function that computes a job of ``kind``: ``module.FITS[kind]`` where the section declares
    ``FITS``, else ``module.fit``."""
    fits = getattr(module, "FITS", None)
    if fits is not None and kind in fits:
        return fits[kind]
    return module.fit


def reachable(module: types.ModuleType, kind: str | None = None) -> dict[str, str]:
    """``qualified name -> normalized code`` of everything a job of ``kind`` can reach (see the module
    docstring)."""
    package = module.__name__.split(".")[0]
    return _Walker(package).visit(entry_point(module, kind))


# One walk at a time: the book renders pages on threads, and CPython 3.11's parser is not safe for
# concurrent ast.parse calls ("SystemError: AST constructor recursion depth mismatch").
_PARSING = threading.Lock()


# The keys of each imported module, computed once per process: a module's code does not change while it is
# imported (an edited copy is a new module object), and a build asks for every section's keys once per page.
_KEYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def version_key(module: types.ModuleType, kind: str | None = None) -> str:
    """The version key of a section's jobs of ``kind``: the hash of :func:`reachable` (computed once per
    imported module and kind, and for the library's own sections stored for the next process: :func:`_stored_key`)."""
    known = _KEYS.setdefault(module, {})
    if kind not in known:
        known[kind] = _stored_key(module, kind)
    return known[kind]


# The keys of the library's own sections, kept for the processes that follow (build/computed/version-keys-<digest>/,
# a file per section and kind): every command and every page's kernel asks for the keys of the sections it shows
# (``make book``: every section's), and walking their code costs most of a second each time. ``digest`` hashes every
# file of the library and the Python version that parses them, so that after any edit of any file no key stored
# before it is read; a key is stored only where the library did not change while its code was walked. A section of
# one's own, outside the library (ENTROPIC_SECTIONS), is walked every time.
KEPT_KEY_SETS = 4  # the newest versions of the library whose keys stay stored


def _stored_key(module: types.ModuleType, kind: str | None) -> str:
    file = getattr(module, "__file__", None)
    if not file or paths.PACKAGE not in Path(file).parents:
        return _version_key(module, kind)
    digest = _key_set()
    folder = paths.BUILD / "computed" / f"version-keys-{digest}"
    path = folder / f"{module.__name__}.{kind}.txt"
    if path.is_file():
        key = path.read_text().strip()
        if not re.fullmatch(r"[0-9a-f]{12}", key):
            raise RuntimeError(f"{path} holds no version key ({key[:40]!r}): delete it, and the key is computed "
                               "again")
        return key
    key = _version_key(module, kind)
    if _key_set() == digest:  # the library did not change while its code was walked
        try:
            if not folder.is_dir():
                folder.mkdir(parents=True, exist_ok=True)
                paths.keep_newest(folder.parent, KEPT_KEY_SETS, lambda p: p.name.startswith("version-keys-"))
            staged = path.with_name(f"{path.name}.{os.getpid()}.partial")
            staged.write_text(key + "\n")
            staged.replace(path)  # whole or not at all, whichever process writes it first
        except OSError:  # a build folder that cannot be written: the next process walks the code again
            pass
    return key


def _key_set() -> str:
    return f"{library_digest()[:16]}-py{sys.version_info[0]}.{sys.version_info[1]}"


_SOURCES: dict[tuple, tuple[tuple[Path, bytes], ...]] = {}  # the library's files as last read, by sizes and times


def library_sources() -> tuple[tuple[Path, bytes], ...]:
    """Every Python file of the library with its bytes, in path order: read once and again only when a file is added,
    removed or changed (a build asks for each page's fingerprint, and the ledger's and the intro's take every
    section's)."""
    files = sorted(paths.PACKAGE.rglob("*.py"))
    key = tuple((path, stat.st_mtime_ns, stat.st_size) for path, stat in ((path, path.stat()) for path in files))
    sources = _SOURCES.get(key)
    if sources is None:  # pages render in threads: each keeps what it read, whichever stores it last
        sources = tuple((path, path.read_bytes()) for path in files)
        _SOURCES.clear()
        _SOURCES[key] = sources
    return sources


def library_digest() -> str:
    """A digest of every file of the library, its path and its bytes (:func:`library_sources`)."""
    return _digest(library_sources())


@functools.cache
def _digest(sources: tuple[tuple[Path, bytes], ...]) -> str:
    digest = hashlib.sha256()
    for path, code in sources:
        digest.update(path.relative_to(paths.PACKAGE).as_posix().encode() + b"\0" + code)
    return digest.hexdigest()


def _version_key(module: types.ModuleType, kind: str | None) -> str:
    with _PARSING:
        pieces = reachable(module, kind)
    return _hashed(pieces)


def code_key(function) -> str:
    """The hash of the code ``function`` reaches within its package, as a job's key hashes its fit function's: what a
    page's remembered experiment (``publish.memo``) depends on besides its arguments."""
    with _PARSING:
        pieces = _Walker(function.__module__.split(".")[0]).visit(function)
    return _hashed(pieces)


def _hashed(pieces: dict[str, str]) -> str:
    # Hashed under their names without the module, so moving a function between modules changes nothing.
    digest = hashlib.sha256()
    for name, piece in sorted((name.rsplit(".", 1)[-1] if "<" not in name else name, piece)
                              for name, piece in pieces.items()):
        digest.update(name.encode() + b"\0" + piece.encode() + b"\0")
    return digest.hexdigest()[:12]
