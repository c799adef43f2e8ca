"""`python -m workers.dramatiq_main`: Dramatiq's command line, with one fault of its worker
processes guarded. A worker process installs its SIGTERM handler before it names the logger the
handler writes to; a stop that reaches the process group in those first instants (it is delivered
when the process unblocks signals) made the handler fail with a NameError and the process exit 1
instead of stopping cleanly. Such a process has started nothing yet: it exits 0."""

from __future__ import annotations

import sys

from dramatiq import cli

_worker_process = cli.worker_process


def worker_process(*args, **kwargs):
    try:
        return _worker_process(*args, **kwargs)
    except NameError as e:
        if "logger" not in str(e):
            raise
        sys.exit(0)


cli.worker_process = worker_process  # main() starts its processes with this name

if __name__ == "__main__":
    sys.exit(cli.main())
