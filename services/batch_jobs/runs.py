"""One worker's hold on a batch job, from claim to release: the fence every write of a run goes
through. Apart from the lifecycle so that the strategies (product import, export) can take a run
without importing the lifecycle, which picks the strategies."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from tortoise.queryset import QuerySet

from models import BatchJob
from services.core import clock

__all__ = ["JobRun", "JobStopped"]

_BEAT_SECONDS = 5.0  # a long read reports at most this often

log = logging.getLogger("commerce.batch_jobs")


def _progress(result: dict) -> dict:
    """The counts of a job's result, for its progress line (not its errors or file keys)."""
    return {k: v for k, v in (result or {}).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


class JobStopped(Exception):
    """The run must stop without writing: its job was canceled or failed, or a newer run holds it."""


@dataclass
class JobRun:
    """One worker's hold on a job, from claim to release."""

    job: BatchJob
    token: str
    _last_beat: float = field(default_factory=time.monotonic)

    def _fenced(self) -> QuerySet:
        return BatchJob.filter(id=self.job.id, lease_token=self.token, canceled_at=None, failed_at=None)

    async def fence(self) -> None:
        """Call inside a transaction before writing: raises JobStopped unless the job is still this
        run's to work on. On PostgreSQL the job row stays locked until the transaction ends, so a
        cancel waits for the chunk in flight and is seen before the next one."""
        if not await self._fenced().update(heartbeat_at=clock.now()):
            raise JobStopped(self.job.id)
        self._last_beat = time.monotonic()

    async def save(self, result: dict, checkpoint: Any = None) -> None:
        """Record progress (and where a resumed run starts) under the fence."""
        changes = {"result": result, "heartbeat_at": clock.now()}
        if checkpoint is not None:
            changes["checkpoint"] = checkpoint
        if not await self._fenced().update(**changes):
            raise JobStopped(self.job.id)
        log.info("batch job %s (%s): %s", self.job.id, self.job.type, _progress(result),
                 extra={"batch_job": {"id": self.job.id, "type": self.job.type, "result": _progress(result)}})
        self.job.result = result
        self._last_beat = time.monotonic()

    async def beat(self) -> None:
        """During a long read: report now and then, and stop if the job was canceled."""
        if time.monotonic() - self._last_beat >= _BEAT_SECONDS:
            await self.fence()

    async def keep_alive(self, interval: float) -> None:
        """Beat every `interval` seconds while the run lives (a chunk may take longer than the
        takeover time); ends when the job is no longer this run's."""
        while True:
            await asyncio.sleep(interval)
            if not await self._fenced().update(heartbeat_at=clock.now()):
                return

    async def release(self) -> None:
        await BatchJob.filter(id=self.job.id, lease_token=self.token).update(lease_token=None)
