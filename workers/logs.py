"""Process-wide logging: one line per record, to stderr."""

import logging
import os

__all__ = ["configure_logging"]


def configure_logging() -> None:
    level = os.environ.get("LOG_LEVEL", "INFO").upper()
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("tortoise", "apscheduler"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
