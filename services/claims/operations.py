"""A claim after it is made: its replacements fulfilled and shipped
with the order operations' mechanics (services/orders/fulfilments.py, shipments.py), a claim
fulfillment called back, and the claim canceled. Each runs in one transaction holding the
order's row lock.

Unlike Medusa v1: canceling a replace claim gives its replacements' stock back (once: the cancel
is a conditional UPDATE), and a fulfillment or shipment of another claim is refused.
"""

from __future__ import annotations

from models import ClaimOrder, Fulfillment, Return
from services.claims.statuses import check_claim, order_claim, settle_claim_status
from services.core import clock
from services.core.db import atomic
from services.core.errors import NotAllowed
from services.orders.after_sale_lines import fulfil_new_lines, restock_new_lines
from services.orders.fulfilments import call_back, owned_fulfillment
from services.orders.locks import lock_order, stamped
from services.orders.shipments import send_off
from services.events import names as ev
from services.events.bus import emit

__all__ = ["fulfil_claim", "ship_claim", "cancel_claim_fulfillment", "cancel_claim"]


async def fulfil_claim(order_id: str, claim_id: str, *, no_notification: bool | None = None,
                       location_id: str | None = None, metadata: dict | None = None) -> None:
    """Fulfil every replacement not yet fulfilled."""
    async with atomic():
        await lock_order(order_id)
        claim = await order_claim(order_id, claim_id)
        check_claim(claim, "fulfil")
        if claim.type != "replace":
            raise NotAllowed(f'Claims with the type "{claim.type}" can not be fulfilled.')
        await fulfil_new_lines(
            "claim_order_id", claim, settle_claim_status, ev.CLAIM_FULFILLMENT_CREATED,
            done="The claim has already been fulfilled.",
            no_method="Cannot fulfill a claim without a shipping method.",
            no_notification=no_notification, location_id=location_id, metadata=metadata,
        )


async def ship_claim(
    order_id: str, claim_id: str, fulfillment_id: str, tracking_numbers: list[str] | None = None,
) -> None:
    async with atomic():
        await lock_order(order_id)
        claim = await order_claim(order_id, claim_id)
        check_claim(claim, "ship")
        fulfillment = await owned_fulfillment("claim_order_id", claim.id, fulfillment_id, "claim")
        await send_off(fulfillment, tracking_numbers, None)
        await settle_claim_status(claim)
        await emit(ev.CLAIM_SHIPMENT_CREATED, id=claim.id, fulfillment_id=fulfillment.id,
                   no_notification=claim.no_notification)


async def cancel_claim_fulfillment(order_id: str, claim_id: str, fulfillment_id: str) -> None:
    async with atomic():
        await lock_order(order_id)
        claim = await order_claim(order_id, claim_id)
        fulfillment = await owned_fulfillment("claim_order_id", claim.id, fulfillment_id, "claim")
        if fulfillment.canceled_at is None and await call_back(fulfillment):
            await settle_claim_status(claim)


async def cancel_claim(order_id: str, claim_id: str) -> None:
    """Cancel a claim with no refund, no live fulfillment and no live return; a canceled one
    stays as it is."""
    async with atomic():
        await lock_order(order_id)
        claim = await order_claim(order_id, claim_id)
        if claim.canceled_at is not None:
            return
        if claim.refund_amount:
            raise NotAllowed("Claim with a refund cannot be canceled")
        if await Fulfillment.filter(claim_order_id=claim.id, canceled_at=None).exists():
            raise NotAllowed("All fulfillments must be canceled before the claim can be canceled")
        if await Return.filter(claim_order_id=claim.id).exclude(status="canceled").exists():
            raise NotAllowed("Return must be canceled before the claim can be canceled")
        canceled = await ClaimOrder.filter(id=claim.id, canceled_at=None).update(
            **stamped(canceled_at=clock.now(), fulfillment_status="canceled"))
        if canceled:
            await restock_new_lines(claim_order_id=claim.id)
            await emit(ev.CLAIM_CANCELED, id=claim.id, no_notification=claim.no_notification)
