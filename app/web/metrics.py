"""`GET /metrics` in Prometheus's text format (prometheus-client): the web processes' requests
(count and latency by method, route template and status; in flight), and what the database says
about background work (services/core/gauge_reads.py). With several web processes the request series
are summed across them through prometheus-client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR,
which `commerce serve --workers N` sets up). Admin credentials are required, as on /admin."""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, SummaryMetricFamily
from sanic import Blueprint, Request
from sanic.response import raw

from app.web.auth import require_admin
from services.core.gauge_reads import read_gauges

__all__ = ["bp", "request_started", "request_finished"]

bp = Blueprint("metrics")

REQUESTS = Counter("commerce_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram(
    "commerce_http_request_duration_seconds", "Time to answer an HTTP request", ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
IN_FLIGHT = Gauge("commerce_http_requests_in_flight", "HTTP requests being answered", multiprocess_mode="livesum")


# Each series' child by its labels: `labels()` checks and locks on every call, and a process
# answers the same few (method, route, status) over and over. Children live as long as their metric.
_COUNTERS: dict[tuple[str, str, int], Any] = {}
_TIMERS: dict[tuple[str, str], Any] = {}


def request_started(request: Request) -> None:
    request.ctx.in_flight = True
    IN_FLIGHT.inc()


def request_finished(request: Request, route: str, status: int, seconds: float | None) -> None:
    """Count the answered request once (its route template and time come from its log line)."""
    if not getattr(request.ctx, "in_flight", False):
        return
    request.ctx.in_flight = False
    IN_FLIGHT.dec()
    method = request.method
    counter = _COUNTERS.get((method, route, status))
    if counter is None:
        counter = _COUNTERS[(method, route, status)] = REQUESTS.labels(method, route, str(status))
    counter.inc()
    if seconds is not None:
        timer = _TIMERS.get((method, route))
        if timer is None:
            timer = _TIMERS[(method, route)] = LATENCY.labels(method, route)
        timer.observe(seconds)


def _process_metrics() -> bytes:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


class _Work:
    def __init__(self, gauges):
        self.g = gauges

    def collect(self):
        g = self.g
        jobs = GaugeMetricFamily("commerce_jobs", "Job rows (kept 7 days once finished) by actor and status",
                                 labels=["actor", "status"])
        for (actor, status), n in sorted(g.jobs.items()):
            jobs.add_metric([actor, status], n)
        yield jobs
        took = SummaryMetricFamily("commerce_job_duration_seconds", "Run time of finished jobs by actor and outcome",
                                   labels=["actor", "outcome"])
        for (actor, outcome), (total, n) in sorted(g.job_seconds.items()):
            took.add_metric([actor, outcome], count_value=n, sum_value=total)
        yield took
        yield GaugeMetricFamily("commerce_outbox_waiting", "Jobs written and not yet run (pending, enqueued, retrying)",
                                value=g.outbox_waiting)
        yield GaugeMetricFamily("commerce_outbox_oldest_waiting_seconds", "Age of the oldest job not yet run",
                                value=g.outbox_oldest_seconds)
        rows = CounterMetricFamily("commerce_batch_job_rows_processed", "Rows processed by batch jobs, by type",
                                   labels=["type"])
        for kind, n in sorted(g.batch_rows.items()):
            rows.add_metric([kind], n)
        yield rows
        hooks = GaugeMetricFamily("commerce_webhook_deliveries", "Webhook deliveries by status", labels=["status"])
        for status, n in sorted(g.webhook_deliveries.items()):
            hooks.add_metric([status], n)
        yield hooks
        yield GaugeMetricFamily("commerce_events_undispatched", "Events not yet handed to every subscriber",
                                value=g.events_undispatched)


@bp.get("/metrics")
async def metrics(request: Request):
    await require_admin(request)
    registry = CollectorRegistry()
    registry.register(_Work(await read_gauges()))
    return raw(_process_metrics() + generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
