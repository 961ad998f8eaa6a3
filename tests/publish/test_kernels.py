"""A page's kernel forked from the zygote (publish/kernels.py) runs a page as a new kernel does, is interrupted and
stopped as one is, and leaves no process behind."""

import asyncio
import os
import sys
import time

import pytest

from entropic.publish import build, kernels

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kernels are forked on Linux only")

# What a page could see of the process it runs in: its folder, its environment, torch's threads, what of the project
# and of pyplot is imported before the page imports it, the path imports search, Matplotlib's backend, and a figure it
# draws (shown as the cell ends). (Not torch's first seed: a new process draws its own, so pages seed what they draw.)
STATE = """import os, sys
before = sorted(m for m in ("entropic", "matplotlib.pyplot", "seaborn") if m in sys.modules)
import torch
import matplotlib.pyplot as plt
print(os.getcwd(), os.environ.get("KERNEL_TEST_MARK"), torch.get_num_threads(), before,
      [p for p in sys.path if "site-packages" not in p], plt.get_backend(), sep="\\n")
plt.plot([1, 2]);
"""


async def _run(manager_class, source: str, cwd, interrupt_after: float | None = None) -> tuple[list[str], list[int]]:
    """Run ``source`` in a kernel started by ``manager_class`` in ``cwd``: what it printed (or the error it ended
    with), and the process ids of the kernel and of its parent."""
    manager = manager_class(kernel_name="python3")
    await manager.start_kernel(cwd=str(cwd), extra_arguments=build.KERNEL_ARGUMENTS)
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=120)
        pids = [int(pid) for pid in (await _execute(client, "import os; print(os.getpid(), os.getppid())"))[0].split()]
        if interrupt_after is not None:
            running = asyncio.ensure_future(_execute(client, source))
            await asyncio.sleep(interrupt_after)
            await manager.interrupt_kernel()
            return await running, pids
        return await _execute(client, source), pids
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=False)


async def _execute(client, source: str) -> list[str]:
    msg_id = client.execute(source)
    said = []
    while True:
        message = await client.get_iopub_msg(timeout=120)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            said += content["text"].splitlines()
        elif kind == "display_data":
            said.append(f"shown: {sorted(content['data'])}")
        elif kind == "error":
            said.append(content["ename"])
        elif kind == "status" and content["execution_state"] == "idle":
            return said


def _gone(pid: int, within: float = 10) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_forked_kernel_sees_what_a_new_kernel_sees(tmp_path, monkeypatch):
    from jupyter_client.manager import AsyncKernelManager

    monkeypatch.setenv("KERNEL_TEST_MARK", "set-before-the-kernel")
    warm, (warm_pid, warm_parent) = asyncio.run(_run(build._kernel_manager(), STATE, tmp_path))
    cold, (cold_pid, cold_parent) = asyncio.run(_run(AsyncKernelManager, STATE, tmp_path))
    assert warm == cold, (warm, cold)
    assert warm[:2] == [str(tmp_path), "set-before-the-kernel"] and warm[3] == "[]"  # nothing of a page imported
    assert "inline" in warm[5] and warm[6] == "shown: ['image/png', 'text/plain']"  # the kernel's backend
    zygote = kernels._ZYGOTES[kernels._key()][0]
    assert warm_parent == zygote.pid and cold_parent != zygote.pid  # the first was forked, the second not
    assert _gone(warm_pid) and _gone(cold_pid)


def test_a_forked_kernel_is_interrupted_and_a_killed_one_leaves_nothing(tmp_path):
    said, (pid, _) = asyncio.run(_run(build._kernel_manager(), "import time; time.sleep(60)", tmp_path,
                                      interrupt_after=2))
    assert said == ["KeyboardInterrupt"] and _gone(pid)

    async def killed() -> int:
        manager = build._kernel_manager()(kernel_name="python3")
        await manager.start_kernel(cwd=str(tmp_path), extra_arguments=build.KERNEL_ARGUMENTS)
        client = manager.client()
        client.start_channels()
        await client.wait_for_ready(timeout=120)
        pid = int((await _execute(client, "import os; print(os.getpid())"))[0])
        client.stop_channels()
        await manager.shutdown_kernel(now=True)  # killed, not asked to stop: its launcher gets SIGKILL
        return pid

    assert _gone(asyncio.run(killed()))


def test_the_zygote_ends_with_the_process_that_started_it(tmp_path):
    import subprocess

    started = subprocess.run([sys.executable, "-c", "from entropic.publish import kernels; print(kernels._address()); "
                              "import os; print(kernels._ZYGOTES[kernels._key()][0].pid); os._exit(0)"],
                             capture_output=True, text=True, timeout=180)
    address, pid = started.stdout.split()
    assert _gone(int(pid)) and not os.path.exists(address)

