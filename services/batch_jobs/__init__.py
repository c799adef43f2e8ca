"""Batch jobs: the lifecycle, and the product import and export strategies."""

from __future__ import annotations

from services.core.outbox import TAKEOVER_SECONDS

__all__ = ["configure", "takeover_seconds"]

_takeover_seconds = TAKEOVER_SECONDS


def configure(settings) -> float:
    """Take JOB_TAKEOVER_SECONDS from the process's settings: how long a run may stay silent
    before another worker takes its lease over (seconds)."""
    global _takeover_seconds
    _takeover_seconds = settings.job_takeover_seconds
    return _takeover_seconds


def takeover_seconds() -> float:
    return _takeover_seconds
