"""Warm kernels: each page's IPython kernel forked from a process that has imported torch, pandas and Matplotlib.

A page renders in a kernel of its own, and a new kernel spends 3 to 4 s of a CPU core starting Python and importing
torch before its first cell runs: most of a small page's time, and most of a minute over a book's fourteen pages.
A process that renders pages keeps a *zygote*: a child that imports those libraries once and then forks a kernel for
each page. The kernel is the one papermill would start (ipykernel's, with the same arguments, environment and
working folder), in a process whose imports are done. The project itself is not imported before the fork, so an
edit of it reaches the next page as it reaches a new kernel, and the zygote runs nothing, so each kernel starts from
the state a fresh import leaves (tests/publish/test_kernels.py compares what a page sees in both).

jupyter_client starts, signals and waits for a kernel as a process of its own: here that process is a launcher of a few
lines (``python -P .../publish/kernels.py ADDRESS -f CONNECTION_FILE ...``) that asks the zygote for a kernel,
forwards the signals it is sent (an interrupt, a termination) and exits with the kernel's status; when the launcher
is killed, the zygote kills its kernel. A zygote serves the Python and the environment its imports read
(``PYTHONPATH``, torch's ``OMP_NUM_THREADS``, Matplotlib's backend and configuration folder) it was started with; a
process that asks for kernels under others starts another. Off Linux (Windows cannot fork; macOS's frameworks do not
survive a fork of a process that has loaded them), or where the kernel asked for is not this Python's ipykernel,
pages start kernels as before. benchmarks/bench_pages.py times both.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading

# What every page's kernel imports first. Matplotlib reads its backend from the environment when imported: the
# zygote sets it as ipykernel sets it in each kernel (the inline backend, unless the environment names one); pyplot,
# which hooks the backend into the running kernel, is left for the page to import.
PRELOADED = ("torch", "numpy", "pandas", "ipykernel.kernelapp", "matplotlib.figure")
KERNEL_BACKEND = "module://matplotlib_inline.backend_inline"  # ipykernel's, where MPLBACKEND is not set
READY_WITHIN = 120  # seconds: a zygote that does not answer by then (its imports hang) is an error


def _key() -> tuple[str, ...]:
    """What a zygote's imports depend on, beyond the Python: where modules are found, torch's threads, Matplotlib's
    backend and configuration."""
    return sys.executable, *(os.environ.get(name, "") for name in ("PYTHONPATH", "OMP_NUM_THREADS", "MPLBACKEND",
                                                                    "MPLCONFIGDIR"))


# --- in the process that renders pages ---------------------------------------------------------------------------

# The zygote and the launcher run this file as a script, importing nothing of the project, so that a kernel imports
# the project afresh, with the environment of its page. (The launcher, which runs no kernel, leaves this file's
# folder out of its path with -P; the zygote takes it out of its path itself, since -P would carry into each kernel
# and keep IPython from putting the kernel's folder on it.)
_FILE = os.path.abspath(__file__)
_ZYGOTES: dict[tuple[str, ...], tuple] = {}  # _key() -> (process, address)
_LOCK = threading.Lock()  # pages render in threads: one zygote for each key


def warm_command(command: list[str]) -> list[str]:
    """The command that starts the kernel ``command`` (jupyter_client's, ``python -m ipykernel_launcher -f ...``) as a
    fork of this process's zygote, started on first use; ``command`` itself where it is not this Python's ipykernel
    or off Linux."""
    if not sys.platform.startswith("linux") or command[:3] != [sys.executable, "-m", "ipykernel_launcher"]:
        return command
    return [sys.executable, "-P", _FILE, _address(), *command[3:]]


def _address() -> str:
    import atexit
    import subprocess
    import tempfile
    import time

    with _LOCK:
        key = _key()
        known = _ZYGOTES.get(key)
        if known and known[0].poll() is None:
            return known[1]
        if known:  # it has ended (killed): another takes its place
            _remove(known[1])
        address = os.path.join(tempfile.mkdtemp(prefix="entropic-zygote-"), "socket")
        # In a session of its own, as jupyter_client starts a kernel: a Ctrl-C at the terminal interrupts the command,
        # which stops its kernels, not each kernel's cell.
        process = subprocess.Popen([sys.executable, _FILE, "--serve", address], stdin=subprocess.DEVNULL,
                                   start_new_session=True)
        began = time.monotonic()
        while not os.path.exists(address):  # the zygote binds its socket once its imports are done
            if process.poll() is not None:
                raise RuntimeError(f"the process that forks the pages' kernels exited with status {process.returncode} "
                                   f"before it was ready (importing {', '.join(PRELOADED)})")
            if time.monotonic() - began > READY_WITHIN:
                process.kill()
                raise RuntimeError(f"the process that forks the pages' kernels was not ready in {READY_WITHIN} s")
            time.sleep(0.02)
        if not _ZYGOTES:
            atexit.register(_stop_all)
        _ZYGOTES[key] = (process, address)
        return address


def _stop_all() -> None:
    """Stop every zygote of this process (and so their kernels); at its exit, or when a benchmark asks."""
    import subprocess

    for process, address in _ZYGOTES.values():
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        _remove(address)
    _ZYGOTES.clear()


def _remove(address: str) -> None:
    """The zygote's socket and the folder made for it."""
    import shutil

    shutil.rmtree(os.path.dirname(address), ignore_errors=True)


# --- the zygote ----------------------------------------------------------------------------------------------------

def serve(address: str) -> None:
    """Import :data:`PRELOADED`, then fork a kernel for each launcher that connects to ``address``, tell it the
    kernel's process id and, when the kernel exits, its status; kill a kernel whose launcher has gone. Ends when the
    process that started it does."""
    import importlib
    import select

    if sys.path and sys.path[0] == os.path.dirname(_FILE):  # this file's folder: no module of it is imported
        del sys.path[0]
    os.environ.setdefault("MPLBACKEND", KERNEL_BACKEND)
    for name in PRELOADED:
        importlib.import_module(name)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address + ".binding")
    listener.listen(16)
    os.rename(address + ".binding", address)  # the socket appears ready, never half-made
    owner, kernels, killed = os.getppid(), {}, set()  # kernels: launcher's connection -> kernel's process id
    try:
        while os.getppid() == owner:
            ready, _, _ = select.select([listener, *kernels], [], [], 0.1)
            for connection in ready:
                if connection is listener:
                    launcher, _ = listener.accept()
                    request = json.loads(launcher.makefile("rb").readline())
                    pid = os.fork()
                    if pid == 0:
                        _kernel(request, [listener, launcher, *kernels])  # never returns
                    launcher.sendall(f"{pid}\n".encode())
                    kernels[launcher] = pid
                elif not connection.recv(1):  # its launcher has gone (killed): so goes its kernel
                    pid = kernels.pop(connection)
                    _signal(pid, signal.SIGKILL)
                    killed.add(pid)
                    connection.close()
            _reap(kernels, killed)
    finally:  # the process that started it has ended, or stopped it: its kernels end with it
        for connection, pid in kernels.items():
            _signal(pid, signal.SIGKILL)
            connection.close()
        _remove(address)


def _reap(kernels: dict, killed: set) -> None:
    """Tell each launcher whose kernel has exited the kernel's status; collect the kernels killed with their
    launchers."""
    for connection, pid in list(kernels.items()):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            try:
                connection.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
            except OSError:  # its launcher has gone meanwhile
                pass
            connection.close()
            del kernels[connection]
    for pid in list(killed):
        if os.waitpid(pid, os.WNOHANG)[0]:
            killed.discard(pid)


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _kernel(request: dict, inherited: list[socket.socket]) -> None:
    """In the forked child: close the zygote's sockets, become the kernel a launcher asked for, then exit with its
    status (never returning into the zygote's loop)."""
    code = 1
    try:
        for connection in inherited:
            connection.close()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from ipykernel import kernelapp

        # The one setting ipykernel reads from the environment when imported (here, in the zygote, before the
        # launcher's environment was known): the process whose end ends the kernel.
        parent = os.environ.get("JPY_PARENT_PID")
        given = [f"--IPKernelApp.parent_handle={parent}"] if parent else []
        kernelapp.launch_new_instance(argv=[*request["argv"], *given])
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()  # what a process's exit runs (the kernel's connection file removed)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:  # whatever the kernel's streams do once it has stopped, never back into the zygote's loop
            os._exit(code)


# --- the launcher --------------------------------------------------------------------------------------------------

def launch(address: str, argv: list[str]) -> int:
    """Ask the zygote at ``address`` for a kernel started with ``argv``, here (working folder, environment); forward
    the signals this process is sent to it; return its exit status."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(address)
    connection.sendall(json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode() + b"\n")
    replies = connection.makefile("r")
    pid = int(replies.readline())
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(signum, lambda received, _: _signal(pid, received))
    status = replies.readline()  # when the kernel exits; empty if the zygote has gone
    return int(status) if status.strip() else 1


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        sys.exit(launch(sys.argv[1], sys.argv[2:]))
