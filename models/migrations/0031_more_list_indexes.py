"""Indexes for three more of the back office's lists at a big shop's size, found by measuring them
on the 1,000,000-order shop of `python -m bench.big_shop` (docs/benchmarks.md), where each read
and sorted its whole table for a page of 15:

- the order list sorted by status (`order=status`; a page is ordered by the primary key within a
  status, services/core/listing.py `_ordered`): `(status, id)`;
- the product list's default order (`created_at`), 20,000 products;
- the discount list's default order (`created_at`), 10,000 discounts.

Both databases get them (btree).
"""

from models.migrations import _base as base

BTREE = [
    ("orders", ("status", "id")),
    ("product", ("created_at",)),
    ("discount", ("created_at",)),
]


def _name(table: str, columns: tuple[str, ...]) -> str:
    return f"ix_{table}_{'_'.join(columns)}"


CREATE = [
    f'CREATE INDEX "{_name(table, columns)}" ON "{table}" ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in columns)})'
    for table, columns in BTREE
]
DROP = [f'DROP INDEX "{_name(table, columns)}"' for table, columns in BTREE]


class Migration(base.Migration):
    dependencies = [("models", "0030_product_q_indexes")]

    operations = [base.PerDialect(CREATE, DROP, CREATE, DROP)]
