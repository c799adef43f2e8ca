"""Changing a claim: its metadata (merged), `no_notification`, the
shipping methods its replacements go with, and each claimed item's note, reason, metadata, tags
(replaced: an existing tag by id, else by its trimmed lower-case value, else a new one) and
photos (those not listed are removed, listed ids kept, entries without an id added).

Unlike Medusa v1: a reason outside Medusa's four is a 400 (Medusa answers 500), and a claimed
item of another claim is refused.
"""

from __future__ import annotations

from models import ClaimImage, ClaimItem, ClaimOrder, ClaimTag, ShippingMethod
from models.claim import CLAIM_REASONS
from services.claims.creation import claim_tags, ship_with
from services.claims.statuses import check_claim, order_claim
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.orders.locks import lock_order, stamped
from services.events import names as ev
from services.events.bus import emit

__all__ = ["update_claim"]


async def update_claim(order_id: str, claim_id: str, changes: dict) -> None:
    async with atomic():
        order = await lock_order(order_id)
        claim = await order_claim(order_id, claim_id)
        check_claim(claim, "update")
        columns: dict = {}
        if changes.get("metadata") is not None:
            columns["metadata"] = {**(claim.metadata or {}), **changes["metadata"]}
        if changes.get("no_notification") is not None:
            columns["no_notification"] = changes["no_notification"]
        if columns:
            await ClaimOrder.filter(id=claim.id).update(**stamped(**columns))
        if changes.get("shipping_methods") is not None:
            await ShippingMethod.filter(claim_order_id=claim.id).update(claim_order_id=None)
            for method in changes["shipping_methods"]:
                await ship_with(order, claim, method)
        for item in changes.get("claim_items") or []:
            await _update_item(claim, item)
        await emit(ev.CLAIM_UPDATED, id=claim.id, no_notification=columns.get("no_notification", claim.no_notification))


async def _update_item(claim: ClaimOrder, change: dict) -> None:
    item = await ClaimItem.get_or_none(id=change["id"], claim_order_id=claim.id, deleted_at=None)
    if item is None:
        raise NotFound(f"Claim item with id {change['id']} was not found")
    columns: dict = {}
    if change.get("note"):
        columns["note"] = change["note"]
    if change.get("reason"):
        if change["reason"] not in CLAIM_REASONS:
            raise InvalidData(
                'Claim Item reason must be one of "missing_item", "wrong_item", "production_failure" or "other".')
        columns["reason"] = change["reason"]
    if change.get("metadata") is not None:
        columns["metadata"] = {**(item.metadata or {}), **change["metadata"]}
    if columns:
        await ClaimItem.filter(id=item.id).update(**stamped(**columns))
    tags = await _tags(change.get("tags") or [])
    await item.tags.clear()
    if tags:
        await item.tags.add(*tags)
    kept = [i["id"] for i in change.get("images") or [] if i.get("id")]
    await ClaimImage.filter(claim_item_id=item.id, deleted_at=None).exclude(id__in=kept).update(deleted_at=clock.now())
    await ClaimImage.bulk_create([ClaimImage(claim_item_id=item.id, url=i["url"])
                                  for i in change.get("images") or [] if not i.get("id") and i.get("url")])


async def _tags(given: list[dict]) -> list[ClaimTag]:
    by_id = [t["id"] for t in given if t.get("id")]
    found = list(await ClaimTag.filter(id__in=by_id, deleted_at=None)) if by_id else []
    if len(found) != len(set(by_id)):
        raise NotFound("A claim tag given by id was not found")
    return found + await claim_tags([t["value"] for t in given if not t.get("id") and t.get("value")])
