"""Process-wide logging: one line per record, to stderr; plain text, or JSON lines when
LOG_FORMAT=json (each record's `extra` fields, e.g. a request's, as keys of their own)."""

import json
import logging
import os

__all__ = ["configure_logging", "JsonFormatter"]

_PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# The attributes every LogRecord has: anything else on a record came in through `extra`.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": self.formatTime(record), "level": record.levelname, "logger": record.name,
               "message": record.getMessage()}
        out.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure_logging() -> None:
    level = os.environ.get("LOG_LEVEL", "INFO").upper()
    handler = logging.StreamHandler()
    json_lines = os.environ.get("LOG_FORMAT", "").strip().lower() == "json"
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(_PLAIN))
    root = logging.getLogger()
    if not root.handlers:  # as logging.basicConfig: a process (or a test run) that set handlers keeps them
        root.addHandler(handler)
    elif json_lines:
        for existing in root.handlers:
            if type(existing) is logging.StreamHandler:
                existing.setFormatter(JsonFormatter())
    root.setLevel(level)
    for noisy in ("tortoise", "apscheduler"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
