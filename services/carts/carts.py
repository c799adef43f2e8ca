"""Carts: creating one, reading it, and the changes of
"Update a Cart", each in one transaction on the locked cart row.

A cart's payment sessions follow every change here (services/carts/payment_sessions.py), also when
the body names the cart's current region: Medusa v1 skips the re-sync whenever `region_id` is
sent, leaving the sessions on the old amount (a region that does change drops the sessions).

A cart is reached by its id (the id is the secret, as in Medusa v1), so a cart shows only what
its holder already knows. Hence two rules Medusa v1 does not have: only the signed-in customer
can become a cart's customer (anyone else naming a customer id gets a 401, where Medusa would
attach the customer and show their email), and addresses are attached by id only when the cart
or its customer owns them (services/carts/addresses.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


from models import Cart, Customer, PaymentSession, Region, SalesChannel, ShippingMethod
from services.carts.addresses import (
    SHIPPING, move_shipping_country, new_shipping_address, region_countries, set_address,
)
from services.carts.discounts import apply_discounts, keep_discounts_of_region, refresh_adjustments
from services.carts.gift_cards import apply_gift_cards
from services.carts.items import NewLine, add_lines, drop_lines_outside_channel, reprice_lines, reprice_read
from services.carts.locks import check_lines_open, lock_cart, lock_cart_rows
from services.carts.payment_sessions import resync_payment_sessions, resync_view
from services.carts.reads import amount_discount, read_region_with_default_channel
from services.carts.view import (
    CartView, check_amounts, load_cart_view, load_checked_view, new_cart_view, stored_tax_lines, view_of,
)
from services.customers.customers import guest_customer
from services.core.db import atomic, write_now
from services.core.errors import InvalidData, NotAllowed, NotFound, Unauthorized
from services.core.ids import fits
from services.core.sql import insert, update
from services.regions.parts import region_parts
from services.sales_channels.scopes import KeyScope, cart_channel, check_channel
from services.store.defaults import get_store

__all__ = ["KEEP", "NewCart", "CartChanges", "create_cart", "get_cart", "update_cart"]

KEEP: Any = object()  # a change left as KEEP leaves that part of the cart as it is


@dataclass
class NewCart:
    region_id: str | None = None
    country_code: str | None = None
    items: list[NewLine] = field(default_factory=list)
    context: dict | None = None
    sales_channel_id: str | None = None


@dataclass
class CartChanges:
    """What "Update a Cart" may change; each part left as KEEP is untouched."""

    region_id: Any = KEEP
    country_code: Any = KEEP
    email: Any = KEEP
    billing_address: Any = KEEP  # fields (dict), an address id, or None
    shipping_address: Any = KEEP
    gift_cards: Any = KEEP  # codes
    discounts: Any = KEEP  # codes
    customer_id: Any = KEEP
    context: Any = KEEP
    sales_channel_id: Any = KEEP


async def create_cart(
    new: NewCart, *, customer_id: str | None = None, request_context: dict | None = None,
    scope: KeyScope | None = None,
) -> CartView:
    """A cart in the given region (else the first one), bound to the signed-in customer if any.
    `context` is merged over the request's (`ip`, `user_agent`). Its sales channel is the one
    named, else the publishable key's (`scope`), else the store's default.

    What it only reads (region, sales channel, the region's countries) is read before the
    transaction, so the transaction holds nothing but the inserts and the region's parts can
    come from the per-process cache; a new cart has no row for another request to race on."""
    region, channel = await _region_and_channel(new.region_id, cart_channel(scope, new.sales_channel_id))
    parts = await region_parts(region)
    countries = [c.iso_2 for c in parts.countries]
    customer = await Customer.get_or_none(id=customer_id, deleted_at=None) if customer_id else None
    country = new.country_code.lower() if new.country_code is not None else None
    if country is not None and country not in countries:
        raise NotAllowed("Shipping country not in region")
    if country is None and len(countries) == 1:
        country = countries[0]
    cart = Cart(region=region, context={**(request_context or {}), **(new.context or {})},
                sales_channel_id=channel.id if channel else None)
    if customer is not None:
        cart.customer_id, cart.email = customer.id, customer.email
    if country is None and not new.items:
        await insert(cart)  # one INSERT: atomic on its own
    else:
        async with atomic():
            if country is not None:
                await new_shipping_address(cart, country)
            await insert(cart)
            await add_lines(cart, new.items)
            if new.items:
                return await load_checked_view(cart.id)
    for relation, value in (("shipping_address", cart.shipping_address if country else None),
                            ("billing_address", None), ("sales_channel", channel)):
        object.__setattr__(cart, f"_{relation}", value)
    return new_cart_view(cart, parts)


async def get_cart(cart_id: str, *, customer_id: str | None = None, adopt: bool = True) -> CartView:
    """The cart; read by a signed-in customer, an open cart becomes theirs (Medusa v1 writes this
    on every read; here only when the cart's customer or email differs, and when `adopt`: not for
    a read another site made the customer's browser send)."""
    view = await load_cart_view(cart_id)
    cart = view.cart
    if adopt and customer_id and cart.completed_at is None and cart.type != "swap" and (
        cart.customer_id != customer_id or not cart.email
    ):
        async with atomic():
            cart = await lock_cart(cart_id)
            customer = await Customer.get_or_none(id=customer_id, deleted_at=None)
            if customer is None:  # a session outliving its customer: just read the cart
                return view
            cart.customer_id, cart.email = customer.id, customer.email
            await reprice_lines(cart)
            await refresh_adjustments(cart)
            await cart.save()
            await resync_payment_sessions(cart)
        view = await load_cart_view(cart_id)
    return view


async def update_cart(
    cart_id: str, changes: CartChanges, *, customer_id: str | None = None, scope: KeyScope | None = None
) -> CartView:
    """Apply the changes in Medusa v1's order, all or nothing. `customer_id`: the signed-in
    customer, who wins over a customer id in the changes; a new sales channel must be within the
    publishable key's `scope`, if any.

    A change that leaves the lines, offers and region alone (email, customer, addresses,
    context: a checkout's) reads the cart once under its lock and answers from that read and what
    it wrote, in a constant number of statements; the others read the cart back."""
    if changes.sales_channel_id is not KEEP:
        check_channel(scope, [changes.sales_channel_id])
    if all(c is KEEP for c in (changes.region_id, changes.sales_channel_id, changes.discounts, changes.gift_cards)):
        return await _update_in_place(cart_id, changes, customer_id)
    async with atomic():
        cart = await lock_cart(cart_id)
        if any(c is not KEEP for c in (changes.region_id, changes.sales_channel_id, changes.discounts)) or (
            changes.customer_id is not KEEP or changes.email is not KEEP
        ):
            check_lines_open(cart)
        # A swap's cart keeps the order's customer, whoever is signed in.
        customer_set = cart.type != "swap" and await _set_customer(cart, changes, customer_id)
        region_changed = changes.region_id is not KEEP and changes.region_id != cart.region_id
        if region_changed:
            await _change_region(cart, changes)
        if customer_set or changes.region_id is not KEEP:
            await reprice_lines(cart)
        await _set_addresses(cart, changes, region_changed)
        channel_changed = changes.sales_channel_id is not KEEP and changes.sales_channel_id != cart.sales_channel_id
        if channel_changed:
            cart.sales_channel_id = (await _sales_channel(changes.sales_channel_id)).id
            await drop_lines_outside_channel(cart, cart.sales_channel_id)
        if changes.discounts is not KEEP:
            await apply_discounts(cart, changes.discounts)
        elif customer_set or changes.region_id is not KEEP or channel_changed:
            await refresh_adjustments(cart)
        if changes.gift_cards is not KEEP:
            await apply_gift_cards(cart, changes.gift_cards)
        _merge_context(cart, changes)
        await cart.save()
        await resync_payment_sessions(cart)
        return await load_checked_view(cart.id)


async def _update_in_place(cart_id: str, changes: CartChanges, signed_in: str | None) -> CartView:
    """`update_cart` without region, channel, discount or gift-card changes, answered from the
    cart read under the lock. A new customer re-prices the lines (their groups' price lists);
    a cart with an amount discount then has its adjustments rewritten and is read back."""
    async with atomic():
        rows = await lock_cart_rows(cart_id, stored_tax_lines=stored_tax_lines())
        cart = rows.cart
        if changes.customer_id is not KEEP or changes.email is not KEEP:
            check_lines_open(cart)
        customer_set = cart.type != "swap" and await _set_customer(cart, changes, signed_in)
        if customer_set:
            rows.items = await reprice_read(cart, rows.items)
        # The address and the cart's row are written with the unit's end (services/core/db.py): the
        # answer is built from this read and what was written, not read back.
        await _set_addresses(cart, changes, False, at_end=True)
        _merge_context(cart, changes)
        await update(cart, at_end=True)
        if customer_set and amount_discount(rows.discounts) is not None:
            # Adjustment rows exist only for an amount discount (services/carts/discounts.py).
            await write_now()  # rewriting them reads the cart back
            await refresh_adjustments(cart, rows.discounts)
            await resync_payment_sessions(cart)
            return await load_checked_view(cart.id)
        return check_amounts(await resync_view(await view_of(rows)))


async def _set_addresses(cart: Cart, changes: CartChanges, region_changed: bool, *, at_end: bool = False) -> None:
    if changes.billing_address is not KEEP:
        await set_address(cart, "billing", changes.billing_address, at_end=at_end)
    if changes.shipping_address is not KEEP:
        await set_address(cart, SHIPPING, changes.shipping_address, at_end=at_end)
    elif changes.country_code not in (KEEP, None) and not region_changed:
        await set_address(cart, SHIPPING, {"country_code": changes.country_code}, at_end=at_end)


def _merge_context(cart: Cart, changes: CartChanges) -> None:
    if changes.context not in (KEEP, None):
        cart.context = {**(cart.context or {}), **changes.context}


async def _set_customer(cart: Cart, changes: CartChanges, signed_in: str | None) -> bool:
    """Bind the cart to a customer: the signed-in one, or a guest customer for an email."""
    wanted = signed_in if signed_in else (None if changes.customer_id is KEEP else changes.customer_id)
    if wanted is not None:
        if not signed_in and wanted != cart.customer_id:
            raise Unauthorized("Only the signed-in customer can be made the customer of a cart")
        customer = await Customer.get_or_none(id=wanted, deleted_at=None)
        if customer is None:
            raise NotFound(f"Customer with id: {wanted} was not found")
    elif changes.email is not KEEP and changes.email is not None:
        customer = await guest_customer(changes.email)
    else:
        return False
    cart.customer_id, cart.email = customer.id, customer.email
    return True


async def _change_region(cart: Cart, changes: CartChanges) -> None:
    """the shipping country follows the region; shipping methods, payment sessions and
    gift cards go; discounts not available in the new region go."""
    if cart.payment_authorized_at is not None:
        raise NotAllowed("Cannot change the region of a completed cart")
    cart.region = await _region(changes.region_id)
    shipping = changes.shipping_address if isinstance(changes.shipping_address, dict) else {}
    country = changes.country_code if changes.country_code is not KEEP else None
    await move_shipping_country(cart, country or shipping.get("country_code"), await region_countries(cart.region_id))
    await ShippingMethod.filter(cart_id=cart.id).delete()
    await PaymentSession.filter(cart_id=cart.id).delete()
    await cart.gift_cards.clear()
    await keep_discounts_of_region(cart)


async def _region(region_id: str) -> Region:
    region = await Region.get_or_none(id=region_id, deleted_at=None) if fits(Region, region_id) else None
    if region is None:
        raise NotFound(f"Region with {region_id} was not found")
    return region


async def _new_cart_region(region_id: str | None) -> Region:
    if region_id is not None:
        return await _region(region_id)
    region = await Region.filter(deleted_at=None).order_by("created_at", "id").first()
    if region is None:
        raise InvalidData("A region is required to create a cart")
    return region


async def _region_and_channel(region_id: str | None, channel_id: str | None) -> tuple[Region, SalesChannel | None]:
    """The new cart's region (the first one without an id) and sales channel (the store's
    default without an id); the usual request (a region, no channel) takes one statement."""
    if region_id is None or channel_id is not None or not fits(Region, region_id):
        region = await _new_cart_region(region_id)
        channel = await _sales_channel(channel_id or (await get_store()).default_sales_channel_id)
        return region, channel
    region, channel = await read_region_with_default_channel(region_id)
    if region is None:
        raise NotFound(f"Region with {region_id} was not found")
    if channel is not None and channel.is_disabled:
        raise InvalidData(f'Unable to assign the cart to a disabled Sales Channel "{channel.name}"')
    return region, channel


async def _sales_channel(channel_id: str | None) -> SalesChannel | None:
    if channel_id is None:
        return None
    channel = None
    if fits(SalesChannel, channel_id):
        channel = await SalesChannel.get_or_none(id=channel_id, deleted_at=None)
    if channel is None:
        raise NotFound(f"Sales channel with id {channel_id} was not found")
    if channel.is_disabled:
        raise InvalidData(f'Unable to assign the cart to a disabled Sales Channel "{channel.name}"')
    return channel
