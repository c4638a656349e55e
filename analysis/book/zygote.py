"""A warm parent for the build's notebook kernels: the heavy libraries are imported once, each kernel forked.

A notebook kernel started the standard way is a new interpreter that imports IPython, numpy, pandas,
matplotlib and pandera before the first cell runs: about 1.1 s of CPU in each of the book's 38 notebooks
(bench/results.md). During ``make book`` the notebooks' make pool runs beside one zygote
(:func:`serve`), started by the Makefile and bound to it: the zygote imports :data:`PRELOAD` (third-party
libraries only: nothing of ``analysis``, whose modules read the notebook's environment when imported) and
waits on a Unix socket. The runner's kernel manager (:class:`ZygoteProvisioner`) asks it for a kernel: the
zygote forks, and the child becomes a new session (its own process group, as jupyter_client's own launcher
makes it), takes the environment and working directory jupyter_client would have given the kernel, and
runs ipykernel's kernel app with the same arguments. Everything after the launch is jupyter_client's:
its messages, interrupts (SIGINT to the kernel's process group), kills and liveness checks, on the child's
pid; the zygote reaps the child when it exits.

Without ``$ANALYSIS_KERNEL_ZYGOTE`` (``make run``, the tests' own executions) or when the zygote does not
answer, the kernel starts the standard way. The zygote exits when its parent (the make that started it)
exits or when signalled, and kills the kernels it forked that are still running; it holds no descriptor of
its parent's (the build lock included).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

ENV = "ANALYSIS_KERNEL_ZYGOTE"
PRELOAD = ("numpy", "pandas", "matplotlib", "matplotlib.pyplot", "matplotlib.backends.backend_agg",
           "pandera.pandas", "yaml", "PIL.Image", "IPython", "ipykernel.kernelapp")
"""Imported once by the zygote; each is a third-party library the notebooks import anyway. Not pyplot (it
wires itself to the shell it finds at first use) and nothing that decides a setting at import from the
process it runs in, except pandas, whose one such setting :func:`_kernel` sets as a kernel gets it."""

_children: set[int] = set()


def _reap(*_: Any) -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _children.discard(pid)


def _stop(*_: Any) -> None:
    for pid in list(_children):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    raise SystemExit(0)


def _kernel(request: dict[str, Any]) -> None:
    """In the forked child: become the kernel jupyter_client asked for, then exit."""
    os.setsid()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    if "pandas" in sys.modules:
        # pandas chooses display.max_columns when imported: 0 (fit the terminal) in a plain interpreter, as in
        # the zygote, 20 in a Jupyter kernel; a kernel forked from here must show tables as a started one does
        sys.modules["pandas"].set_option("display.max_columns", 20)
    cmd = request["cmd"]
    # the command jupyter_client would run: <python> -m ipykernel_launcher <args>
    args = cmd[cmd.index("ipykernel_launcher") + 1:]
    sys.argv = ["ipykernel_launcher", *args]
    from ipykernel.kernelapp import IPKernelApp

    code = 0
    try:
        IPKernelApp.launch_instance(argv=args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        code = 1
    os._exit(code)


def serve(path: Path, parent: int) -> None:
    """Preload, listen on the socket `path` and fork one kernel per request while process `parent` lives."""
    os.closerange(3, 65536)  # the build lock and any other descriptor of make's stay with make
    os.environ.setdefault("MPLBACKEND", "Agg")
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    signal.signal(signal.SIGCHLD, _reap)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = path.with_name(path.name + ".new")
    server.bind(str(tmp))
    server.listen(8)
    os.rename(tmp, path)  # the socket's name appears only once it listens
    server.settimeout(0.5)
    try:
        while os.getppid() == parent:
            try:
                conn, _ = server.accept()
            except (TimeoutError, InterruptedError):
                continue
            with conn:
                conn.settimeout(10)
                request = json.loads(_read_line(conn))
                pid = os.fork()
                if pid == 0:
                    server.close()
                    conn.close()
                    _kernel(request)
                _children.add(pid)
                conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    finally:
        server.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        for pid in list(_children):
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)


def _read_line(conn: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8")


def request_kernel(cmd: list[str], env: dict[str, str], cwd: str) -> int | None:
    """The pid of a kernel forked by the zygote named in ``$ANALYSIS_KERNEL_ZYGOTE``, or None (no zygote, or it
    did not answer: the caller starts the kernel the standard way)."""
    path = os.environ.get(ENV)
    if not path or "ipykernel_launcher" not in cmd:
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(path)
            s.sendall(json.dumps({"cmd": cmd, "env": env, "cwd": cwd}).encode() + b"\n")
            return int(json.loads(_read_line(s))["pid"])
    except (OSError, ValueError, KeyError):
        return None


class ForkedKernel:
    """The parts of :class:`subprocess.Popen` that jupyter_client's provisioner uses, for a kernel the zygote
    forked (the zygote is its parent and reaps it: here it is alive while its pid exists)."""

    stdout = stderr = stdin = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = -signal.SIGKILL  # the exit status went to the zygote
            except PermissionError:
                pass
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                import subprocess

                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def provisioner_class() -> type:
    """jupyter_client's local provisioner, launching through the zygote when there is one."""
    from jupyter_client.provisioning.local_provisioner import LocalProvisioner

    class ZygoteProvisioner(LocalProvisioner):  # type: ignore[misc]
        async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
            env = {str(k): str(v) for k, v in (kwargs.get("env") or os.environ).items()}
            cwd = str(kwargs.get("cwd") or os.getcwd())
            pid = request_kernel(list(cmd), env, cwd)
            if pid is None:
                return await super().launch_kernel(cmd, **kwargs)
            self.process = ForkedKernel(pid)  # type: ignore[assignment]
            self.pid = self.pgid = pid  # the child is a session leader: its pid is its process group
            self.cwd = cwd
            return self.connection_info

    return ZygoteProvisioner


def run(cmd: list[str], ready: bool = False) -> int:
    """Run `cmd` (the notebooks' make pool) beside a zygote; return its exit status.

    With `ready`, `cmd` starts only once the zygote listens (at most 60 s): the tests' way to know that a
    kernel is forked, not started.

    The zygote starts with the environment the runner gives every kernel (hash seed, one BLAS thread, Agg),
    so that a kernel forked from it is the kernel the runner would have started; `cmd` starts at once, and
    kernels asked for before the zygote listens (or if it failed) start the standard way. A signal to this process is
    passed on to `cmd`; the zygote is stopped however `cmd` ends, and exits by itself if this process dies.
    """
    import shutil
    import subprocess
    import tempfile

    from analysis.data.paths import ROOT

    folder = Path(tempfile.mkdtemp(prefix="zygote-"))  # short: a socket path has at most 107 bytes
    sock = folder / "kernels.sock"
    env = {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MPLBACKEND": "Agg", "SOURCE_DATE_EPOCH": "0", "PYTHONPATH": str(ROOT)}
    zyg = subprocess.Popen([sys.executable, "-m", "analysis.book.zygote", "serve", str(sock)], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60
        while ready and not sock.exists() and zyg.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        # `cmd` starts at once (a build with nothing to run does not wait for the imports); a kernel asked for
        # before the zygote listens starts the standard way
        proc = subprocess.Popen(cmd, env={**os.environ, ENV: str(sock)}, close_fds=False)

        def forward(sig: int, _: Any) -> None:
            with contextlib.suppress(OSError):
                proc.send_signal(sig)

        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, forward)
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # Ctrl-C reached make too: wait for it to stop its jobs
                continue
    finally:
        zyg.terminate()
        try:
            zyg.wait(5)
        except subprocess.TimeoutExpired:
            zyg.kill()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    """``python -m analysis.book.zygote run -- CMD...`` (the Makefile) or ``serve SOCKET`` (started by run)."""
    if len(argv) == 2 and argv[0] == "serve":
        serve(Path(argv[1]), os.getppid())
        return 0
    if len(argv) >= 3 and argv[0] == "run" and argv[1] == "--":
        return run(argv[2:])
    if len(argv) >= 4 and argv[:3] == ["run", "--ready", "--"]:
        return run(argv[3:], ready=True)
    print("usage: python -m analysis.book.zygote run [--ready] -- CMD... | serve SOCKET", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
