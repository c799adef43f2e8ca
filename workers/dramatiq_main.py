"""`python -m workers.dramatiq_main`: Dramatiq's command line, with two faults guarded.

A worker process installs its SIGTERM handler before it names the logger the handler writes to;
a stop that reaches the process group in those first instants (it is delivered when the process
unblocks signals) made the handler fail with a NameError and the process exit 1 instead of
stopping cleanly. Such a process has started nothing yet: it exits 0.

The main process, once its worker processes have exited, waits for its log watcher, which looks
whether to stop only once a second: the command outlived its workers by up to a second, past
WORKER_GRACE_SECONDS. The watcher is woken as soon as it is told to stop.

Each worker process dies with the main process from the instant it is forked
(workers/parent_death.py)."""

from __future__ import annotations

import multiprocessing
import sys
import threading

from dramatiq import cli

from workers.parent_death import die_with_parent_from_fork

_worker_process = cli.worker_process


def worker_process(*args, **kwargs):
    try:
        return _worker_process(*args, **kwargs)
    except NameError as e:
        if "logger" not in str(e):
            raise
        sys.exit(0)


cli.worker_process = worker_process  # main() starts its processes with this name

_watch_logs = cli.watch_logs


def watch_logs(log_filename, pipes, stop):
    reader, writer = multiprocessing.Pipe(duplex=False)

    def on_stop():
        stop.wait()
        writer.send_bytes(b"")  # an empty write: the watcher wakes, writes nothing and sees `stop`

    threading.Thread(target=on_stop, name="log-watch-waker", daemon=True).start()
    return _watch_logs(log_filename, [*pipes, reader], stop)


cli.watch_logs = watch_logs  # main() starts its log watcher with this name

if __name__ == "__main__":
    die_with_parent_from_fork()
    sys.exit(cli.main())
