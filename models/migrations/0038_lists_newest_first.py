"""The discount and draft-order lists' own order, newest first with ties by id (`created_at DESC,
id`), as indexes on both databases, in place of the indexes on `created_at` alone (migrations 0029
and 0031), as migration 0034 did for the order list.

A page follows (created_at descending, id ascending). Rows written in one statement share their
`created_at` (a bulk load, `bench.big_shop`'s 10,000 discounts and 10,000 draft orders): with the
index on `created_at` alone, the planner reads the whole table and sorts it for a page of 15
(about 2.5 ms of SQL a page at 10,000 rows, growing with the table); with the id in the index, in
the list's directions, a page is read from the index in order (0.1 ms). Each new index serves all
that the one it replaces did: the same column leads it.
"""

from models.migrations import _base as base

TABLES = ("discount", "draft_order")

CREATE = [sql for table in TABLES for sql in (
    f'CREATE INDEX "ix_{table}_created_at_id" ON "{table}" ("created_at" DESC, "id")',
    f'DROP INDEX "ix_{table}_created_at"',
)]
DROP = [sql for table in TABLES for sql in (
    f'CREATE INDEX "ix_{table}_created_at" ON "{table}" ("created_at")',
    f'DROP INDEX "ix_{table}_created_at_id"',
)]


class Migration(base.Migration):
    dependencies = [("models", "0037_job_sweep_indexes")]

    operations = [base.PerDialect(CREATE, DROP, CREATE, DROP)]
