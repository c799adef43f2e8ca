"""Changing an order's contact details: its email, billing and shipping
addresses, metadata and `no_notification`.

Medusa v1 also takes `items`, `region`, `discounts`, `customer_id`, `payment_method` and
`shipping_method` here and writes them raw onto the order (QUIRK); those change what was sold
and belong to order edits, so they are refused like any unknown key. Unlike Medusa, an address
may be changed in part (the country is kept when not given), `no_notification: false` is kept,
and `metadata` is merged as everywhere else.
"""

from __future__ import annotations

from typing import Any

from models import Address, Order
from services.carts.addresses import ADDRESS_FIELDS, region_countries
from services.core.db import atomic
from services.core.errors import InvalidData
from services.core.metadata import merge_metadata
from services.orders.locks import lock_order
from services.orders.statuses import plan
from services.events.bus import emit
from services.events import names as ev

__all__ = ["update_order"]

SLOTS = ("billing_address", "shipping_address")


async def update_order(order_id: str, changes: dict[str, Any]) -> None:
    """`changes`: any of email, billing_address / shipping_address (fields to merge), metadata,
    no_notification. An address's country must be one of the order's region's."""
    async with atomic():
        order = await lock_order(order_id)
        plan(order, "update")
        for slot in SLOTS:
            if slot in changes and changes[slot] is not None:
                await _set_address(order, slot, changes[slot])
        if "email" in changes:
            order.email = changes["email"].strip()
        if "no_notification" in changes:
            order.no_notification = changes["no_notification"]
        if "metadata" in changes:
            order.metadata = merge_metadata(order.metadata, changes["metadata"])
        await order.save()
        await emit(ev.ORDER_UPDATED, id=order.id, no_notification=order.no_notification)


async def _set_address(order: Order, slot: str, value: dict[str, Any]) -> None:
    fields = {k: v for k, v in value.items() if k in ADDRESS_FIELDS}
    if fields.get("country_code") is not None:
        fields["country_code"] = fields["country_code"].strip().lower()
        if fields["country_code"] not in await region_countries(order.region_id):
            raise InvalidData(f"{'Shipping' if slot == 'shipping_address' else 'Billing'} country must be in the order region")
    address = await _writable(order, slot)
    address.update_from_dict(fields)
    if "metadata" in value:
        address.metadata = merge_metadata(address.metadata, value["metadata"])
    await address.save()
    setattr(order, f"{slot}_id", address.id)


async def _writable(order: Order, slot: str) -> Address:
    """The slot's address when the order alone uses it (its cart's, which is done with it); a new,
    unsaved copy when it is a customer's saved address or the other slot's too."""
    current_id = getattr(order, f"{slot}_id")
    other_id = getattr(order, f"{SLOTS[1] if slot == SLOTS[0] else SLOTS[0]}_id")
    current = await Address.get_or_none(id=current_id) if current_id else None
    if current is not None and current.customer_id is None and current.id != other_id:
        return current
    copied = {f: getattr(current, f) for f in ADDRESS_FIELDS} if current is not None else {}
    return Address(**copied, metadata=current.metadata if current is not None else None)
