"""Log lines reach stderr in batches (workers/logs.py): a request's line costs no write of its own,
a warning is never held back, and nothing is lost at exit."""

import io
import logging
import subprocess
import sys

from tests.conftest import wait_for
from workers.logs import BatchedStreamHandler


def _logger(stream: io.StringIO, seconds: float) -> logging.Logger:
    log = logging.getLogger(f"test-batched-{id(stream)}")
    log.propagate, log.level = False, logging.INFO
    log.addHandler(BatchedStreamHandler(stream, seconds=seconds))
    return log


def test_info_lines_wait_for_the_batch_and_a_warning_takes_them_out_in_order():
    stream = io.StringIO()
    log = _logger(stream, seconds=3600)  # no timed flush during the test
    log.info("one")
    log.info("two")
    assert stream.getvalue() == ""
    log.warning("three")
    assert stream.getvalue() == "one\ntwo\nthree\n"


async def test_held_lines_go_out_on_their_own_soon_after():
    stream = io.StringIO()
    _logger(stream, seconds=0.01).info("alone")

    async def written():
        return stream.getvalue() == "alone\n"

    await wait_for(written)


def test_a_process_that_ends_with_os_exit_loses_no_line(tmp_path):
    # A forked multiprocessing child (a worker process) ends with os._exit, past logging's own flush
    code = (
        "import logging, multiprocessing as mp, sys\n"
        "from workers.logs import BatchedStreamHandler\n"
        "def child():\n"
        "    log = logging.getLogger('c'); log.setLevel(logging.INFO)\n"
        "    log.addHandler(BatchedStreamHandler(sys.stdout, seconds=3600)); log.info('last words')\n"
        "if __name__ == '__main__':\n"
        "    p = mp.get_context('fork').Process(target=child); p.start(); p.join()\n"
    )
    script = tmp_path / "child.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.stdout == "last words\n", out.stderr


def test_the_time_of_a_line_reads_as_logging_writes_it_though_formatted_once_a_second():
    from workers.logs import Formatter

    ours, theirs = Formatter("%(asctime)s %(message)s"), logging.Formatter("%(asctime)s %(message)s")
    base = 1_790_000_000.0
    for created in (base + 0.001, base + 0.5, base + 0.999, base + 1.0, base + 1.25, base + 0.75, base + 86_400.3):
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
        record.created, record.msecs = created, int((created - int(created)) * 1000)
        assert ours.format(record) == theirs.format(record)
