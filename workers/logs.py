"""Process-wide logging: one line per record, to stderr; plain text, or JSON lines when
LOG_FORMAT=json (each record's `extra` fields, e.g. a request's, as keys of their own).

Lines below WARNING reach stderr in batches, at least every FLUSH_SECONDS: a web process writes
one line per request, and one write per line was a fifth of what a small request cost. A WARNING
or worse goes out at once, with the lines before it, in order; so does everything at exit."""

import json
import logging
import multiprocessing.util
import os
import threading
import time

__all__ = ["configure_logging", "Formatter", "JsonFormatter", "BatchedStreamHandler"]

FLUSH_SECONDS = 0.2

_PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# The attributes every LogRecord has: anything else on a record came in through `extra`.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class Formatter(logging.Formatter):
    """logging's Formatter, with the date and time of the second a record falls in formatted once
    (`time.strftime` was a tenth of an access-log line's cost); the same text."""

    _second: tuple[int, str] = (-1, "")  # replaced whole, so a thread never sees half of it

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        cached, text = self._second
        if cached != second:
            text = time.strftime(self.default_time_format, self.converter(record.created))
            self._second = (second, text)
        return self.default_msec_format % (text, record.msecs)


class JsonFormatter(Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": self.formatTime(record), "level": record.levelname, "logger": record.name,
               "message": record.getMessage()}
        out.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


class BatchedStreamHandler(logging.StreamHandler):
    """A StreamHandler that writes its lines in batches (see the module's doc)."""

    def __init__(self, stream=None, seconds: float = FLUSH_SECONDS, max_lines: int = 256):
        super().__init__(stream)
        self.seconds, self.max_lines = seconds, max_lines
        self._lines: list[str] = []
        self._flusher_pid: int | None = None

    def emit(self, record: logging.LogRecord) -> None:  # called with self.lock held
        try:
            self._lines.append(self.format(record))
        except Exception:
            self.handleError(record)
            return
        if record.levelno >= logging.WARNING or len(self._lines) >= self.max_lines:
            self._write()
        elif self._flusher_pid != os.getpid():  # first line here (a forked child has no flusher)
            self._flusher_pid = os.getpid()
            threading.Thread(target=self._flush_now_and_then, name="log-flush", daemon=True).start()
            # A forked multiprocessing child ends with os._exit, past logging's own flush at exit.
            multiprocessing.util.Finalize(None, self.flush, exitpriority=0)

    def _write(self) -> None:
        if self._lines:
            text = self.terminator.join(self._lines) + self.terminator
            self._lines.clear()
            try:
                self.stream.write(text)
                self.stream.flush()
            except Exception:  # a closed or broken stream must not break the caller
                pass

    def flush(self) -> None:
        with self.lock:
            self._write()

    def _flush_now_and_then(self) -> None:
        pid = os.getpid()
        while self._flusher_pid == pid:
            time.sleep(self.seconds)
            self.flush()


def configure_logging() -> None:
    level = os.environ.get("LOG_LEVEL", "INFO").upper()
    handler = BatchedStreamHandler()
    json_lines = os.environ.get("LOG_FORMAT", "").strip().lower() == "json"
    handler.setFormatter(JsonFormatter() if json_lines else Formatter(_PLAIN))
    root = logging.getLogger()
    if not root.handlers:  # as logging.basicConfig: a process (or a test run) that set handlers keeps them
        root.addHandler(handler)
    elif json_lines:
        for existing in root.handlers:
            if type(existing) in (logging.StreamHandler, BatchedStreamHandler):
                existing.setFormatter(JsonFormatter())
    root.setLevel(level)
    for noisy in ("tortoise", "apscheduler"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
