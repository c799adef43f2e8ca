"""Making a claim: the claimed lines with their reasons, notes, photos
and tags; for a `replace` claim the replacement lines (priced, taxed, their stock taken) and how
they ship; for a `refund` claim the money given back at once; and, when the items come back, a
return of them.

One transaction holding the order's row lock, refund included: a claim exists with its refund,
or not at all (Medusa commits the claim first and may leave it `not_refunded`). Unlike Medusa v1:
replacements take stock by the checkout's conditional UPDATE and are refused when it is short,
a claim's return gives no second refund when it is received (the claim settles the money), and
a claimed quantity below one is refused.
"""

from __future__ import annotations

from collections import Counter

from models import Address, ClaimImage, ClaimItem, ClaimOrder, ClaimTag, LineItem, Return, ShippingMethod
from models.claim import CLAIM_REASONS, CLAIM_TYPES
from services.orders.placement import InsufficientInventory, reserve_inventory
from services.orders.after_sale_lines import priced_line
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.inventory.order_stock import reserve_lines
from services.orders.locks import lock_order
from services.orders.refunds import refund_order
from services.orders.shipping_methods import method_for
from services.orders.view import load_order_view
from services.returns.amounts import items_refund
from services.returns.requests import request_return
from services.events import names as ev
from services.events.bus import emit

__all__ = ["create_claim", "claim_tags", "ship_with"]

ADDRESS_FIELDS = (
    "first_name", "last_name", "phone", "company", "address_1", "address_2", "city", "country_code", "province",
    "postal_code", "metadata",
)


def _check_input(data: dict) -> None:
    if data["type"] not in CLAIM_TYPES:
        raise InvalidData('Claim type must be one of "refund" or "replace".')
    if not data.get("claim_items"):
        raise InvalidData("Claims must have at least one claim item.")
    if data["type"] == "replace" and not data.get("additional_items"):
        raise InvalidData('Claims with type "replace" must have at least one additional item.')
    if data["type"] == "replace" and data.get("refund_amount"):
        raise InvalidData('Claim has type "replace" but must be type "refund" to have a refund_amount.')
    seen = set()
    for item in data["claim_items"]:
        if item.get("reason") not in CLAIM_REASONS:
            raise InvalidData(
                'Claim Item reason must be one of "missing_item", "wrong_item", "production_failure" or "other".')
        if item["quantity"] < 1:
            raise InvalidData("quantity must not be less than 1")
        if item["item_id"] in seen:
            raise InvalidData(f"Item {item['item_id']} is given more than once")
        seen.add(item["item_id"])
    for extra in data.get("additional_items") or []:
        if extra["quantity"] < 1:
            raise InvalidData("quantity must not be less than 1")


async def create_claim(order_id: str, data: dict, *, idempotency_key: str | None = None) -> ClaimOrder:
    _check_input(data)
    async with atomic():
        order = await lock_order(order_id)
        if order.status == "canceled":
            raise InvalidData("Cannot create a claim on a canceled item.")
        view = await load_order_view(order.id)
        lines = {i.id: i for i in view.items}
        claimed = await _claimed(order.id)
        for item in data["claim_items"]:
            line = lines.get(item["item_id"])
            if line is None:
                raise NotFound(f"Line item with {item['item_id']} was not found")
            if line.variant_id is None:
                raise NotAllowed("Cannot claim a custom line item")
            if (line.fulfilled_quantity or 0) < claimed[line.id] + item["quantity"]:
                raise NotAllowed("Cannot claim more of an item than has been fulfilled.")
        amount = None
        if data["type"] == "refund":
            amount = data.get("refund_amount")
            if amount is None:
                shipped = {i["item_id"]: i["quantity"] for i in data["claim_items"]
                           if (lines[i["item_id"]].shipped_quantity or 0) >= i["quantity"]}
                amount = items_refund(view, shipped)
        claim = await ClaimOrder.create(
            order_id=order.id, type=data["type"], refund_amount=amount, idempotency_key=idempotency_key,
            payment_status="not_refunded" if data["type"] == "refund" else "na",
            shipping_address_id=await _address(order, data.get("shipping_address")),
            no_notification=order.no_notification if data.get("no_notification") is None else data["no_notification"],
            metadata=data.get("metadata") or {},
        )
        for item in data["claim_items"]:
            await _claim_item(claim, lines[item["item_id"]], item)
        replacements = [await priced_line(order, extra["variant_id"], extra["quantity"], claim_order_id=claim.id)
                        for extra in data.get("additional_items") or []]
        if short := await reserve_lines(replacements, order.sales_channel_id):
            raise InsufficientInventory(short)
        await reserve_inventory(replacements)
        for method in data.get("shipping_methods") or []:
            await ship_with(order, claim, method)
        if data.get("return_shipping") is not None:
            await _take_back(order, claim, data)
        if claim.type == "refund":
            if amount:
                await refund_order(order.id, amount, "claim", no_notification=claim.no_notification,
                                   idempotency_key=f"claim:{claim.id}")
            await ClaimOrder.filter(id=claim.id).update(payment_status="refunded")
        await emit(ev.CLAIM_CREATED, id=claim.id, no_notification=claim.no_notification)
        if claim.type == "refund":
            await emit(ev.CLAIM_REFUND_PROCESSED, id=claim.id, no_notification=claim.no_notification)
    return claim


async def _claimed(order_id: str) -> Counter[str]:
    """Units of each line already claimed by the order's live claims: a unit is claimed once, so
    it is never refunded or replaced twice (Medusa checks each claim alone)."""
    live = ClaimOrder.filter(order_id=order_id, canceled_at=None, deleted_at=None).values_list("id", flat=True)
    claimed: Counter[str] = Counter()
    for item_id, quantity in await ClaimItem.filter(claim_order_id__in=await live, deleted_at=None).values_list(
        "item_id", "quantity",
    ):
        claimed[item_id] += quantity
    return claimed


async def _address(order, given: dict | None) -> str | None:
    if not given:
        return order.shipping_address_id
    address = await Address.create(**{k: v for k, v in given.items() if k in ADDRESS_FIELDS})
    return address.id


async def _claim_item(claim: ClaimOrder, line: LineItem, item: dict) -> None:
    row = await ClaimItem.create(
        claim_order_id=claim.id, item_id=line.id, variant_id=line.variant_id, reason=item["reason"],
        note=item.get("note"), quantity=item["quantity"], metadata=item.get("metadata") or {},
    )
    await ClaimImage.bulk_create([ClaimImage(claim_item_id=row.id, url=url) for url in item.get("images") or []])
    tags = await claim_tags(item.get("tags") or [])
    if tags:
        await row.tags.add(*tags)


async def claim_tags(values: list[str]) -> list[ClaimTag]:
    """The tags of these values, trimmed and in lower case, each once: found, or made."""
    tags = []
    for value in dict.fromkeys(v.strip().lower() for v in values if v and v.strip()):
        tags.append(await ClaimTag.get_or_none(value=value, deleted_at=None) or await ClaimTag.create(value=value))
    return tags


async def ship_with(order, claim: ClaimOrder, method: dict) -> None:
    """An order's shipping method given by `id` now ships the claim too; else a new one."""
    if method.get("id"):
        attached = await ShippingMethod.filter(id=method["id"], order_id=order.id).update(claim_order_id=claim.id)
        if not attached:
            raise NotFound(f"Shipping method with id {method['id']} was not found")
        return
    if not method.get("option_id"):
        raise InvalidData("A shipping method needs an id or an option_id")
    await method_for(order, method["option_id"], method.get("price"), method.get("data"), claim_order_id=claim.id)


async def _take_back(order, claim: ClaimOrder, data: dict) -> None:
    """The claimed items' return: no refund of its own, the claim settles the money."""
    shipping = data["return_shipping"]
    ret = await request_return(
        order.id, [{"item_id": i["item_id"], "quantity": i["quantity"], "note": i.get("note")} for i in data["claim_items"]],
        return_shipping=shipping if shipping.get("option_id") else None, refund=0,
        no_notification=claim.no_notification, location_id=data.get("return_location_id"), announce=False,
    )
    await Return.filter(id=ret.id).update(claim_order_id=claim.id)
