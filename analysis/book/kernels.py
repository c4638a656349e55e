"""The kernel a notebook runs in: jupyter_client's manager with its connection file in the run's folder (forked
from the build's warm parent when there is one), started again when it dies before its first reply, and run
in a worker thread so that an interrupt stops it at once (analysis/book/runner.py calls these)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any


def kernel_manager(folder: str, made: list[Any]) -> type:
    """jupyter_client's standard kernel manager, with its connection file in `folder` (the run's
    temporary directory, removed with it however the run ends) rather than beside it; each
    instance is appended to `made` so that an interrupt can stop its kernel."""
    from jupyter_client.manager import AsyncKernelManager  # nbclient's default (the sync one never
    # notices a dead kernel: nbclient's liveness check awaits it)

    class FolderKernelManager(AsyncKernelManager):
        def __init__(self, **kw: Any) -> None:
            kw.setdefault("connection_file", os.path.join(folder, "kernel.json"))
            super().__init__(**kw)
            made.append(self)

        async def _async_pre_start_kernel(self, **kw: Any) -> Any:
            from analysis.book import zygote  # the build's warm parent, when make book runs one

            if self.provisioner is None and os.environ.get(zygote.ENV):
                import uuid

                self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
                self.provisioner = zygote.provisioner_class()(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec,
                                                              parent=self)
            return await super()._async_pre_start_kernel(**kw)

    return FolderKernelManager


KERNEL_STARTS = 3


def start_retried(run: Any, managers: list[Any], started: list[Any], rel: str) -> None:
    """:func:`in_worker_thread`, again (at most :data:`KERNEL_STARTS` times) when the kernel died before its
    first reply: no cell has run, so nothing is lost; the usual cause is two kernels started at once that drew
    the same free port (jupyter_client picks ports before the kernel binds them)."""
    for attempt in range(1, KERNEL_STARTS + 1):
        try:
            return in_worker_thread(run, managers)
        except RuntimeError as exc:
            if started or "before replying to kernel_info" not in str(exc) or attempt == KERNEL_STARTS:
                raise
            print(f"{rel}: the kernel died while starting ({exc}); starting another ({attempt + 1} of "
                  f"{KERNEL_STARTS})", file=sys.stderr)
            managers.clear()


def in_worker_thread(run: Any, managers: list[Any]) -> None:
    """Run papermill in a worker thread while the main thread waits, interruptibly.

    nbclient replaces this process's SIGINT/SIGTERM handling while it executes in the main
    thread (it schedules a graceful kernel shutdown and carries on waiting for the cell's
    reply); in a worker thread it cannot. Here an interrupt (KeyboardInterrupt, which
    analysis.book.interrupt also raises for SIGTERM and SIGHUP) kills the kernel at once; papermill
    then stops with a dead kernel, and the interrupt is raised again once it has.
    """
    import threading

    failure: list[BaseException] = []

    def target() -> None:
        try:
            run()
        except BaseException as exc:  # handed to the main thread
            failure.append(exc)

    worker = threading.Thread(target=target, name="papermill", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except BaseException:
        for km in managers:
            with contextlib.suppress(Exception):
                km.provisioner.process.kill()  # the kernel process (a subprocess.Popen)
        worker.join(15)
        raise
    if failure:
        raise failure[0]
