"""Indexes for the scheduled maintenance (jobs/maintenance.py) and the scheduler's sweeps, so each
reads only the rows it is due to touch, whatever the shop's size (a 1,000,000-order shop keeps
millions of jobs, events and deliveries for their retention); each purge deletes them in batches
along its index (services/core/purging.py):

- finished jobs, by status and when they finished (`purge_jobs`);
- webhook deliveries, by status and last change (`purge_events`), and events by when they were
  dispatched, with the id for the order a batch goes on from;
- gateway (Stripe) events, by when they were handled (`purge_gateway_events`);
- payments neither canceled, captured nor attached to an order (a partial index: the few open
  ones, not every payment of the shop), by age (`cancel_stale_authorizations`);
- idempotency keys not yet answered (partial: the completions in flight), by their last move: the
  sweep of stalled completions, and the check that an authorization's completion still runs.

Sessions (`expires_at`) and idempotency keys (`created_at`) had theirs already. Both databases get
them (SQLite has partial indexes too).
"""

from models.migrations import _base as base

INDEXES = [
    ("ix_job_status_finished_at", '"job" ("status", "finished_at")'),
    ("ix_webhook_delivery_status_updated_at", '"webhook_delivery" ("status", "updated_at")'),
    ("ix_event_dispatched_at_id", '"event" ("dispatched_at", "id")'),
    ("ix_gateway_event_handled_at", '"gateway_event" ("handled_at")'),
    ("ix_payment_open",
     '"payment" ("created_at", "id") WHERE "canceled_at" IS NULL AND "captured_at" IS NULL AND "order_id" IS NULL'),
    ("ix_idempotency_key_unanswered", '"idempotency_key" ("updated_at") WHERE "response_code" IS NULL'),
]

CREATE = [f'CREATE INDEX "{name}" ON {what}' for name, what in INDEXES]
DROP = [f'DROP INDEX "{name}"' for name, _ in INDEXES]


class Migration(base.Migration):
    dependencies = [("models", "0031_more_list_indexes")]

    operations = [base.PerDialect(CREATE, DROP, CREATE, DROP)]
