"""Rendering pages: what a page's fingerprint covers (so it renders again exactly when what it shows changed),
and kernels that render pages without noise on the terminal while a failing cell still fails its page."""

import textwrap

import pytest

from conftest import MYST_HEADER
from entropic import paths
from entropic.jobs import runner, store
from entropic.publish import build as book


def _entry_path(section: str, profile: str, index: int = 0):
    _, _, jobs = runner.plan(section, profile)
    return store.Store(runner.label_of(profile, {}), section).path(jobs[index])


def test_the_ledger_renders_again_when_any_stored_entry_it_reads_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    assert book.reads_results(paths.notebook_source("ledger").read_bytes())
    first = {name: book.fingerprint(name, "tiny", {}) for name in ("ledger", "surrogate", "ablation")}
    entry = _entry_path("ablation", "tiny")
    entry.parent.mkdir(parents=True)
    entry.write_text('{"stored": 1}')
    added = {name: book.fingerprint(name, "tiny", {}) for name in first}
    assert added["ledger"] != first["ledger"] and added["ablation"] != first["ablation"]
    assert added["surrogate"] == first["surrogate"]  # a section page follows its own entries only
    entry.write_text('{"stored": 2}')
    assert book.fingerprint("ledger", "tiny", {}) not in (first["ledger"], added["ledger"])  # changed
    entry.unlink()
    assert book.fingerprint("ledger", "tiny", {}) == first["ledger"]  # deleted: as before it was stored
    teaching = book.fingerprint("teaching", "tiny", {})
    named = ("surrogate", "ladder", "attention_native", "real_corpora", "text_rank")  # the results it shows, cites
    assert book.reads_results(paths.notebook_source("teaching").read_bytes()) == named
    for section in book.toc_sections():  # every section the ledger reads counts, the last one too
        other = _entry_path(section, "tiny", -1)
        other.parent.mkdir(parents=True, exist_ok=True)
        other.write_text("{}")
        assert book.fingerprint("ledger", "tiny", {}) != first["ledger"], section
        # the teaching page follows the sections it names only
        assert (book.fingerprint("teaching", "tiny", {}) != teaching) == (section in named)
        other.unlink()


def test_a_page_that_names_a_section_it_reads_must_name_one_of_the_book(tmp_path):
    header = "---\nentropic:\n  reads_results: [ladder, {}]\n---\n# A page\n"
    assert book.reads_results(header.format("real_corpora").encode()) == ("ladder", "real_corpora")
    assert book.reads_results(b"---\nentropic:\n  reads_results: true\n---\n") == tuple(book.toc_sections())
    assert book.reads_results(b"# no header\n") == ()
    assert book.reads_from("intro") == (*book.toc_sections(), "ledger")  # whose section rows it reads, stored
    with pytest.raises(ValueError, match="renders_after names 'ledgr', which the book has no page of"):
        book.renders_after(b"---\nentropic:\n  renders_after: [ledgr]\n---\n")
    with pytest.raises(ValueError, match="'ladderz', which the book has no section of"):
        book.reads_results(header.format("ladderz").encode())


def test_a_page_starts_once_the_pages_it_reads_have_run_and_the_pages_waited_for_start_first(monkeypatch):
    """The pages end when the test releases them, one at a time, and the test waits for the scheduler to start the
    next before it looks: which page starts next depends on the order of the pages' ends alone, never on timing."""
    import threading
    import time

    reads = {"ladder": (), "surrogate": (), "theory": (), "real_corpora": (), "text_rank": ("real_corpora",),
             "teaching": ("ladder", "real_corpora"), "ledger": ("ladder", "surrogate", "real_corpora", "text_rank")}
    listed = ["surrogate", "theory", "ladder", "real_corpora", "text_rank", "teaching", "ledger"]
    events, lock, gates = [], threading.Lock(), {name: threading.Event() for name in listed}

    def execute(name, profile, overrides, log=print):
        with lock:
            events.append(("start", name))
        assert gates[name].wait(timeout=60), f"{name} was never released"
        with lock:
            events.append(("end", name))
        if name == "theory":
            raise RuntimeError("theory broke")
        return name

    def started(count: int) -> list[str]:
        """The pages started, once ``count`` have (the scheduler acts after a release, in its own thread)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with lock:
                starts = [name for kind, name in events if kind == "start"]
            if len(starts) >= count:
                return starts
            time.sleep(0.005)
        raise AssertionError(f"only {starts} started, expected {count}")

    monkeypatch.setattr(book, "execute", execute)
    monkeypatch.setattr(book, "reads_from", lambda name: reads[name])
    raised = []

    def render():
        try:
            book.execute_all([(name, "tiny", {}) for name in listed], workers=2, log=lambda *_: None)
        except RuntimeError as error:
            raised.append(error)

    worker = threading.Thread(target=render)
    worker.start()
    assert set(started(2)) == {"ladder", "real_corpora"}  # what lets the most waiting pages start: first
    # each release frees one of the two workers: the next page is the one nearest to letting a waiting page start
    # the teaching page as soon as it may, before the pages only the ledger waits for and those nobody waits for
    for released, expected in (("real_corpora", "text_rank"), ("ladder", "teaching"), ("text_rank", "surrogate"),
                               ("teaching", "theory"), ("surrogate", "ledger")):
        gates[released].set()
        assert started(len(started(0)) + 1)[-1] == expected, (released, events)
    for gate in gates.values():
        gate.set()
    worker.join(timeout=60)
    assert not worker.is_alive() and [str(e) for e in raised] == ["theory broke"]  # raised after every page ran
    starts = [name for kind, name in events if kind == "start"]
    assert sorted(starts) == sorted(listed)  # each once, the failing one's readers too
    for name, needed in reads.items():
        for other in needed:
            assert events.index(("end", other)) < events.index(("start", name)), (name, other)
    monkeypatch.setattr(book, "reads_from", lambda name: {"ladder": ("teaching",), "teaching": ("ladder",)}[name])
    with pytest.raises(ValueError, match="wait for each other"):
        book.execute_all([("ladder", "tiny", {}), ("teaching", "tiny", {})], workers=2, log=lambda *_: None)


def test_at_the_committed_profile_a_page_reading_a_section_starts_at_once_and_the_intro_still_waits(monkeypatch):
    """A section page of the paper profile computes nothing, so the teaching page and the ledger, which read the
    ladder's stored results, run while the ladder's page does; the intro still waits for the ledger, whose stored
    section rows it reads. At the tiny profile the ladder's page may compute them: its readers start after it."""
    import threading
    import time

    reads = {"ladder": (), "teaching": ("ladder",), "ledger": ("ladder",), "intro": ("ladder", "ledger")}
    events, lock, release = [], threading.Lock(), threading.Event()

    def execute(name, profile, overrides, log=print):
        with lock:
            events.append(("start", name))
        if name == "ladder":
            assert release.wait(timeout=60), "the ladder was never released"
        with lock:
            events.append(("end", name))
        return name

    def ended() -> set[str]:
        with lock:
            return {name for kind, name in events if kind == "end"}

    monkeypatch.setattr(book, "execute", execute)
    monkeypatch.setattr(book, "reads_from", lambda name: reads[name])
    for profile in ("paper", "tiny"):
        events.clear()
        release.clear()
        pages = [(name, profile, {}) for name in ("ladder", "teaching", "ledger", "intro")]
        worker = threading.Thread(target=book.execute_all, args=(pages,), kwargs={"workers": 3, "log": lambda *_: 0})
        worker.start()
        if profile == "paper":  # the three readers end while the ladder's page still runs
            deadline = time.monotonic() + 60
            while ended() != {"teaching", "ledger", "intro"} and time.monotonic() < deadline:
                time.sleep(0.005)
            assert ended() == {"teaching", "ledger", "intro"}, events
        release.set()
        worker.join(timeout=60)
        assert not worker.is_alive() and ended() == set(reads)
        assert events.index(("end", "ledger")) < events.index(("start", "intro")), (profile, events)
        if profile == "tiny":
            assert all(events.index(("end", "ladder")) < events.index(("start", name))
                       for name in ("teaching", "ledger", "intro")), events


def test_pages_rendered_side_by_side_share_the_cores_unless_the_caller_set_the_threads(monkeypatch):
    import os

    seen = {}

    def execute(name, profile, overrides, log=print):  # what the page's kernel would inherit
        seen[name] = os.environ.get("OMP_NUM_THREADS")
        return name

    monkeypatch.setattr(book, "execute", execute)
    monkeypatch.setattr(book, "reads_from", lambda name: ())
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    pages = [(name, "tiny", {}) for name in ("surrogate", "ladder")]
    book.execute_all(pages, workers=4, log=lambda *_: None)
    assert seen == {"surrogate": "2", "ladder": "2"} and "OMP_NUM_THREADS" not in os.environ
    book.execute_all(pages, workers=1, log=lambda *_: None)
    assert seen == {"surrogate": None, "ladder": None}  # one page at a time: every core
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    book.execute_all(pages, workers=4, log=lambda *_: None)
    assert seen == {"surrogate": "3", "ladder": "3"}  # the caller's


def test_a_page_with_nothing_readable_says_whether_its_entries_are_missing_or_corrupt():
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title")])
    command = runner.resume_command("ablation", "paper", {})
    for corrupt, words in (([], "No results of the `paper` profile are stored for this section yet"),
                           ([("a", "a.json is unreadable")], "The 1 stored entries of the `paper` profile of this "
                                                             "section are all corrupt")):
        note = book._placeholder(notebook, "ablation", "paper", corrupt).cells[1].source
        assert words in note and f"`{command}` computes them" in note and "--force" not in note


PAGE = MYST_HEADER + '''
# A page

```{{code-cell}} ipython3
:tags: [parameters]

profile = "quick"
overrides = {{}}
requested = None
```

```{{code-cell}} ipython3
{body}
```
'''


@pytest.fixture
def pages(tmp_path, monkeypatch):
    """Write pages (name -> code of their one cell) where the book finds notebooks."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    monkeypatch.setattr(paths, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(paths, "EXECUTED", tmp_path / "pages")

    def write(**bodies):
        for name, body in bodies.items():
            (notebooks / f"{name}.md").write_text(PAGE.format(body=textwrap.dedent(body)))
        return list(bodies)

    return write


@pytest.mark.integration
def test_pages_render_without_kernel_noise_and_a_failing_cell_still_fails_its_page(pages, tmp_path, capfd):
    """The kernels' warning about unencrypted local ports and the "KeyboardInterrupt caught in kernel" that
    jupyter_client's interrupt at shutdown could cause (about one kernel in ten before) reach no terminal."""
    names = pages(**{f"quiet{i}": f"print({i} * 2)" for i in range(8)}, failing="raise RuntimeError('the cell broke')")
    rendered = book.execute_all([(name, "quick", {}) for name in names if name != "failing"], workers=2,
                                log=lambda *_: None)
    assert all(path.is_file() for path in rendered)
    with pytest.raises(RuntimeError, match=r"section 'failing' failed; the executed notebook is at .*failing"):
        book.execute("failing", "quick", {}, out_dir=tmp_path / "failed", log=lambda *_: None)
    assert "the cell broke" in (tmp_path / "failed" / "failing.failed.ipynb").read_text()
    noise = capfd.readouterr()
    assert "without encryption" not in noise.err + noise.out and "KeyboardInterrupt" not in noise.err + noise.out
