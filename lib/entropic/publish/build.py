"""Execute section notebooks with papermill and assemble the Jupyter Book.

A section notebook's ``parameters`` cell holds ``profile`` and ``overrides``; papermill injects them,
and the notebook reads its results through ``runner.run`` (which computes nothing when the store is
complete). The executed notebook goes to ``build/sections/<section>.ipynb``, the page the book shows,
with a fingerprint of what it was made from: its source, the non-engine library code (sections,
figures, verdicts, …), its parameters and the stored entries it read (for a page that reads every
section's results, the ledger, those of every section). An unchanged fingerprint skips
execution; a notebook that fails keeps the last good page and is written beside it as
``<section>.failed.ipynb``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .. import paths, registry
from ..jobs import profiles, runner, store, versions
from . import launch, site

TOC_FOLDER = "build/sections"  # where _toc.yml expects the executed section pages, relative to the book root


def record(kind: str, *what: str) -> None:
    """Append one line, ``kind`` and ``what`` separated by tabs, to the file ``ENTROPIC_BUILD_LOG`` names, when it
    is set: each page rendered (``render``), each book built (``book``) and each PDF printed (``print``), so that
    the tests count the work a run did. One short write in append mode: processes that share the file never
    interleave their lines."""
    log = os.environ.get("ENTROPIC_BUILD_LOG")
    if log:
        with open(log, "a") as file:
            file.write("\t".join((kind, *what)) + "\n")


def is_section(name: str) -> bool:
    """Whether a notebook of the table of contents is a paper section (a module with jobs and a store)
    rather than a page (theory, teaching, ledger) that only calls the library."""
    return name in registry.names()


FALLBACKS = ("quick",)  # committed smaller profiles a page may show when its own profile has no results


def fingerprint(section: str, profile: str, overrides: dict, planned: tuple | None = None) -> str:
    """What a page is made from: its source, the library outside the engine (a page reads the engine
    directly, so a page's engine code counts too), its parameters, the stored entries it reads and the
    version keys of the code its jobs run now (so an engine edit that stales a section's jobs marks its
    page, and reverting the edit clears the mark); a section page that also shows another section's results
    (its module's ``READS``) includes that section's fingerprint. A page that reads sections' stored results
    (:func:`reads_results`: every section for the ledger, two for the teaching page) includes the fingerprint of
    each at the profile it shows, so that any entry it reads, changed, added or deleted, renders it again.
    ``planned``: the section's ``runner.plan`` at these arguments, when the caller has it (a page's build plans its
    jobs once)."""
    source = paths.notebook_source(section).read_bytes()
    digest = hashlib.sha256(source)
    for path, code in versions.library_sources():
        if paths.ENGINE not in path.parents or not is_section(section):
            digest.update(code)
    read = () if is_section(section) else reads_results(source)
    if is_section(section) or read:  # a page that computes what it shows is the same at any profile
        digest.update(json.dumps([profile, overrides], sort_keys=True, default=str).encode())
    if not is_section(section):
        for name in read:
            digest.update(fingerprint(name, shown_profile(name, profile, {}), {}).encode())
        return digest.hexdigest()[:16]
    module, _, jobs = planned or runner.plan(section, profile, overrides)
    shelf = store.Store(runner.label_of(profile, overrides), section)
    for job in jobs:
        path = shelf.path(job)
        digest.update(path.read_bytes() if path.exists() else b"missing")
    for kind in sorted({str(job.params.get("kind")) for job in jobs}):
        digest.update(versions.version_key(module, None if kind == "None" else kind).encode())
    for other in getattr(module, "READS", ()):  # sections whose stored results this section's page also shows
        digest.update(fingerprint(other, shown_profile(other, profile, {}), {}).encode())
    return digest.hexdigest()[:16]


def reads_results(source: bytes) -> tuple[str, ...]:
    """The sections whose stored results a page's notebook declares it reads, in its header: every section of the
    book (``entropic: reads_results: true``) or those it names (``reads_results: [ladder, real_corpora]``); none for a
    page that computes everything it shows (the same at every profile). A name that is no section raises
    ValueError."""
    declared = _declared(source, "reads_results")
    if not declared:
        return ()
    sections = toc_sections()
    if declared is True:
        return tuple(sections)
    names = [declared] if isinstance(declared, str) else list(declared)
    unknown = [name for name in names if name not in sections]
    if unknown:
        raise ValueError(f"reads_results names {', '.join(map(repr, unknown))}, which the book has no section of "
                         f"(its sections: {', '.join(sections)})")
    return tuple(names)


def renders_after(source: bytes) -> tuple[str, ...]:
    """The pages of the book a page's notebook declares it renders after, in its header (``entropic: renders_after:
    [ledger]``: the intro, which states the ledger's verdicts, reads the section rows the ledger computed and stored,
    ``ledger.section_rows``); a name that is no page of the book raises ValueError."""
    names = _declared(source, "renders_after") or []
    names = [names] if isinstance(names, str) else list(names)
    pages = toc_notebooks()
    unknown = [name for name in names if name not in pages]
    if unknown:
        raise ValueError(f"renders_after names {', '.join(map(repr, unknown))}, which the book has no page of "
                         f"(its pages: {', '.join(pages)})")
    return tuple(names)


def _declared(source: bytes, key: str):
    """What a notebook's header declares under ``entropic: <key>``; None where it declares nothing."""
    import yaml

    text = source.decode()
    if not text.startswith("---"):
        return None
    header = yaml.safe_load(text.split("---", 2)[1]) or {}
    return (header.get("entropic") or {}).get(key)


def stored_fingerprint(path: Path) -> str | None:
    """The fingerprint an executed notebook records; None if there is no notebook. A file that is not
    an executed notebook of this project raises ``ValueError`` naming it."""
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())["metadata"]["entropic"]["fingerprint"]
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is corrupt or was not written by this project ({error!r}); "
                         f"delete it to re-execute the section") from error


def shown_profile(section: str, profile: str, overrides: dict, planned: tuple | None = None) -> str:
    """The profile a page shows: its own, or, when a committed profile has no result of this section at
    all, the first committed smaller profile (``FALLBACKS``) whose results are complete. ``planned``: the
    section's ``runner.plan`` at ``profile``, when the caller has it."""
    if overrides or not is_section(section) or runner.label_of(profile, overrides) not in runner.COMMITTED:
        return profile
    if _holding(section, profile, planned).stored:
        return profile
    for smaller in FALLBACKS:
        if smaller in profiles.available_profiles() and (paths.RESULTS / smaller / section).is_dir():
            held = _holding(section, smaller)  # a fallback is shown only complete and current
            if held.current and not held.stale and not held.missing:
                return smaller
    return profile


def _holding(section: str, profile: str, planned: tuple | None = None) -> store.Holding:
    """What the store holds of a section's jobs at a profile (no overrides), read without running anything."""
    module, _, jobs = planned or runner.plan(section, profile)
    return store.Store(runner.label_of(profile, {}), section).holding(jobs, functools.partial(versions.version_key,
                                                                                             module))


def _book_extras() -> None:
    """Rendering pages and building the book need the ``[book]`` extras: say so when they are missing."""
    import importlib.util

    missing = [name for name in ("jupytext", "papermill", "nbformat", "jupyter_book")
               if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"the book needs the project's [book] extras ({', '.join(missing)} missing): "
                           f"pip install 'entropic[book]' (make book installs them)")


def execute(section: str, profile: str, overrides: dict, out_dir: Path | None = None, force: bool = False,
            log=print) -> Path:
    """Execute one notebook into ``out_dir`` (default ``build/sections``) unless its page is current."""
    import jupytext
    import nbformat
    import papermill

    out_dir = out_dir or paths.EXECUTED
    target = out_dir / f"{section}.ipynb"
    # A section page plans its jobs once: what it shows, its fingerprint and its run read the same plan.
    planned = runner.plan(section, profile, overrides) if is_section(section) else None
    shown = shown_profile(section, profile, overrides, planned)
    if shown != profile:  # a committed profile with nothing stored shows a smaller one: that profile's jobs
        planned = runner.plan(section, shown, overrides)
    _book_extras()

    def stamp_now() -> str:
        return fingerprint(section, shown, overrides, planned) + ("" if shown == profile else f"/{profile}")

    stamp = stamp_now()
    if not force and stored_fingerprint(target) == stamp:
        log(f"[entropic] {section}: page is current ({target.relative_to(out_dir.parent)})")
        return target
    label = runner.label_of(shown, overrides)
    if not force and is_section(section) and _restore(section, stamp, label, out_dir):
        log(f"[entropic] {section}: page restored, rendered before from the same inputs "
            f"({target.relative_to(out_dir.parent)})")
        return target
    out_dir.mkdir(parents=True, exist_ok=True)
    notebook = jupytext.read(paths.notebook_source(section))
    if is_section(section):
        results = runner.run(section, shown, overrides, progress=False, log=lambda *_: None, planned=planned)
        if not results.entries:  # nothing stored and nothing to compute (a committed profile): say so
            notebook = _placeholder(notebook, section, profile, results.corrupt)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    staged_input, staged_output = out_dir / f"{section}.input.ipynb", out_dir / f"{section}.running.ipynb"
    nbformat.write(notebook, staged_input)
    log(f"[entropic] {section}: rendering the page" + ("" if shown == profile else f" (showing `{shown}`)"))
    record("render", section, shown, str(out_dir))
    parameters = {"profile": shown, "overrides": overrides, "requested": profile if shown != profile else None}
    try:
        papermill.execute_notebook(staged_input, staged_output, kernel_name="python3", progress_bar=False,
                                   parameters=parameters, cwd=str(out_dir), kernel_manager_class=_kernel_manager(),
                                   extra_arguments=KERNEL_ARGUMENTS)
    except Exception as error:
        failed = out_dir / f"{section}.failed.ipynb"
        if staged_output.exists():
            staged_output.replace(failed)
        raise RuntimeError(f"section {section!r} failed; the executed notebook is at {failed}") from error
    finally:
        staged_input.unlink(missing_ok=True)
    executed = launch.downloadable(nbformat.read(staged_output, as_version=4), section)
    if is_section(section) and results.computed:  # stamped with the entries the page read, computed ones too
        stamp = stamp_now()
    executed.metadata["entropic"] = {"section": section, "profile": shown, "overrides": overrides, "fingerprint": stamp}
    nbformat.write(executed, staged_output)
    staged_output.replace(target)
    if is_section(section):
        _keep(section, stamp, label, out_dir)
    return target


# A section page rendered is kept, with the tables it wrote, under build/rendered/<section>/<fingerprint>/, so that a
# page asked for again from the same inputs is restored instead of rendered: the paper page that a run with parameters
# of one's own replaced (the next make book, or the next run of another section, shows it again), or the page of an
# edit of the library that was undone. A section page writes nothing but its notebook and its tables (``page.save``:
# build/tables/<label>/<section>/); the other pages, which write more (the lesson's materials, the ledger's tables),
# render again.
KEPT_RENDERS = 4  # the renders kept of each section page, the newest


def _kept(section: str, stamp: str, out_dir: Path) -> Path:
    return out_dir.parent / "rendered" / section / stamp.replace("/", "-")


def _keep(section: str, stamp: str, label: str, out_dir: Path) -> None:
    """Keep the page just rendered and the tables it wrote (the ``KEPT_RENDERS`` newest of the section)."""
    kept = _kept(section, stamp, out_dir)
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    shutil.copy2(out_dir / f"{section}.ipynb", kept / "page.json")  # not .ipynb: no page of the book's source folder
    tables = paths.TABLES / label / section
    if tables.is_dir():
        shutil.copytree(tables, kept / "tables")
    paths.keep_newest(kept.parent, KEPT_RENDERS)


def _restore(section: str, stamp: str, label: str, out_dir: Path) -> bool:
    """Put back the page kept from a render with fingerprint ``stamp``, and its tables; False when none is kept. A kept
    page whose fingerprint is not ``stamp`` (an edited or damaged copy) is an error naming it."""
    kept = _kept(section, stamp, out_dir)
    if not (kept / "page.json").is_file():
        return False
    found = stored_fingerprint(kept / "page.json")
    if found != stamp:
        raise ValueError(f"{kept / 'page.json'} holds the page of fingerprint {found}, not {stamp}: delete "
                         f"{kept}, and the page renders again")
    tables = paths.TABLES / label / section
    shutil.rmtree(tables, ignore_errors=True)
    if (kept / "tables").is_dir():
        shutil.copytree(kept / "tables", tables)
    out_dir.mkdir(parents=True, exist_ok=True)
    staged = out_dir / f"{section}.restoring.ipynb"
    shutil.copy2(kept / "page.json", staged)
    staged.replace(out_dir / f"{section}.ipynb")
    os.utime(kept)  # the newest use: kept the longest
    return True


# The kernel logs errors only: at its default level it warns, once per page, that its ports on localhost are
# not encrypted, which a kernel that lives for one page on this machine does not need. Errors of a page's
# cells are not kernel log lines: they fail the page (papermill raises, naming the cell).
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]


@functools.cache
def _kernel_manager():
    """jupyter_client's kernel manager, except that a kernel being shut down is not interrupted first. Its
    notebook has finished (papermill waited for every reply), and the interrupt could land while the kernel
    was still finishing its last reply, which it then logged as an error ("KeyboardInterrupt caught in
    kernel"). A kernel that is not shutting down is interrupted as before. And the kernel starts warm: forked from a
    process that has imported torch already (publish/kernels.py)."""
    from jupyter_client.manager import AsyncKernelManager

    from . import kernels

    class PageKernel(AsyncKernelManager):
        async def _async_interrupt_kernel(self) -> None:
            if not getattr(self, "shutting_down", False):
                await super()._async_interrupt_kernel()

        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            return kernels.warm_command(super().format_kernel_cmd(extra_arguments))

    return PageKernel


def _placeholder(notebook, section: str, profile: str, corrupt: list[tuple[str, str]]):
    """The page of a section with no readable stored results in a committed profile: its title and
    introduction, what is wrong (nothing stored yet, or only ``corrupt`` entries) and how to compute it."""
    import nbformat

    intro = next(c for c in notebook.cells if c.cell_type == "markdown")
    what = (f"The {len(corrupt)} stored entries of the `{profile}` profile of this section are all corrupt "
            f"(truncated, or failing their checksum)" if corrupt else
            f"No results of the `{profile}` profile are stored for this section yet")
    note = (f"```{{warning}}\n{what}. `{runner.resume_command(section, profile, {})}` computes them (it resumes "
            f"where an earlier run stopped); `make book PROFILE={profile}` then shows them here.\n```")
    page = nbformat.v4.new_notebook(metadata=notebook.metadata)
    page.cells = [intro, nbformat.v4.new_markdown_cell(note),
                  nbformat.v4.new_code_cell('profile = "quick"', metadata={"tags": ["parameters", "remove-cell"]})]
    return page


def execute_all(pages: list[tuple[str, str, dict]], workers: int | None = None, log=print) -> list[Path]:
    """Render several pages, ``(name, profile, overrides)`` each, ``workers`` at a time (default: one per
    CPU core; each page runs in its own kernel process). A page that reads other sections' stored results (the
    ledger and the intro every section's, the teaching page two, a section its module's ``READS``), or declares it
    renders after another page (the intro, after the ledger: :func:`reads_from`), starts once those pages, which may
    compute what it reads, have run, and the pages that let a page start soonest go first, so the teaching page (the
    longest) runs beside the other sections instead of after them. A section page of a committed profile (the
    paper's, with no parameters of one's own) computes nothing (:func:`shown_profile` shows a smaller profile only
    complete), so a page that reads its stored results does not wait for it: ``make book`` starts the teaching page at
    once. Errors are raised after every page has run, the first one first, so one failing page does not stop the
    others."""
    import concurrent.futures
    import threading

    lock = threading.Lock()

    def said(line: str) -> None:  # one page's line at a time: print writes a line and its end separately
        with lock:
            log(line)

    names = [name for name, _, _ in pages]
    read = [reads_from(name) for name in names]
    # Whether a page that reads it waits for it: a page that writes what its reader reads (the ledger's section rows),
    # or a section page that may compute results (any but a committed profile's).
    awaited = [not is_section(name) or runner.label_of(profile, overrides) not in runner.COMMITTED
               for name, profile, overrides in pages]
    waits = {i: {j for j, other in enumerate(names) if j != i and other in read[i] and awaited[j]}
             for i in range(len(pages))}

    def first(i: int) -> tuple[int, bool, int]:
        """Among the pages ready, the one nearest to letting a waiting page start: a page waiting for k pages, and
        each page it waits for, rank k (the teaching page and its two sections before the sections only the
        ledger waits for); a page nobody waits for and that waits for none, last; then a page that reads other
        pages' results before one that reads none (it draws on several sections: the teaching page, the longest,
        starts at once at a committed profile, not after the short pages listed before it); then the order of the
        list."""
        near = [len(waits[i])] if waits[i] else []
        near += [len(waits[w]) for w in waits if i in waits[w]]
        return min(near, default=len(pages) + 1), not read[i], i

    workers = workers or int(os.environ.get("ENTROPIC_PAGE_WORKERS", 0)) or os.cpu_count() or 1
    futures: dict[int, concurrent.futures.Future] = {}  # page index -> future
    todo, running, began = set(range(len(pages))), set(), {}

    def rendering() -> str:  # what the heartbeat says: the pages still running, each with its time so far
        now = time.monotonic()
        return ", ".join(f"{names[i]} ({now - began[i]:.0f} s)" for i in sorted(running, key=began.get)
                         if not futures[i].done())

    with _threads_per_kernel(workers), concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool, \
            heartbeat(lambda: (f"[entropic] still rendering: {text}" if (text := rendering()) else ""), said):
        while todo or running:
            ran = {i for i in futures if futures[i].done()}
            for i in sorted((i for i in todo if waits[i] <= ran), key=first)[:workers - len(running)]:
                began[i] = time.monotonic()
                futures[i] = pool.submit(execute, *pages[i], log=said)
                todo.discard(i)
                running.add(i)
            if not running:  # every page left waits for another page left
                raise ValueError(f"the pages {', '.join(names[i] for i in sorted(todo))} wait for each other's results")
            concurrent.futures.wait([futures[i] for i in running], return_when=concurrent.futures.FIRST_COMPLETED)
            running = {i for i in running if not futures[i].done()}
    ordered = [futures[i] for i in range(len(pages))]
    errors = [f.exception() for f in ordered if f.exception() is not None]
    if errors:
        raise errors[0]
    return [f.result() for f in ordered]


TICK = 10  # seconds: the longest a command that renders or builds the book stays silent


@contextlib.contextmanager
def heartbeat(line, log, every: float = TICK):
    """While the block runs, ``log(line())`` every ``every`` seconds (a line that is empty says nothing), so that a
    person watching a render or a build that takes minutes sees what it is doing."""
    import threading

    stop = threading.Event()

    def beat():
        while not stop.wait(every):
            if text := line():
                log(text)

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def _threads_per_kernel(workers: int):
    """While pages render ``workers`` at a time, each page's kernel takes its share of the cores: ``OMP_NUM_THREADS``,
    which the kernel's torch reads when it starts, unless the caller set it (torch on every core in each of two
    kernels made the book's pages take 14 % longer here). This process's torch, started already, keeps its threads."""
    if workers == 1 or "OMP_NUM_THREADS" in os.environ:
        yield
        return
    os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // workers))
    try:
        yield
    finally:
        os.environ.pop("OMP_NUM_THREADS", None)


def reads_from(name: str) -> tuple[str, ...]:
    """The pages page ``name`` renders after: the sections whose stored results it reads (a section's module's
    ``READS``, another page's :func:`reads_results`) and the pages it declares it renders after
    (:func:`renders_after`)."""
    if is_section(name):
        return tuple(getattr(registry.module(name), "READS", ()))
    source = paths.notebook_source(name).read_bytes()
    return reads_results(source) + renders_after(source)


def toc_notebooks(root: Path = paths.ROOT) -> list[str]:
    """The executed notebooks the book shows (sections and pages), in the order of ``_toc.yml``."""
    return list(toc_parts(root))


def toc_parts(root: Path = paths.ROOT) -> dict[str, str]:
    """The caption of the part of ``_toc.yml`` each executed notebook is in ("" outside any part, the root
    page included when it is an executed notebook)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    placed = [(toc["root"], "")] + [(c["file"], "") for c in toc.get("chapters", [])]
    placed += [(c["file"], part.get("caption", "")) for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return {f.removeprefix(TOC_FOLDER + "/"): caption for f, caption in placed if f.startswith(TOC_FOLDER + "/")}


def toc_sections(root: Path = paths.ROOT) -> list[str]:
    """The paper sections among :func:`toc_notebooks`, in the order of ``_toc.yml``."""
    return [name for name in toc_notebooks(root) if is_section(name)]


def offline_mathjax(root: Path) -> Path:
    """Copy MathJax 3 (the ``django-static-mathjax`` package's files: the TeX-to-CHTML bundle and its
    fonts) into the book's ``_assets/mathjax`` (``_assets`` is the static path of ``_config.yml``), so
    pages render math without reaching a CDN."""
    import mathjax

    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    target = root / "_assets" / "mathjax"
    if not (target / "tex-chtml.js").exists():
        fonts = Path("output") / "chtml" / "fonts" / "woff-v2"
        shutil.copytree(source / fonts, target / fonts, dirs_exist_ok=True)
        shutil.copy2(source / "tex-chtml.js", target / "tex-chtml.js")
    return target


BUILDERS = {"html": "html", "singlehtml": "singlehtml"}  # Jupyter Book builder -> folder under _build/


def build(root: Path = paths.ROOT, log=print, builder: str = "html") -> Path:
    """Build the book under ``root`` with Jupyter Book 1, warnings as errors, with the configuration of
    this build (``site.book_config``: repository, footer with version, date and commit); returns the
    index.html of ``_build/<builder>/``. ``builder`` is ``html`` (the site) or ``singlehtml`` (one page:
    what ``pdf`` prints)."""
    if builder not in BUILDERS:
        raise ValueError(f"builder must be one of {sorted(BUILDERS)}, got {builder!r}")
    _book_extras()
    executed = root / TOC_FOLDER
    missing = [n for n in toc_notebooks(root) if not (executed / f"{n}.ipynb").exists()]
    if missing:
        raise RuntimeError(f"sections not executed yet: {missing}; run `make book` first")
    offline_mathjax(root)
    configuration = site.book_config(root, root / "_build" / ".config" / f"{builder}.yml", builder)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book if jupyter_book.exists() else shutil.which("jupyter-book")),
               "build", str(root), "--config", str(configuration), "--builder", builder,
               "--warningiserror", "--keep-going", "--quiet"]
    log(f"[entropic] building the book ({builder})")
    record("book", builder, str(root))
    began = time.monotonic()
    with heartbeat(lambda: f"[entropic] building the book ({builder}): {time.monotonic() - began:.0f} s", log):
        subprocess.run(command, check=True, cwd=root)
    index = root / "_build" / BUILDERS[builder] / "index.html"
    log(f"[entropic] the book is at {index}")
    return index
