"""Stop promptly when the build is interrupted, however the signal arrives.

A build runs as ``make`` → (flock, sub-make, shell) → ``python -m analysis …`` → kernel or
Sphinx. A Ctrl-C at a terminal reaches every process of the group; but a SIGINT or SIGTERM
sent to ``make`` alone does not reach its children: GNU make waits for them (SIGINT) or
forwards SIGTERM only to its direct children. Without help, notebooks would run on after
their build was cancelled.

:func:`install` makes this process interruptible from every side:

* SIGTERM and SIGHUP raise :class:`KeyboardInterrupt` like SIGINT, so ``finally`` blocks
  run (kernels are shut down, temporary folders removed, partial outputs discarded);
* a watchdog thread looks at this process's ancestors in ``/proc`` every ``poll_s``
  seconds, from its parent up to the outermost ``make`` (a command run outside make is not
  watched: a shell that ends does not stop it). When one of them has exited, or a ``make``
  among them has given up its handler for SIGINT, SIGTERM or SIGHUP (GNU make resets the
  handler to the default as soon as the signal arrives, then waits for its children before
  it dies), the watchdog sends this process SIGTERM.

Nothing here reads a file other than ``/proc/<pid>/stat`` and ``/proc/<pid>/status``.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

WATCHED = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)
reason: str = ""  # why the watchdog interrupted this process ("" if it did not)


@dataclass(frozen=True)
class _Proc:
    pid: int
    started: int  # clock ticks after boot: tells a process from a later one with the same pid
    name: str
    caught: int  # bit mask of the WATCHED signals this process catches


def _read(pid: int) -> _Proc | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    # the name in field 2 is in parentheses and may hold spaces: split after the last ")"
    fields = stat[stat.rindex(")") + 2:].split()
    info = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    caught = int(info.get("SigCgt", "0").strip(), 16)
    mask = sum(1 << (s - 1) for s in WATCHED)
    return _Proc(pid, int(fields[19]), info.get("Name", "").strip(), caught & mask)


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat[stat.rindex(")") + 2:].split()[1])


def ancestors() -> list[_Proc]:
    """This process's ancestors, nearest first, up to (not including) pid 1."""
    out = []
    pid = os.getppid()
    while pid > 1:
        proc = _read(pid)
        if proc is None:
            break
        out.append(proc)
        pid = _parent(pid)
    return out


def build_chain() -> list[_Proc]:
    """The ancestors from the parent up to and including the outermost make ([] if none)."""
    chain = ancestors()
    makes = [i for i, p in enumerate(chain) if p.name == "make"]
    return chain[: makes[-1] + 1] if makes else []


def _interrupted(chain: list[_Proc]) -> str:
    for before in chain:
        now = _read(before.pid)
        if now is None or now.started != before.started:
            return f"its parent process {before.name} ({before.pid}) has ended"
        if before.name == "make" and before.caught & ~now.caught:
            return f"make ({before.pid}) was interrupted"
    return ""


def _raise(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def install(poll_s: float = 0.2) -> None:
    """Make SIGTERM/SIGHUP act like SIGINT and start the ancestor watchdog (main thread only)."""
    # a signal the caller chose to ignore (a background job's SIGINT, nohup's SIGHUP) stays ignored
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _raise)
    signal.signal(signal.SIGTERM, _raise)
    if not Path("/proc/self/stat").exists():
        return
    chain = build_chain()
    if not chain:
        return

    def watch() -> None:
        global reason
        while True:
            time.sleep(poll_s)
            why = _interrupted(chain)
            if why:
                reason = why
                os.kill(os.getpid(), signal.SIGTERM)
                return

    threading.Thread(target=watch, name="interrupt-watchdog", daemon=True).start()
