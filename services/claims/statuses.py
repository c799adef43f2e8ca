"""A claim's states as a table: what each operation refuses and
where it leaves the claim. Its fulfillment status is derived from its replacement items'
counters, as the order's is (services/orders/statuses.py)."""

from __future__ import annotations

from models import ClaimOrder
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.orders.line_counts import settle_fulfillment_status

__all__ = ["CLAIM_REFUSALS", "check_claim", "order_claim", "settle_claim_status"]

# Per operation, the refusal of a canceled claim (Medusa v1's texts).
CLAIM_REFUSALS = {
    "update": "Canceled claim cannot be updated",
    "fulfil": "Canceled claim cannot be fulfilled",
    "ship": "Canceled claim cannot be fulfilled as shipped",
    "cancel_fulfillment": "Canceled claim cannot be fulfilled",
}


def check_claim(claim: ClaimOrder, operation: str) -> None:
    if claim.canceled_at is not None and operation in CLAIM_REFUSALS:
        raise NotAllowed(CLAIM_REFUSALS[operation])


async def order_claim(order_id: str, claim_id: str) -> ClaimOrder:
    """The order's live claim with that id: Medusa's 404s for an unknown one and another's."""
    claim = await ClaimOrder.get_or_none(id=claim_id, deleted_at=None) if fits(ClaimOrder, claim_id) else None
    if claim is None:
        raise NotFound(f"Claim with {claim_id} was not found")
    if claim.order_id != order_id:
        raise NotFound(f"no claim was found with the id: {claim_id} related to order: {order_id}")
    return claim


async def settle_claim_status(claim: ClaimOrder) -> str:
    return await settle_fulfillment_status(claim, "claim_order_id")
