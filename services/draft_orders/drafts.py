"""Draft orders: orders staff build by hand, e.g. taking a phone order.
A draft is a cart of type `draft_order` behind the scenes; its lines and shipping follow the
back office's rules (services/draft_orders/lines.py); paying it is services/draft_orders/payment.py.

Every change locks the draft's cart row first, then reads the draft again, so a change and a
payment of the same draft run one after the other: nothing changes a draft once it is paid.

Departures from Medusa v1, on purpose:
- an address given by id must be one of the customer's saved addresses (Medusa attaches any
  address and may then edit it in place, someone else's included);
- a region change keeps the prices staff typed and refuses a line without a price in the new
  region, instead of silently dropping it;
- deleting a draft also retires its cart (it could otherwise still be checked out by its id),
  and a paid draft cannot be deleted: it is part of its order's history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from tortoise.expressions import Q

from models import Cart, Customer, DraftOrder, Order, PaymentSession, Region, ShippingMethod
from services.carts.addresses import move_shipping_country, new_shipping_address, region_countries, set_address
from services.carts.discounts import apply_discounts, keep_discounts_of_region, refresh_adjustments
from services.carts.locks import lock_cart
from services.carts.view import CartView, check_amounts, load_cart_view
from services.customers.customers import guest_customer
from services.core.db import atomic
from services.orders.display_ids import next_display_id
from services.draft_orders.lines import (
    DraftLine, LineChanges, NewMethod, add_lines, add_methods, change_line, remove_line, reprice_for_region, reship,
)
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, date_filters, find_page
from services.store.defaults import get_store
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "KEEP", "DraftOrderView", "DraftOrderFilter", "NewDraftOrder", "DraftOrderChanges", "DRAFT_RELATIONS",
    "list_draft_orders", "get_draft_order", "create_draft_order", "update_draft_order", "delete_draft_order",
    "add_draft_line", "update_draft_line", "delete_draft_line", "find_draft", "lock_draft", "OPEN_ONLY",
]

KEEP: Any = object()  # a change left as KEEP leaves that part of the draft as it is
OPEN_ONLY = "You are only allowed to update open draft orders"
# The relations a list may load: the order placed from a draft, its cart, the cart's lines.
DRAFT_RELATIONS = ("order", "cart", "cart.items", "cart.items.adjustments")
_DISPLAY_ID = re.compile(r"^#?\s*(\d{1,9})$")


@dataclass
class DraftOrderView:
    draft: DraftOrder
    cart: CartView | None  # None only for a draft whose cart was removed
    customer: Customer | None
    order: Order | None  # the order a paid draft became


@dataclass
class DraftOrderFilter:
    q: str | None = None
    status: list[str] = field(default_factory=list)
    created_at: dict | None = None
    updated_at: dict | None = None


@dataclass
class NewDraftOrder:
    email: str
    region_id: str
    shipping_methods: list[NewMethod] = field(default_factory=list)
    items: list[DraftLine] = field(default_factory=list)
    billing_address: dict | str | None = None  # fields, or the id of a customer's saved address
    shipping_address: dict | str | None = None
    discounts: list[str] = field(default_factory=list)  # codes
    customer_id: str | None = None
    no_notification_order: bool | None = None
    metadata: dict | None = None  # the cart's, as in Medusa v1: it becomes the order's


@dataclass
class DraftOrderChanges:
    region_id: Any = KEEP
    country_code: Any = KEEP
    email: Any = KEEP
    billing_address: Any = KEEP  # fields, an address id, or None to clear
    shipping_address: Any = KEEP
    discounts: Any = KEEP  # codes; [] removes them
    customer_id: Any = KEEP
    no_notification_order: Any = KEEP
    shipping_methods: Any = KEEP  # list[NewMethod] replacing the methods (not in Medusa v1)


# ---------------------------------------------------------------- reading

async def find_draft(draft_id: str) -> DraftOrder:
    draft = await DraftOrder.get_or_none(id=draft_id) if fits(DraftOrder, draft_id) else None
    if draft is None:
        raise NotFound(f"Draft order with {draft_id} was not found")
    return draft


async def get_draft_order(draft_id: str) -> DraftOrderView:
    """The draft with its cart and totals, its customer, and the order it became."""
    draft = await find_draft(draft_id)
    cart = None
    if draft.cart_id is not None:
        try:
            cart = await load_cart_view(draft.cart_id)
        except NotFound:
            cart = None
    customer = None
    if cart is not None and cart.cart.customer_id is not None:
        customer = await Customer.get_or_none(id=cart.cart.customer_id)
    order = await Order.get_or_none(id=draft.order_id) if draft.order_id else None
    return DraftOrderView(draft=draft, cart=cart, customer=customer, order=order)


async def list_draft_orders(
    f: DraftOrderFilter, config: FindConfig,
) -> tuple[list[DraftOrder], dict[str, Order], int]:
    """A page of drafts with the cart relations asked for, the orders they became (by id) when
    `order` is asked for, and the count. `q` matches the cart's email or its customer's name in
    any case, or the draft's number (`12` or `#12`; Medusa matches any number containing it)."""
    qs = DraftOrder.filter(**date_filters(created_at=f.created_at, updated_at=f.updated_at))
    if f.status:
        qs = qs.filter(status__in=f.status)
    if f.q and f.q.strip():
        qs = qs.filter(_search(f.q.strip()))
    cart_relations = tuple(r for r in config.relations if r.startswith("cart"))
    drafts, count = await find_page(qs, replace(config, relations=cart_relations))
    orders: dict[str, Order] = {}
    order_ids = [d.order_id for d in drafts if d.order_id]
    if "order" in config.relations and order_ids:
        orders = {o.id: o for o in await Order.filter(id__in=order_ids)}
    return drafts, orders, count


def _search(q: str) -> Q:
    found = (
        Q(cart__email__icontains=q) | Q(cart__customer__first_name__icontains=q)
        | Q(cart__customer__last_name__icontains=q)
    )
    number = _DISPLAY_ID.match(q)
    return found | Q(display_id=int(number.group(1))) if number else found


# ---------------------------------------------------------------- create, update, delete

async def create_draft_order(new: NewDraftOrder) -> DraftOrderView:
    """Medusa v1's flow in one transaction: the cart (customer, addresses), the draft, its lines,
    its shipping methods, then its discounts. A known `customer_id` wins over `email` (the
    customer's own email is used); an unknown one is ignored and `email` names a guest."""
    display_id = await next_display_id()  # outside the transaction: see services/orders/display_ids.py
    async with atomic():
        region = await _region(new.region_id)
        store = await get_store()
        cart = Cart(type="draft_order", region=region, sales_channel_id=store.default_sales_channel_id,
                    metadata=new.metadata or {})
        customer = None
        if new.customer_id and fits(Customer, new.customer_id):
            customer = await Customer.get_or_none(id=new.customer_id, deleted_at=None)
        customer = customer or await guest_customer(new.email)
        cart.customer_id, cart.email = customer.id, customer.email
        if new.shipping_address is not None:
            await set_address(cart, "shipping", new.shipping_address)
        else:
            countries = await region_countries(region.id)
            if len(countries) == 1:
                await new_shipping_address(cart, countries[0])
        if new.billing_address is not None:
            await set_address(cart, "billing", new.billing_address)
        await cart.save()
        draft = await DraftOrder.create(
            display_id=display_id, cart_id=cart.id, status="open", no_notification_order=new.no_notification_order,
        )
        await add_lines(cart, new.items)
        await add_methods(cart, new.shipping_methods)
        if new.discounts:
            await apply_discounts(cart, new.discounts)
        await emit(ev.DRAFT_ORDER_CREATED, id=draft.id)
        return await _checked_draft(draft.id)


async def update_draft_order(draft_id: str, changes: DraftOrderChanges) -> DraftOrderView:
    """Change an open draft, all or nothing, in the order of Medusa's cart update: customer,
    region, addresses, shipping, discounts. `customer_id` wins over `email`; an email alone
    makes the draft a guest's order for that email. Medusa v1 cannot change a draft's shipping
    methods once it exists, so a draft moved to another region (whose change removes them)
    could never be shipped again: here `shipping_methods` replaces them."""
    async with atomic():
        draft, cart = await lock_draft(draft_id)
        _check_open(draft, cart)
        customer_changed = await _set_customer(cart, changes)
        region_changed = changes.region_id is not KEEP and changes.region_id != cart.region_id
        if region_changed:
            await _change_region(cart, changes)
        if changes.billing_address is not KEEP:
            await set_address(cart, "billing", changes.billing_address)
        if changes.shipping_address is not KEEP:
            await set_address(cart, "shipping", changes.shipping_address)
        elif changes.country_code not in (KEEP, None) and not region_changed:
            await set_address(cart, "shipping", {"country_code": changes.country_code})
        if changes.shipping_methods is not KEEP:
            await ShippingMethod.filter(cart_id=cart.id).delete()
            if changes.shipping_methods:
                await add_methods(cart, changes.shipping_methods)
            else:
                await reship(cart)  # the lines are no longer shipped
        if changes.discounts is not KEEP:
            await apply_discounts(cart, changes.discounts)
        elif customer_changed:  # the discount may depend on the customer's groups
            await refresh_adjustments(cart)
        await cart.save()
        if changes.no_notification_order is not KEEP:
            draft.no_notification_order = changes.no_notification_order
        await draft.save(update_fields=["no_notification_order", "updated_at"])  # changed, whatever changed
        if changes.no_notification_order is not KEEP:
            await emit(ev.DRAFT_ORDER_UPDATED, id=draft.id)  # Medusa emits it for this change only
        return await _checked_draft(draft_id)


async def delete_draft_order(draft_id: str) -> None:
    """Delete an open draft and retire its cart; a missing draft is not an error (Medusa's rule),
    a paid one is refused."""
    if not fits(DraftOrder, draft_id) or not await DraftOrder.exists(id=draft_id):
        return
    async with atomic():
        try:
            draft, cart = await lock_draft(draft_id)
        except NotFound:  # deleted meanwhile
            return
        if draft.status != "open":
            raise NotAllowed(f"Draft order {draft_id} was paid and belongs to its order {draft.order_id}; "
                             "it cannot be deleted")
        await draft.delete()
        if cart is not None and cart.completed_at is None:
            await Cart.filter(id=cart.id).update(deleted_at=datetime.now(timezone.utc))


# ---------------------------------------------------------------- line items

async def add_draft_line(draft_id: str, line: DraftLine) -> DraftOrderView:
    async with atomic():
        draft, cart = await lock_draft(draft_id)
        _check_open(draft, cart)
        await add_lines(cart, [line])
        await draft.save(update_fields=["updated_at"])
        return await _checked_draft(draft_id)


async def update_draft_line(draft_id: str, item_id: str, changes: LineChanges) -> DraftOrderView:
    async with atomic():
        draft, cart = await lock_draft(draft_id)
        _check_open(draft, cart)
        await change_line(cart, item_id, changes)
        await draft.save(update_fields=["updated_at"])
        return await _checked_draft(draft_id)


async def delete_draft_line(draft_id: str, item_id: str) -> DraftOrderView:
    async with atomic():
        draft, cart = await lock_draft(draft_id)
        _check_open(draft, cart)
        await remove_line(cart, item_id)
        await draft.save(update_fields=["updated_at"])
    return await get_draft_order(draft_id)


# ---------------------------------------------------------------- parts

async def _checked_draft(draft_id: str) -> DraftOrderView:
    """The draft as a change left it, read inside the change's transaction and its cart's amounts
    checked: a change whose amounts leave the range rolls back (no draft kept unreadable)."""
    view = await get_draft_order(draft_id)
    if view.cart is not None:
        check_amounts(view.cart)
    return view


async def lock_draft(draft_id: str) -> tuple[DraftOrder, Cart | None]:
    """The draft, read after its cart's row is locked (inside `atomic()`), and that cart. Every
    change and the payment take this lock, so the draft read here is the latest."""
    draft = await find_draft(draft_id)
    cart = None
    if draft.cart_id is not None:
        try:
            cart = await lock_cart(draft.cart_id, editable=False)
        except NotFound:
            cart = None
    return await find_draft(draft_id), cart


def _check_open(draft: DraftOrder, cart: Cart | None) -> None:
    if draft.status != "open" or cart is None or cart.completed_at is not None:
        raise NotAllowed(OPEN_ONLY)


async def _region(region_id: str) -> Region:
    region = await Region.get_or_none(id=region_id, deleted_at=None) if fits(Region, region_id) else None
    if region is None:
        raise NotFound(f"Region with {region_id} was not found")
    return region


async def _set_customer(cart: Cart, changes: DraftOrderChanges) -> bool:
    if changes.customer_id not in (KEEP, None):
        customer = None
        if fits(Customer, changes.customer_id):
            customer = await Customer.get_or_none(id=changes.customer_id, deleted_at=None)
        if customer is None:
            raise NotFound(f"Customer with id: {changes.customer_id} was not found")
    elif changes.email not in (KEEP, None):
        customer = await guest_customer(changes.email)
    else:
        return False
    changed = customer.id != cart.customer_id
    cart.customer_id, cart.email = customer.id, customer.email
    return changed


async def _change_region(cart: Cart, changes: DraftOrderChanges) -> None:
    """The shipping country follows the region; shipping methods (their options belong to the
    old region), payment sessions and gift cards go, and discounts not offered there."""
    cart.region = await _region(changes.region_id)
    shipping = changes.shipping_address if isinstance(changes.shipping_address, dict) else {}
    country = changes.country_code if changes.country_code is not KEEP else None
    await move_shipping_country(cart, country or shipping.get("country_code"), await region_countries(cart.region_id))
    await reprice_for_region(cart)
    await ShippingMethod.filter(cart_id=cart.id).delete()
    await PaymentSession.filter(cart_id=cart.id).delete()
    await cart.gift_cards.clear()
    await keep_discounts_of_region(cart)
    await reship(cart)
