"""Scheduled maintenance benchmark (not a test): a big shop's backlog of rows that retention lets
go of, added in bulk, then each maintenance job (jobs/maintenance.py) run in-process as its actor
would, with the rows it touched, its statements, its batches and the time a batch took printed.

    .venv/bin/python -m bench.big_shop --orders 100000 --database bigshop_maint
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bigshop_maint .venv/bin/python -m bench.maintenance_bench

The rows (`--scale 1`; a second run adds them again under new ids), each kind partly due and
partly kept: 200,000 sessions (150,000 expired), 460,000 jobs (400,000 succeeded or canceled more
than a week ago), 100,000 idempotency keys (80,000 older than a day, 1 % of them unfinished),
500,000 events with a receipt each (450,000 dispatched more than 14 days ago) and 200,000
webhook deliveries (155,000 due; 45,000 keep their old event), 200,000 Stripe events (150,000
handled more than 30 days ago), and 2,000 authorizations two days old on the shop's abandoned
carts. A batch is a statement that picks rows with a LIMIT (the purge's DELETE, or the read of the
next batch); its time runs from its start to the next batch's.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import time
from dataclasses import replace

import asyncpg

from app.config import Settings
from bench.in_process import open_store

DAY = 86400.0

# @S@ is the run's own prefix for ids (each run adds new rows); @K@ scales a count.
ROWS = """
INSERT INTO session (id, data, expires_at)
  SELECT @S@ || 'sess' || i, '{"user_id": null}', now() - (i % 30 + 1) * interval '1 day'
  FROM generate_series(1, 150000 * @K@) i;
INSERT INTO session (id, data, expires_at)
  SELECT @S@ || 'live' || i, '{}', now() + (i % 14 + 1) * interval '1 day' FROM generate_series(1, 50000 * @K@) i;
INSERT INTO job (id, actor_name, queue_name, args, kwargs, status, attempts, created_at, updated_at, started_at,
                 finished_at)
  SELECT @S@ || 'job' || i, 'dispatch_event', 'default', jsonb_build_array('evt_' || i), '{}',
         CASE WHEN i % 20 = 0 THEN 'canceled' ELSE 'succeeded' END, 1, t, t, t, t
  FROM generate_series(1, 400000 * @K@) i, LATERAL (SELECT now() - interval '8 days' - i * interval '5 seconds') x(t);
INSERT INTO job (id, actor_name, queue_name, args, kwargs, status, attempts, created_at, updated_at, started_at,
                 finished_at)
  SELECT @S@ || 'jobk' || i, 'send_notification', 'default', '[]', '{}',
         CASE WHEN i % 6 = 0 THEN 'failed' ELSE 'succeeded' END, 1, t, t, t, t
  FROM generate_series(1, 60000 * @K@) i,
       LATERAL (SELECT CASE WHEN i % 6 = 0 THEN now() - interval '20 days' ELSE now() - i * interval '5 seconds' END) x(t);
INSERT INTO idempotency_key (id, idempotency_key, created_at, updated_at, request_method, request_path,
                             request_params, response_code, recovery_point)
  SELECT @S@ || 'ikey' || i, @S@ || 'key' || i, t, t, 'POST', '/store/carts/cart_x/complete',
         '{"cart_id": "cart_x"}', CASE WHEN i % 100 = 0 THEN NULL ELSE 200 END,
         CASE WHEN i % 100 = 0 THEN 'started' ELSE 'finished' END
  FROM generate_series(1, 100000 * @K@) i,
       LATERAL (SELECT CASE WHEN i <= 80000 * @K@ THEN now() - interval '2 days' - i * interval '1 second'
                            ELSE now() - i % 3600 * interval '1 second' END) x(t);
INSERT INTO event (id, name, data, created_at, dispatched_at)
  SELECT @S@ || 'evt' || lpad(i::text, 9, '0'), 'order.placed', jsonb_build_object('id', 'order_' || i), t, t
  FROM generate_series(1, 500000 * @K@) i,
       LATERAL (SELECT CASE WHEN i <= 450000 * @K@ THEN now() - interval '60 days' + i * interval '5 seconds'
                            ELSE now() - interval '1 day' END) x(t);
INSERT INTO event_receipt (event_id, subscriber_id, created_at)
  SELECT @S@ || 'evt' || lpad(i::text, 9, '0'), 'notifications', now() FROM generate_series(1, 500000 * @K@) i;
INSERT INTO webhook_endpoint (id, created_at, updated_at, url, events, secret, status)
  VALUES (@S@ || 'we', now(), now(), 'https://example.com/hooks', '["*"]', 'whsec_bench', 'enabled');
INSERT INTO webhook_delivery (id, created_at, updated_at, event_id, event_name, endpoint_id, status, attempts,
                              attempt_log)
  SELECT @S@ || 'msg' || i, t, t, @S@ || 'evt' || lpad(i::text, 9, '0'), 'order.placed', @S@ || 'we', s, 1, '[]'
  FROM generate_series(1, 200000 * @K@) i,
       LATERAL (SELECT CASE WHEN i <= 15000 * @K@ THEN 'failed' ELSE 'succeeded' END,
                       CASE WHEN i <= 10000 * @K@ THEN now() - interval '20 days'
                            WHEN i <= 165000 * @K@ THEN now() - interval '40 days'
                            ELSE now() - interval '1 day' END) x(s, t);
INSERT INTO gateway_event (id, provider_id, type, data, received_at, handled_at, outcome)
  SELECT @S@ || 'gevt' || i, 'stripe', 'payment_intent.succeeded', '{"data": {"object": {}}}', t, t, 'paid'
  FROM generate_series(1, 200000 * @K@) i,
       LATERAL (SELECT CASE WHEN i <= 150000 * @K@ THEN now() - interval '31 days' - i * interval '10 seconds'
                            ELSE now() - interval '1 day' END) x(t);
INSERT INTO payment (id, created_at, updated_at, cart_id, amount, currency_code, amount_refunded, provider_id, data)
  SELECT @S@ || 'pay' || row_number() OVER (), now() - interval '2 days', now() - interval '2 days', c.id, 2500,
         'usd', 0, 'manual', '{"status": "authorized"}'
  FROM (SELECT id FROM cart WHERE completed_at IS NULL ORDER BY id LIMIT (2000 * @K@)::int) c;
ANALYZE session; ANALYZE job; ANALYZE idempotency_key; ANALYZE event; ANALYZE event_receipt;
ANALYZE webhook_delivery; ANALYZE gateway_event; ANALYZE payment;
"""


async def add_rows(dsn: str, scale: float) -> None:
    prefix = f"b{int(time.time()) % 100000}_"
    sql = ROWS.replace("@S@", f"'{prefix}'").replace("@K@", f"{scale:g}")
    connection = await asyncpg.connect(dsn.replace("postgres://", "postgresql://", 1))
    try:
        for statement in filter(str.strip, sql.split(";")):
            started = time.perf_counter()
            status = await connection.execute(statement)
            if status.startswith("INSERT"):
                table = statement.split()[2]
                print(f"  {table}: {int(status.split()[-1]):,} rows in {time.perf_counter() - started:.1f}s",
                      flush=True)
    finally:
        await connection.close()


class _Sent(logging.Handler):
    """Each statement the ORM sends, with when it was sent (Tortoise logs it just before)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.sent: list[tuple[float, str]] = []

    def emit(self, record):
        if isinstance(record.args, tuple) and len(record.args) == 2 and isinstance(record.args[0], str):
            self.sent.append((time.perf_counter(), record.args[0]))


def _touched(result) -> str:
    if isinstance(result, dict):
        return ", ".join(f"{k} {len(v) if isinstance(v, list) else v:,}" for k, v in result.items())
    return f"{result:,}"


async def run_jobs() -> None:
    from jobs import maintenance
    from workers.scheduler import MAINTENANCE_ACTORS

    handler = _Sent()
    logger = logging.getLogger("tortoise.db_client")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    def body(actor):  # the actor's own coroutine function, run on this loop
        return actor.fn.__wrapped__

    jobs = [(name, body(getattr(maintenance, name))) for name in MAINTENANCE_ACTORS]
    jobs.append(("cancel_stale_authorizations", lambda: body(maintenance.cancel_stale_authorizations)(DAY)))
    print("| job | rows touched | statements | batches | s in all | ms a batch, median | max |")
    print("|---|---|---|---|---|---|---|")
    for name, run in jobs:
        handler.sent.clear()
        started = time.perf_counter()
        result = await run()
        ended = time.perf_counter()
        starts = [at for at, sql in handler.sent if " ORDER BY " in sql and " LIMIT " in sql] + [ended]
        gaps = [(b - a) * 1000 for a, b in zip(starts, starts[1:])]
        print(f"| {name} | {_touched(result)} | {len(handler.sent):,} | {len(gaps):,} | {ended - started:.2f} | "
              f"{statistics.median(gaps) if gaps else 0:.1f} | {max(gaps) if gaps else 0:.1f} |", flush=True)
    logger.removeHandler(handler)


async def main_async(args) -> None:
    from app.shapes.completion import ApiAnswers
    from services import setup

    settings = replace(Settings.from_env(), redis_url=None)
    if not args.no_rows:
        started = time.perf_counter()
        await add_rows(settings.database_url, args.scale)
        print(f"rows added in {time.perf_counter() - started:.1f}s")
    async with open_store(settings):
        setup.configure(settings, answers=ApiAnswers())  # as the worker process starts
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        await run_jobs()
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="rows added, as a multiple of the counts above")
    parser.add_argument("--no-rows", action="store_true", help="add nothing: run the jobs on what is there")
    args = parser.parse_args()
    database = os.environ.get("DATABASE_URL", "")
    if not database.rsplit("/", 1)[-1].startswith("bigshop_"):
        parser.error("DATABASE_URL must name a scratch big shop (bigshop_...): rows are added to it")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
