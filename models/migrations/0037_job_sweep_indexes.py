"""Indexes for the scheduler's outbox sweep (services/core/outbox.py `resend_stale`), so that it
reads, a batch at a time and oldest first, only the jobs it is due to send, however many finished
jobs the table keeps for their retention. Each is partial, holding the few rows of the statuses it
serves, with the id after the age so that a batch goes on from where the last one ended:

- pending jobs, by when they were written (never sent: their process died before the send);
- enqueued and retrying jobs, by their last change (their message was lost);
- running jobs, by their last heartbeat (their worker died), and those that never beat, by when
  they started (claimed by a worker of before heartbeats).

Both databases get them (SQLite has partial indexes too).
"""

from models.migrations import _base as base

INDEXES = [
    ("ix_job_pending", '"job" ("created_at", "id") WHERE "status" = \'pending\''),
    ("ix_job_unclaimed", '"job" ("status", "updated_at", "id") WHERE "status" IN (\'enqueued\', \'retrying\')'),
    ("ix_job_running", '"job" ("heartbeat_at", "id") WHERE "status" = \'running\''),
    ("ix_job_unbeaten", '"job" ("started_at", "id") WHERE "status" = \'running\' AND "heartbeat_at" IS NULL'),
]

CREATE = [f'CREATE INDEX "{name}" ON {what}' for name, what in INDEXES]
DROP = [f'DROP INDEX "{name}"' for name, _ in INDEXES]


class Migration(base.Migration):
    dependencies = [("models", "0036_search_statistics")]

    operations = [base.PerDialect(CREATE, DROP, CREATE, DROP)]
