"""A warm notebook pool for the build: `python -m analysis pool -- make -jN notebooks`.

make still decides which notebooks are out of date and runs one recipe per notebook
(`python -m analysis execute SRC OUT`). While the pool runs, that recipe is a thin
client: it passes its arguments, environment, working folder and its stdout/stderr
to the pool over a Unix socket, and exits with the notebook's exit status.

The pool imported papermill, IPython, pandas, matplotlib, seaborn and this package
once, at start. For each request it forks a worker that already holds them; the
worker runs `runner.execute` exactly as the command line would, and its kernel is
forked too (`analysis.kernels`). What a notebook computes is unchanged; only the
per-notebook start-up (about a second of CPU for the kernel and half a second for
the client) is saved.

Without a pool (no ``ANALYSIS_POOL`` in the environment, or nobody listening) the
recipe executes the notebook itself.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading

ENV = "ANALYSIS_POOL"
# the kernels' environment (runner.execute) that must already hold when modules are imported
WARM_ENV = {"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "SOURCE_DATE_EPOCH": "0"}
WARM_MODULES = ["numpy", "pandas", "matplotlib", "matplotlib.pyplot", "seaborn", "itables", "myst_nb",
                "IPython", "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell",
                "matplotlib_inline.backend_inline", "papermill", "nbclient", "nbformat", "jupytext",
                "jupyter_client", "pandera", "yaml"]


def warm_up() -> None:
    """Import what notebooks and the runner import, so forked workers start with them."""
    import builtins

    import analysis

    # Some defaults are chosen at import time from the environment: pandas shows at most 20
    # columns in a Jupyter kernel but fits the terminal otherwise. Import as a kernel would.
    class _Shell:
        kernel = True

    builtins.get_ipython = _Shell  # type: ignore[attr-defined]
    try:
        importlib.import_module("pandas")
    finally:
        delattr(builtins, "get_ipython")
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    for mod in pkgutil.iter_modules(analysis.__path__):
        if mod.name not in ("__main__",):
            try:
                importlib.import_module(f"analysis.{mod.name}")
            except Exception:  # noqa: BLE001 - the notebook that imports it reports the error in its cell
                pass
    if threading.active_count() != 1:  # a thread would not survive fork; never fork then
        raise RuntimeError(f"notebook pool: warm-up started {threading.active_count() - 1} thread(s)")


def serve(cmd: list[str]) -> int:
    """Run `cmd` (make) with ANALYSIS_POOL set, serving its notebook requests; return its exit status."""
    if any(os.environ.get(k) != v for k, v in WARM_ENV.items()):
        # PYTHONHASHSEED only takes effect at interpreter start: start again with the kernels' environment
        os.execve(sys.executable, [sys.executable, "-m", "analysis", "pool", "--", *cmd],
                  {**os.environ, **WARM_ENV})
    folder = tempfile.mkdtemp(prefix="analysis-pool-")
    path = os.path.join(folder, "socket")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        warm_up()
        listener.bind(path)
        listener.listen(64)
    except (OSError, RuntimeError) as exc:  # e.g. a socket path too long: the notebooks run directly
        print(f"notebook pool unavailable ({exc}); running the notebooks directly", file=sys.stderr)
        listener.close()
        shutil.rmtree(folder, ignore_errors=True)
        return subprocess.call(cmd)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    workers: dict[int, socket.socket] = {}
    sys.stdout.flush()
    sys.stderr.flush()
    make = subprocess.Popen(cmd, env={**os.environ, ENV: path})
    try:
        while make.poll() is None or workers:
            for key, _ in sel.select(timeout=0.05):
                if key.fileobj is listener:
                    conn, _ = listener.accept()
                    pid = _fork_worker(conn, listener)
                    workers[pid] = conn
                    sel.register(conn, selectors.EVENT_READ, pid)
                else:  # a client closed its end early (make was interrupted): stop its worker
                    if _closed(key.fileobj):  # type: ignore[arg-type]
                        _kill(key.data)
            for pid in list(workers):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    conn = workers.pop(pid)
                    sel.unregister(conn)
                    try:
                        conn.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
                    except OSError:
                        pass
                    conn.close()
    finally:
        for pid in workers:
            _kill(pid)
        if make.poll() is None:
            make.terminate()
        make.wait()
        listener.close()
        shutil.rmtree(folder, ignore_errors=True)
    return make.returncode


def _closed(conn: socket.socket) -> bool:
    """True if the client hung up (end of file); its request may still be unread, so never block."""
    try:
        return not conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        return True


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except OSError:
        pass


def _fork_worker(conn: socket.socket, listener: socket.socket) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        listener.close()
        os.setpgid(0, 0)
        code = _work(conn)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - a worker never returns into the server loop
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _work(conn: socket.socket) -> int:
    from analysis import kernels
    from analysis.__main__ import main

    header, fds, _, _ = socket.recv_fds(conn, 4, 2)
    (size,) = struct.unpack("!i", header)
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            return 1
        data += chunk
    request = json.loads(data)
    os.dup2(fds[0], 1)
    os.dup2(fds[1], 2)
    for fd in fds:
        os.close(fd)
    env = dict(request["env"])
    env.pop(ENV, None)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(request["cwd"])
    kernels.ENABLED = True
    return main(list(request["argv"]))


def submit(path: str, argv: list[str]) -> int | None:
    """Run `python -m analysis ARGV` in the pool; its exit status, or None if no pool answers."""
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
    except OSError:
        return None
    with conn:
        data = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
        sys.stdout.flush()
        sys.stderr.flush()
        socket.send_fds(conn, [struct.pack("!i", len(data))], [1, 2])
        conn.sendall(data)
        status = b""
        while len(status) < 4:
            chunk = conn.recv(4 - len(status))
            if not chunk:
                print("error: the notebook pool stopped before the notebook finished", file=sys.stderr)
                return 1
            status += chunk
    (code,) = struct.unpack("!i", status)
    return 128 - code if code < 0 else code
