"""Taking a cart for a change. Every change to a cart starts by locking its row, so two
requests on one cart run one after the other and neither loses the other's work. The locking
statements, which answer the cart's row (and the variants a shopper adds), are
services/carts/lock_reads.py's."""

from __future__ import annotations

from typing import Callable

from models import Cart
from services.carts.lock_reads import read_locked_cart, read_locked_variants
from services.carts.reads import CartRows, read_cart
from services.carts.variant_reads import LockedVariants
from services.core.errors import NotAllowed, NotFound

__all__ = ["lock_cart", "lock_cart_rows", "lock_reading_variants", "check_lines_open"]


async def lock_cart(cart_id: str, *, editable: bool = True) -> Cart:
    """The live cart with its region, its row locked until the caller's transaction ends (call it
    inside `atomic()`). A completed cart belongs to its order: with `editable` it is refused."""
    cart = await read_locked_cart(cart_id)
    _check_editable(cart, editable)
    await cart.fetch_related("region")
    return cart


async def lock_reading_variants(cart_id: str, variant_ids: list[str]) -> LockedVariants:
    """The live cart's row locked as `lock_cart` locks it, and in the same statement the variants
    a shopper may add (services/carts/lock_reads.py `read_locked_variants`), checked against the
    channel the cart had when the statement started. Then `lock_cart_rows(..., locked=True)`;
    `variant_ids` fit their column."""
    if not variant_ids:
        await read_locked_cart(cart_id, whole=False)
        return LockedVariants({}, None)
    return await read_locked_variants(cart_id, variant_ids)


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
        await read_locked_cart(cart_id, whole=False)  # the read below brings the row
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
