"""PostgreSQL draws display ids (services/orders/display_ids.py) from a sequence, `display_id_order`,
instead of the `display_sequence` row: `nextval` holds no row lock and needs no transaction of its
own, where the row was locked by every checkout until its own commit (every completion queued on
it, each behind the one before's flush to disk). The sequence goes on from the row's value. The
row stays (SQLite's counter; on PostgreSQL no longer read) and takes the sequence's value back if
this migration is reversed. SQLite keeps its counter row.
"""

from models.migrations import _base as base

CREATE = [
    'CREATE SEQUENCE "display_id_order" AS bigint MINVALUE 1 START 1',
    # setval(…, n, true): the next number is n + 1; a counter at 0 leaves the sequence at its start
    "SELECT setval('\"display_id_order\"', \"value\", true) FROM \"display_sequence\""
    " WHERE \"name\" = 'order' AND \"value\" > 0",
]
DROP = [
    "UPDATE \"display_sequence\" SET \"value\" = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END"
    " FROM \"display_id_order\") WHERE \"name\" = 'order'",
    'DROP SEQUENCE "display_id_order"',
]


class Migration(base.Migration):
    dependencies = [("models", "0034_orders_newest_first")]

    operations = [base.PerDialect(CREATE, DROP, [], [])]
