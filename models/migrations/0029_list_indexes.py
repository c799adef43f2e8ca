"""Indexes for the back office's lists at a big shop's size (hundreds of thousands of orders, as a
shop moved from Medusa brings; `python -m bench.big_shop` builds one to measure with).

- Substring search (`q`, Tortoise's `icontains`: `UPPER(CAST(col AS VARCHAR)) LIKE UPPER('%…%')`):
  on PostgreSQL a `pg_trgm` GIN index on that very expression, so the planner finds the few
  matching rows of the order e-mail, the customer's e-mail, names and phone and the shipping
  address's first name instead of testing every row (the extension comes with migration 0022).
  SQLite has no such index; an embedded shop is small.
- The order list's filters with its default order (`status`, `payment_status`,
  `fulfillment_status`, each with `created_at`), a customer's orders newest first (their page in
  the back office and the storefront), its `updated_at` order, and the order search's way from a
  matching shipping address to its order (`shipping_address_id`).
- The default order (`created_at`) of the lists that grow with the trade: customers, gift cards,
  returns, swaps, draft orders. Both databases get these btree indexes.
"""

from models.migrations import _base as base
from tortoise.migrations import operations as ops

TRIGRAM = [
    ("orders", "email"),
    ("customer", "email"),
    ("customer", "first_name"),
    ("customer", "last_name"),
    ("customer", "phone"),
    ("address", "first_name"),
]

BTREE = [
    ("orders", ("status", "created_at")),
    ("orders", ("payment_status", "created_at")),
    ("orders", ("fulfillment_status", "created_at")),
    ("orders", ("customer_id", "created_at")),
    ("orders", ("updated_at",)),
    ("orders", ("shipping_address_id",)),
    ("customer", ("created_at",)),
    ("gift_card", ("created_at",)),
    ("return", ("created_at",)),
    ("swap", ("created_at",)),
    ("draft_order", ("created_at",)),
]


def _btree_name(table: str, columns: tuple[str, ...]) -> str:
    return f"ix_{table}_{'_'.join(columns)}"


def _quoted(columns: tuple[str, ...]) -> str:
    return ", ".join(f'"{column}"' for column in columns)


def _btree() -> list[str]:
    return [f'CREATE INDEX "{_btree_name(table, columns)}" ON "{table}" ({_quoted(columns)})' for table, columns in BTREE]


def _drop_btree() -> list[str]:
    return [f'DROP INDEX "{_btree_name(table, columns)}"' for table, columns in BTREE]


PG_CREATE = _btree() + [
    f'CREATE INDEX "{table}_{column}_trgm" ON "{table}" USING gin (UPPER(CAST("{column}" AS VARCHAR)) gin_trgm_ops)'
    for table, column in TRIGRAM
]
PG_DROP = _drop_btree() + [f'DROP INDEX "{table}_{column}_trgm"' for table, column in TRIGRAM]


class Migration(base.Migration):
    dependencies = [("models", "0028_line_includes_tax")]

    operations = [base.PerDialect(PG_CREATE, PG_DROP, _btree(), _drop_btree())]
