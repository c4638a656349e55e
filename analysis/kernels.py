"""IPython kernels forked from a warm process instead of started from scratch.

A normal kernel is a new Python process that imports IPython, pandas, matplotlib,
seaborn and this package again: about a second of CPU per notebook. Inside the
build's notebook pool (`analysis.pool`) every worker has those modules imported
already, so it forks a *spare* child before papermill starts, and the kernel manager
below turns that child into the notebook's kernel. The child is forked before the
worker starts any thread, event loop or ZeroMQ context, so it holds none of them.

Outside the pool (``make run``, tests calling `runner.execute`) kernels start the
normal way.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any

# Set by the pool in its workers; `runner.execute` forks spare kernels only then.
ENABLED = False


class SpareKernel:
    """A forked child waiting on a pipe to become an IPython kernel.

    It offers the part of `subprocess.Popen` that jupyter_client's local
    provisioner uses (pid, poll, wait, send_signal, terminate, kill).
    """

    stdin = stdout = stderr = None

    def __init__(self) -> None:
        read, self._write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: wait for the launch spec, then run the kernel
            os.close(self._write)
            code = 1
            try:
                code = _become_kernel(read)
            except BaseException:  # noqa: BLE001 - the child must never return into the parent's code
                import traceback

                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.close(read)
        self.pid = pid
        self.returncode: int | None = None
        self.started = False

    def start(self, cmd: list[str], env: dict[str, str], cwd: str) -> None:
        """Hand the child its kernel command line, environment and working folder."""
        payload = json.dumps({"argv": cmd, "env": env, "cwd": cwd}).encode()
        self.started = True
        with os.fdopen(self._write, "wb") as pipe:
            pipe.write(payload)

    def discard(self) -> None:
        """Let an unused child exit (it reads end-of-file) and reap it; stop a started one."""
        if not self.started:
            self.started = True
            os.close(self._write)
        elif self.poll() is None:
            self.kill()
        self.wait()

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _become_kernel(read: int) -> int:
    os.setsid()  # its own session and process group, as jupyter_client gives a kernel
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    if not data:
        return 0  # discarded
    spec = json.loads(data)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(spec["cwd"])
    os.environ.clear()
    os.environ.update(spec["env"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    # ipykernel reads JPY_PARENT_PID when it is imported (here: long before this fork)
    argv = [*spec["argv"][3:], f"--IPKernelApp.parent_handle={os.environ.get('JPY_PARENT_PID', '0')}"]
    sys.argv = [spec["argv"][0], *argv]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance(argv=argv)
    return 0


def is_ipykernel(cmd: list[str]) -> bool:
    """True for the standard `python -m ipykernel_launcher -f FILE` kernel command."""
    return len(cmd) >= 5 and cmd[1:3] == ["-m", "ipykernel_launcher"]


def kernel_manager(base: type, spare: SpareKernel) -> type:
    """A subclass of the jupyter_client KernelManager `base` whose first kernel is `spare`."""
    from jupyter_client.provisioning import LocalProvisioner

    unused = [spare]

    class SpareProvisioner(LocalProvisioner):  # type: ignore[misc]
        async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
            if not unused or unused[0].returncode is not None or not is_ipykernel(cmd):
                return await super().launch_kernel(cmd, **kwargs)  # a restart: the normal way
            kernel = unused.pop()
            env = dict(kwargs.get("env") or os.environ)
            env["JPY_PARENT_PID"] = str(os.getpid())  # the kernel exits if this process dies
            cwd = str(kwargs.get("cwd") or os.getcwd())
            kernel.start(cmd, env, cwd)
            self.process = kernel  # type: ignore[assignment]
            self.pid = self.pgid = kernel.pid
            self.cwd = cwd
            return self.connection_info

    class SpareKernelManager(base):  # type: ignore[misc, valid-type]
        async def _async_pre_start_kernel(self, **kw: Any) -> Any:
            import uuid

            manager: Any = self
            if manager.provisioner is None:
                manager.kernel_id = manager.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
                manager.provisioner = SpareProvisioner(kernel_id=manager.kernel_id,
                                                       kernel_spec=manager.kernel_spec, parent=manager)
            return await super()._async_pre_start_kernel(**kw)

    return SpareKernelManager
