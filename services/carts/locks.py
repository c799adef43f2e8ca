"""Taking a cart for a change. Every change to a cart starts by locking its row, so two
requests on one cart run one after the other and neither loses the other's work."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from models import Cart
from services.carts.reads import CartRows, read_cart
from services.carts.variant_reads import LockedVariants, fold_locked_variants, locked_variants_statement
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.core.sql import RowBuilder, placeholders

__all__ = ["lock_cart", "lock_cart_rows", "lock_reading_variants", "check_lines_open"]


async def lock_cart(cart_id: str, *, editable: bool = True) -> Cart:
    """The live cart with its region, its row locked until the caller's transaction ends (call it
    inside `atomic()`). A completed cart belongs to its order: with `editable` it is refused."""
    cart = await _locked_row(cart_id)
    _check_editable(cart, editable)
    await cart.fetch_related("region")
    return cart


async def _locked_row(cart_id: str, whole: bool = True) -> Cart | None:
    """The live cart's row, locked (`whole`: with its columns, else only the lock is wanted). The
    lock takes the cart row alone (a join would lock the region for every cart in it). Every
    change of a cart runs this statement first, so its text is built once per process and
    dialect, and the row folded as services/carts/reads.py folds."""
    rows = await _locking(cart_id, lambda dialect: (_lock_statement(dialect, whole), [cart_id]))
    return _cart_builder().build(rows[0]) if whole else None


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


async def lock_reading_variants(cart_id: str, variant_ids: list[str]) -> LockedVariants:
    """The live cart's row locked as `_locked_row` locks it, and in the same statement the
    variants a shopper may add (services/carts/reads.py `locked_variants_statement`), checked
    against the channel the cart had when the statement started. Then `lock_cart_rows(...,
    locked=True)`; `variant_ids` fit their column."""
    if not variant_ids:
        await _locked_row(cart_id, whole=False)
        return LockedVariants({}, None)

    def statement(dialect: str) -> tuple[str, list]:
        sql, params = locked_variants_statement(dialect, len(variant_ids))
        return sql, params(cart_id, variant_ids)

    return fold_locked_variants(await _locking(cart_id, statement))


@lru_cache(maxsize=None)
def _lock_statement(dialect: str, whole: bool) -> str:
    columns = ", ".join(f'"{c}"' for c in sorted(Cart._meta.db_fields)) if whole else '"id"'
    lock = "" if dialect == "sqlite" else " FOR UPDATE"  # SQLite has one writer at a time
    mark = placeholders(dialect, 1, 1)[0]
    return f'SELECT {columns} FROM "cart" WHERE "id" = {mark} AND "deleted_at" IS NULL{lock}'


@lru_cache(maxsize=None)
def _cart_builder() -> RowBuilder:
    return RowBuilder(Cart, lambda column: column)


def _check_editable(cart: Cart, editable: bool) -> None:
    if editable and cart.completed_at is not None:
        raise NotAllowed("Cannot update a completed cart")


async def lock_cart_rows(
    cart_id: str, *, stored_tax_lines: Callable[[Cart], bool], methods_wanted=None, editable: bool = True,
    with_payment: bool = False, locked: bool = False,
) -> CartRows:
    """The live, editable cart locked as `lock_cart` locks it, then read whole (services/carts/reads.py)
    by statements that start after the lock is held, so they see what the change before this
    one committed. A change that writes what it changes in memory too answers without reading
    the cart back. `locked`: the caller has just locked it (`lock_reading_variants`)."""
    if not locked:
        await _locked_row(cart_id, whole=False)  # the read below brings the row
    rows = await read_cart(
        cart_id, stored_tax_lines=stored_tax_lines, methods_wanted=methods_wanted, with_payment=with_payment)
    if rows is None:  # the lock holds the row: only a deleted cart reads as none
        raise NotFound(f"Cart with {cart_id} was not found")
    _check_editable(rows.cart, editable)
    return rows


def check_lines_open(cart: Cart) -> None:
    """A swap's cart holds what its exchange set (services/swaps/carts.py): its lines, and the
    region, customer, channel and discounts that priced them, are not the shopper's to change."""
    if cart.type == "swap":
        raise NotAllowed("The items of a swap's cart are set by the exchange and cannot be changed")
