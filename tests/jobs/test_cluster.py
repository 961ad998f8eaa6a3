"""Jobs on a Dask cluster: a real LocalCluster of worker processes on this machine, at tiny sizes.

A job computes the same numbers whatever thread count its process has, so the distributed results equal
the in-process ones bit for bit; a worker killed mid-sweep loses only its job; an interrupted client loses
nothing stored and the next run computes only what is missing."""

import os
import signal
import sys
import textwrap
import threading
import time

import pytest
import torch

from entropic import paths, registry, sections
from entropic.jobs import cluster, runner, store

pytestmark = pytest.mark.integration

SLOW = '''
"""A section whose jobs take a second each (a cluster test: slow enough to kill a worker mid-sweep)."""
import time
from dataclasses import dataclass

from ..report import verdicts
from ..jobs.config import SectionConfig, distinct_ints, param
from ..jobs.store import Job

TITLE = "slow"
TABLE = "tbl-slow"
CLAIMS = {}


@dataclass(frozen=True)
class Config(SectionConfig):
    seeds: tuple = param((0, 1, 2, 3, 4, 5), "seeds", distinct_ints(0))


def jobs(cfg):
    return [Job(f"seed{s}", {"seed": s}) for s in cfg.seeds]


def fit(job):
    time.sleep(1.0)
    return {"squares": [{"seed": job.params["seed"], "square": job.params["seed"] ** 2}]}


def compare(results):
    return verdicts.table([])


def facts(results):
    return {}
'''


# A recovery job of §5 small enough for a test (a fraction of a second) and large enough that torch may split its
# matrix products across threads (whether that changes its trained numbers depends on the machine and its load).
SENSITIVE = {"T": 16, "d": 16, "n": 300, "r_stars": [1], "seeds": [0], "teachers": ["linear_qk"], "steps": 10,
             "recovery_steps": 20}


def _recovery_job():
    module, _, jobs = runner.plan("attention_native", "tiny", SENSITIVE)
    return module, next(job for job in jobs if job.params["kind"] == "recovery")


@pytest.fixture
def held_threads():
    """This process's torch thread count, restored after the test."""
    held = torch.get_num_threads()
    yield
    torch.set_num_threads(held)


def test_a_job_computes_the_same_numbers_whatever_thread_count_its_process_has(held_threads, monkeypatch):
    module, job = _recovery_job()
    seen = []
    original = module.fit

    def probed(job):
        seen.append(torch.get_num_threads())  # the thread count the fit itself runs on
        return original(job)

    monkeypatch.setattr(module, "fit", probed)
    torch.set_num_threads(cluster.THREADS)
    direct = original(job)
    computed = {}
    for count in (1, 2, 3):
        torch.set_num_threads(count)
        computed[count] = cluster.compute("attention_native", job)
        assert torch.get_num_threads() == count  # restored afterwards
    assert seen == [cluster.THREADS] * 3  # pinned whatever the process had
    assert computed[1][0] == computed[2][0] == computed[3][0] == direct  # identical tables, bit for bit
    assert {computed[count][1]["threads"] for count in computed} == {cluster.THREADS}


def test_a_section_declares_the_thread_count_of_its_heavy_jobs(held_threads, monkeypatch):
    monkeypatch.delenv("ENTROPIC_MAX_THREADS", raising=False)  # no cap (make test's processes set one)
    module, job = _recovery_job()
    monkeypatch.setattr(module, "THREADS", {"recovery": 2}, raising=False)
    torch.set_num_threads(1)
    tables, provenance = cluster.compute("attention_native", job)
    torch.set_num_threads(2)
    assert tables == module.fit(job) and provenance["threads"] == 2 and cluster.threads_for(module, job) == 2
    corpora = registry.module("real_corpora")
    assert cluster.threads_for(corpora, store.Job("x", {"kind": "train"})) == 2  # App. B trains on two
    assert cluster.threads_for(corpora, store.Job("x", {"kind": "data"})) == 1
    monkeypatch.setattr(module, "THREADS", 0)
    with pytest.raises(ValueError, match=r"THREADS must be a positive number of threads .* got 0"):
        cluster.compute("attention_native", job)


@pytest.fixture(scope="module")
def own_sections(tmp_path_factory):
    """A folder of section modules of one's own, named by ENTROPIC_SECTIONS to the workers the scheduler
    starts (and to this process through the registry's path)."""
    folder = tmp_path_factory.mktemp("sections")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ENTROPIC_SECTIONS", str(folder))
        patch.setattr(sections, "__path__", [*sections.__path__, str(folder)])
        yield folder


@pytest.fixture(scope="module")
def scheduler(own_sections):
    """The LocalCluster of ``--cluster local:2`` (two single-threaded worker processes), reached by its
    address as a remote cluster is; yields (scheduler address, client)."""
    with cluster.client("local:2") as client:
        yield client.scheduler.address, client


@pytest.fixture
def slow_section(own_sections, tmp_path, monkeypatch):
    """The slow section as a module of one's own (worker processes find it through ENTROPIC_SECTIONS), with
    a profile of its own; removed afterwards. The working tree is not touched."""
    module = own_sections / "slow.py"
    module.write_text(textwrap.dedent(SLOW))
    (tmp_path / "quick.yaml").write_text("slow: {}\n")
    monkeypatch.setattr(paths, "PROFILES", tmp_path)
    try:
        yield
    finally:
        module.unlink()
        sys.modules.pop("entropic.sections.slow", None)


def test_a_section_on_the_cluster_stores_exactly_what_a_local_run_stores(scheduler, tmp_path, monkeypatch,
                                                                        held_threads):
    address, _ = scheduler
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "local")
    torch.set_num_threads(2)  # this process on two threads, each worker on one: the jobs fix their own
    here = runner.run("attention_native", "tiny", SENSITIVE, progress=False)
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "distributed")
    there = runner.run("attention_native", "tiny", SENSITIVE, progress=False, cluster=address)
    assert there.computed == len(here.entries) > 0
    assert [e.tables for e in there.entries] == [e.tables for e in here.entries]
    assert [e.key for e in there.entries] == [e.key for e in here.entries]
    assert all(e.provenance["worker"] for e in there.entries)
    assert all(not e.provenance.get("worker") for e in here.entries)


def test_local_workers_start_without_the_allocator_setting_that_slows_them_and_others_are_named(scheduler, capsys):
    address, client = scheduler
    assert cluster.slowed_workers(client) == []
    variable = cluster.TRIM_VARIABLE
    worker = sorted(client.scheduler_info()["workers"])[0]
    client.run(lambda: os.environ.__setitem__(variable, "65536"), workers=[worker])  # as Dask's default has it
    try:
        assert cluster.slowed_workers(client) == [worker]
        assert list(cluster.map_jobs("surrogate", [], address)) == []
        assert f"1 worker(s) started with {variable} set" in capsys.readouterr().err
    finally:
        client.run(lambda: os.environ.pop(variable), workers=[worker])
    assert cluster.slowed_workers(client) == []


def test_a_worker_killed_mid_sweep_loses_only_its_job(scheduler, slow_section, tmp_path, monkeypatch):
    address, client = scheduler
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    pids = list(client.run(os.getpid).values())

    def kill_one():
        time.sleep(1.5)
        os.kill(pids[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    results = runner.run("slow", "quick", progress=False, cluster=address)
    killer.join()
    assert results.computed == 6 and not results.missing
    assert sorted(results["squares"]["seed"]) == [0, 1, 2, 3, 4, 5]  # every job stored, each once
    assert len(list((paths.RESULTS / "quick" / "slow").glob("*.json"))) == 6
    client.wait_for_workers(2, timeout=60)  # the nanny restarted the killed worker


def test_an_interrupted_client_resumes_from_what_is_stored(scheduler, slow_section, tmp_path, monkeypatch):
    address, _ = scheduler
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    real = cluster.map_jobs

    def interrupted_after_two(*args, **kwargs):
        for count, item in enumerate(real(*args, **kwargs)):
            yield item
            if count == 1:
                raise KeyboardInterrupt

    monkeypatch.setattr(cluster, "map_jobs", interrupted_after_two)
    with pytest.raises(runner.Interrupted, match=r"2 of 6 jobs of slow are stored"):
        runner.run("slow", "quick", progress=False, cluster=address)
    monkeypatch.setattr(cluster, "map_jobs", real)
    resumed = runner.run("slow", "quick", progress=False, cluster=address)
    assert resumed.computed == 4 and len(resumed.entries) == 6


def test_a_worker_running_other_code_refuses_naming_both_keys():
    job = store.Job("seed0-data", {"kind": "data_only", "seed": 0, "T": 8, "d": 6, "r_star": 2, "sigma": 0.05,
                                   "n": 50, "spectrum": "sharp"})
    with pytest.raises(cluster.JobFailed, match=r"runs other code than the client .*client not-the-key"):
        cluster._work("surrogate", job, "not-the-key", None)
    assert "surrogate" in registry.names()


def test_an_unreachable_scheduler_is_one_line_in_seconds():
    start = time.perf_counter()
    with pytest.raises(cluster.Unreachable, match=r"^no Dask scheduler answers at tcp://127\.0\.0\.1:1 \(") as caught:
        with cluster.client("tcp://127.0.0.1:1"):
            pass
    assert time.perf_counter() - start < cluster.CONNECT_SECONDS and "\n" not in str(caught.value)
    with pytest.raises(cluster.Unreachable, match=r"nosuchhost\.invalid"):
        cluster.check("tcp://nosuchhost.invalid:8786")
    cluster.check("local:2")  # nothing to reach


def test_entropic_max_threads_caps_what_a_section_declares_and_refuses_nonsense(monkeypatch):
    module, job = registry.module("real_corpora"), store.Job("train", {"kind": "train"})
    monkeypatch.setenv("ENTROPIC_MAX_THREADS", "1")
    assert cluster.threads_for(module, job) == 1
    monkeypatch.setenv("ENTROPIC_MAX_THREADS", "8")
    assert cluster.threads_for(module, job) == 2  # a cap, never more than declared
    for value in ("0", "two", "-1"):
        monkeypatch.setenv("ENTROPIC_MAX_THREADS", value)
        with pytest.raises(ValueError, match="ENTROPIC_MAX_THREADS must be a positive whole number"):
            cluster.threads_for(module, job)
