"""Progress lines for a long move: entity, rows done of total, rate."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """Writes at most one line a `every` seconds per entity, and always its last."""

    def __init__(self, out: TextIO | None = None, every: float = 2.0):
        self.out = out if out is not None else sys.stderr
        self.every = every

    def start(self, entity: str, total: int) -> None:
        self.entity, self.total, self.done = entity, total, 0
        self.started = self.last = time.monotonic()

    def advance(self, rows: int) -> None:
        self.done += rows
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._line(now)

    def finish(self) -> None:
        self._line(time.monotonic())

    def _line(self, now: float) -> None:
        rate = self.done / max(now - self.started, 1e-3)
        print(f"  {self.entity}: {self.done} of {self.total} rows, {rate:,.0f} rows/s", file=self.out, flush=True)
