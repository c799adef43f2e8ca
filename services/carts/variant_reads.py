"""The variants a shopper adds to a cart, with their product, its shipping profile and their
live prices, read in one statement (services/carts/items.py), alone or together with the lock
of their cart (services/carts/lock_reads.py). Instances are built through services/core/sql.py; the
rows equal what the ORM reads (tests/services/carts/test_reads.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from models import Cart, MoneyAmount, Product, ProductVariant, ShippingProfile
from services.core.sql import aliased_columns, by_creation, placeholders, source

__all__ = ["LockedVariants", "fold_locked_variants", "locked_variants_statement", "read_variants"]

# Built once per process and shape: building costs more than running.
_STATEMENTS: dict[tuple, str] = {}


async def read_variants(
    ids: list[str], *, for_sale: bool, channel_id: str | None,
) -> dict[str, tuple[ProductVariant, bool]]:
    """The variants with their product, its shipping profile and the variants' live prices (as
    `variant.prices`), in one statement; with each, whether its product is sold through
    `channel_id` (True without a channel). `for_sale`: only live variants of live,
    published products (what a shopper may add)."""
    if not ids:
        return {}
    db = Cart._meta.db
    dialect = db.capabilities.dialect
    key = (dialect, "variants", for_sale, channel_id is not None, len(ids))
    sql = _STATEMENTS.get(key)
    if sql is None:
        # The channel's mark comes first, as it does in the text (SQLite's marks are positional).
        marks = placeholders(dialect, 1, len(ids) + 1)
        marks = marks[1:] + marks[:1] if channel_id is not None else marks
        channel = None if channel_id is None else marks[-1]
        order = ' ORDER BY "v"."id", "ma"."created_at", "ma"."id"'
        sql = _STATEMENTS[key] = _variants_select(marks[:-1], for_sale, channel) + order
    params = ([channel_id] if channel_id is not None else []) + list(ids)
    _, rows = await db.execute_query(sql, params)
    return _fold_variants(rows)


def _variants_select(marks: list[str], for_sale: bool, channel: str | None, extra: str = "") -> str:
    """The SELECT of `read_variants` for the ids at `marks`; `channel`: the SQL of the sales
    channel to check (None: no channel, or one whose NULL means none when `extra` is given)."""
    v, p, pf, ma = source(ProductVariant, "v"), source(Product, "p"), source(ShippingProfile, "pf"), \
        source(MoneyAmount, "ma")
    columns = ", ".join(aliased_columns(s.model, s.alias) for s in (v, p, pf, ma))
    in_channel = "1" if channel is None else (
        f'(SELECT COUNT(*) FROM "product_sales_channel" "psc" WHERE "psc"."product_id" = "p"."id" '
        f'AND "psc"."sales_channel_id" = {channel})'
    )
    if channel is not None and extra:
        in_channel = f"CASE WHEN {channel} IS NULL THEN 1 ELSE {in_channel} END"
    live = ' AND "v"."deleted_at" IS NULL AND "p"."deleted_at" IS NULL AND "p"."status" = \'published\'' \
        if for_sale else ""
    return (
        f'SELECT {columns}, {in_channel} AS "in_channel"{extra} FROM "product_variant" "v" '
        f'JOIN "product" "p" ON "p"."id" = "v"."product_id" '
        f'LEFT JOIN "shipping_profile" "pf" ON "pf"."id" = "p"."profile_id" '
        f'LEFT JOIN "money_amount" "ma" ON "ma"."variant_id" = "v"."id" AND "ma"."deleted_at" IS NULL '
        f'WHERE "v"."id" IN ({", ".join(marks)}){live}'
    )


def _fold_variants(rows: list) -> dict[str, tuple[ProductVariant, bool]]:
    """`read_variants`' rows (by variant, each variant's prices in order) folded."""
    v, p, pf, ma = source(ProductVariant, "v"), source(Product, "p"), source(ShippingProfile, "pf"), \
        source(MoneyAmount, "ma")
    found: dict[str, tuple[ProductVariant, bool]] = {}
    prices: dict[str, list[MoneyAmount]] = {}
    for row in rows:
        variant_id = row["v.id"]
        if variant_id not in found:
            variant = v.build(row)
            product = p.build(row)
            object.__setattr__(product, "_profile", pf.build(row))
            object.__setattr__(variant, "_product", product)
            found[variant_id] = (variant, bool(row["in_channel"]))
            prices[variant_id] = []
        price = ma.build(row)
        if price is not None:
            prices[variant_id].append(price)
    for variant_id, (variant, _) in found.items():
        variant.prices._set_result_for_query(prices[variant_id])
    return found


@dataclass
class LockedVariants:
    """Variants read by the statement that locked their cart (`lock_reading_variants`)."""
    found: dict[str, tuple[ProductVariant, bool]]  # as `read_variants` answers
    channel_id: str | None  # the cart's sales channel they were checked against


def locked_variants_statement(dialect: str, count: int) -> tuple[str, Callable[[str, list[str]], list]]:
    """The cart's row locked (as services/carts/lock_reads.py locks it) and, in the same statement,
    `read_variants(ids, for_sale=True, channel_id=<the cart's channel>)` for `count` ids, each
    row carrying the channel checked as "checked_channel" (NULL for none). The variants are read
    with the statement's snapshot, taken before the lock is granted: the caller compares that
    channel with the one it reads under the lock. With the statement, how to lay out its
    parameters for a cart id and the ids."""
    key = (dialect, "lock+variants", count)
    sql = _STATEMENTS.get(key)
    if sql is None:
        sqlite = dialect == "sqlite"
        marks, cart = placeholders(dialect, 2, count), placeholders(dialect, 1, 1)[0]
        channel = f'(SELECT "sales_channel_id" FROM "cart" WHERE "id" = {cart})'
        inner = _variants_select(marks, True, channel, f', {channel} AS "checked_channel"')
        lock = "" if sqlite else ' FOR UPDATE OF "c"'  # SQLite has one writer at a time
        sql = _STATEMENTS[key] = (
            f'SELECT "c"."id" AS "locked", "x".* FROM "cart" "c" LEFT JOIN ({inner}) "x" ON 1 = 1 '
            f'WHERE "c"."id" = {cart} AND "c"."deleted_at" IS NULL{lock}'
        )
    if dialect == "sqlite":  # positional: the CASE's channel twice, the count's, the checked one, the ids, the cart
        return sql, lambda cart_id, ids: [cart_id, cart_id, cart_id, *ids, cart_id]
    return sql, lambda cart_id, ids: [cart_id, *ids]


def fold_locked_variants(rows: list) -> LockedVariants:
    """The variants of `locked_variants_statement`'s rows (at least one: the cart's)."""
    channel = rows[0]["checked_channel"]
    found = [row for row in rows if row["v.id"] is not None]
    found.sort(key=lambda row: (row["v.id"], *by_creation("ma")(row)))
    return LockedVariants(_fold_variants(found), channel)
