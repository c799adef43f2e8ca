"""Python's cyclic garbage collector during a long job that makes and drops many rows a page.

The collector runs a young pass each time 700 more container objects (tuples, lists, dicts,
the driver's records) are alive than at the last pass, and walks every one of them; a page of
the order export holds tens of thousands, alive until the page is written, and frees them then.
At the default threshold the collector ran about 5,000 young and 400 middle passes over 200,000
orders of bigshop_1m, walking the same pages again and again: a tenth of the export's CPU. With
the young threshold at YOUNG_THRESHOLD while a page-at-a-time job runs, the pages come and go
between passes and it runs about once. Cycles made meanwhile are still collected, later.

The threshold is the process's: a job that raises it holds it raised until the last such job
in the process ends (the worker's async jobs share one event loop thread), then it is put back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["YOUNG_THRESHOLD", "rare_young_collections"]

YOUNG_THRESHOLD = 100_000  # objects; a few pages' rows, so a pass comes only when more pile up

_holders = 0
_before: tuple[int, ...] = ()


@contextmanager
def rare_young_collections() -> Iterator[None]:
    """The collector's young threshold at least YOUNG_THRESHOLD inside the block."""
    global _holders, _before
    if _holders == 0:
        _before = gc.get_threshold()
        gc.set_threshold(max(YOUNG_THRESHOLD, _before[0]), *_before[1:])
    _holders += 1
    try:
        yield
    finally:
        _holders -= 1
        if _holders == 0:
            gc.set_threshold(*_before)
