"""A worker process dies with its parent, at every stage of its life.

`commerce worker` forks its worker processes; when the parent is killed outright (`kill -9`, the
OOM killer) nothing forwards a stop to them. On Linux the kernel does it: the parent-death signal
(`prctl(PR_SET_PDEATHSIG)`) is set in each child right after the fork (`os.register_at_fork`),
before the child runs a line of its own. Until the child has booted it is SIGKILL: a booting
process holds no job, and a stop it would honour only once its imports and database connection
are done kept it alive for a minute on a loaded machine. Once booted, it is SIGTERM, the clean
stop of workers/stopping.py (fetched messages given back, running jobs given their grace).

A parent that died before the signal was set (between the fork and the `prctl`) is seen by the
parent pid changing, checked right after. Where `prctl` does not exist, a thread polls the
parent pid instead (every half second).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent_from_fork", "on_parent_death"]

log = logging.getLogger("commerce.worker")

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_forker = os.getpid()  # the process that forked this one (set again before each fork)


def _prctl_death_signal(signum: int) -> bool:
    """Ask the kernel for `signum` when the parent dies; False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _before_fork() -> None:
    global _forker
    _forker = os.getpid()


def _after_fork_in_child() -> None:
    # The first thing the child does: a booting process dies outright with its parent.
    _prctl_death_signal(signal.SIGKILL)
    if os.getppid() != _forker:  # the parent died before the line above
        os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent_from_fork() -> None:
    """In the parent, before it forks: every child it forks dies with it (SIGKILL) from its
    first instant, until `on_parent_death` changes that."""
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


def on_parent_death(signum: int, parent: int) -> None:
    """From now on, the death of `parent` (this process's parent when it was forked) sends
    `signum` to this process; at once if it is dead already."""
    if not _prctl_death_signal(signum):
        threading.Thread(target=_watch, args=(signum, parent), name="parent-watch", daemon=True).start()
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


def _watch(signum: int, parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    log.warning("worker process's parent %d is gone: stopping", parent)
    os.kill(os.getpid(), signum)
