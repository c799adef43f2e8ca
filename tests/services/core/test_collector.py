"""The collector's young threshold while page-at-a-time jobs run (services/core/collector.py)."""

from __future__ import annotations

import gc

from services.core.collector import YOUNG_THRESHOLD, rare_young_collections


def test_the_threshold_is_raised_while_a_job_runs_and_put_back_after_the_last():
    # Given the process's thresholds
    before = gc.get_threshold()
    # When two jobs overlap, the first ending before the second
    first = rare_young_collections()
    first.__enter__()
    assert gc.get_threshold() == (max(YOUNG_THRESHOLD, before[0]), *before[1:])
    with rare_young_collections():
        first.__exit__(None, None, None)
        # I expect it raised until the last one ends
        assert gc.get_threshold()[0] >= YOUNG_THRESHOLD
    # and then put back as it was
    assert gc.get_threshold() == before


def test_a_job_that_fails_puts_the_threshold_back():
    before = gc.get_threshold()
    try:
        with rare_young_collections():
            raise RuntimeError("the job failed")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
