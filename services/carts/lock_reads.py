"""The carts area's hand-written reads that lock: the statement every change of a cart starts
with, which locks the live cart's row (`SELECT … FOR UPDATE` on PostgreSQL; SQLite has one writer
at a time) and answers its row, alone or with the variants a shopper adds
(services/carts/variant_reads.py). What they answer is used as data (the cart, the variants), so
they are reads, built through services/core/sql.py; tests/services/carts/test_reads.py holds them
equal to the ORM's reads on both backends. Taking a cart for a change is services/carts/locks.py's."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from models import Cart
from services.carts.variant_reads import LockedVariants, fold_locked_variants, locked_variants_statement
from services.core.errors import NotFound
from services.core.ids import fits
from services.core.sql import RowBuilder, placeholders

__all__ = ["read_locked_cart", "read_locked_variants"]


async def read_locked_cart(cart_id: str, whole: bool = True) -> Cart | None:
    """The live cart's row, locked (`whole`: with its columns, else only the lock is wanted). The
    lock takes the cart row alone (a join would lock the region for every cart in it). Every
    change of a cart runs this statement first, so its text is built once per process and
    dialect, and the row folded as services/carts/reads.py folds. NotFound when there is none."""
    rows = await _locking(cart_id, lambda dialect: (_lock_statement(dialect, whole), [cart_id]))
    return _cart_builder().build(rows[0]) if whole else None


async def read_locked_variants(cart_id: str, variant_ids: list[str]) -> LockedVariants:
    """The live cart's row locked as `read_locked_cart` locks it, and in the same statement the
    variants a shopper may add (`locked_variants_statement`), checked against the channel the
    cart had when the statement started; `variant_ids` (at least one) fit their column."""

    def statement(dialect: str) -> tuple[str, list]:
        sql, params = locked_variants_statement(dialect, len(variant_ids))
        return sql, params(cart_id, variant_ids)

    return fold_locked_variants(await _locking(cart_id, statement))


async def _locking(cart_id: str, statement: Callable[[str], tuple[str, list]]) -> list:
    """The rows of a statement that locks the live cart (`statement(dialect)`: its text and
    parameters); NotFound when it found no cart."""
    rows = None
    if fits(Cart, cart_id):
        db = Cart._meta.db
        sql, params = statement(db.capabilities.dialect)
        _, rows = await db.execute_query(sql, params)
    if not rows:
        raise NotFound(f"Cart with {cart_id} was not found")
    return rows


@lru_cache(maxsize=None)
def _lock_statement(dialect: str, whole: bool) -> str:
    columns = ", ".join(f'"{c}"' for c in sorted(Cart._meta.db_fields)) if whole else '"id"'
    lock = "" if dialect == "sqlite" else " FOR UPDATE"  # SQLite has one writer at a time
    mark = placeholders(dialect, 1, 1)[0]
    return f'SELECT {columns} FROM "cart" WHERE "id" = {mark} AND "deleted_at" IS NULL{lock}'


@lru_cache(maxsize=None)
def _cart_builder() -> RowBuilder:
    return RowBuilder(Cart, lambda column: column)
