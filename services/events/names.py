"""The event names this shop emits: Medusa v1.20's strings, one
source for the emitters, the subscribers and the webhook API's check of the names it is given.
Payloads are Medusa's thin keys (`id`, `*_id`, `no_notification`); none carries a secret (Medusa's
`customer.created` carries the password hash; ours carries the id)."""

from __future__ import annotations

__all__ = ["EVENT_NAMES", "INTERNAL_EVENT_NAMES", "is_known"]

ORDER_PLACED = "order.placed"
ORDER_UPDATED = "order.updated"
ORDER_CANCELED = "order.canceled"
ORDER_COMPLETED = "order.completed"
ORDER_PAYMENT_CAPTURED = "order.payment_captured"
ORDER_PAYMENT_CAPTURE_FAILED = "order.payment_capture_failed"
ORDER_FULFILLMENT_CREATED = "order.fulfillment_created"
ORDER_FULFILLMENT_CANCELED = "order.fulfillment_canceled"
ORDER_SHIPMENT_CREATED = "order.shipment_created"
ORDER_REFUND_CREATED = "order.refund_created"
ORDER_RETURN_REQUESTED = "order.return_requested"
ORDER_ITEMS_RETURNED = "order.items_returned"
ORDER_RETURN_ACTION_REQUIRED = "order.return_action_required"
SWAP_CREATED = "swap.created"
SWAP_RECEIVED = "swap.received"
SWAP_FULFILLMENT_CREATED = "swap.fulfillment_created"
SWAP_SHIPMENT_CREATED = "swap.shipment_created"
SWAP_PAYMENT_COMPLETED = "swap.payment_completed"
SWAP_PAYMENT_CAPTURED = "swap.payment_captured"
SWAP_PAYMENT_CAPTURE_FAILED = "swap.payment_capture_failed"
SWAP_REFUND_PROCESSED = "swap.refund_processed"
SWAP_PROCESS_REFUND_FAILED = "swap.process_refund_failed"
CLAIM_CREATED = "claim.created"
CLAIM_UPDATED = "claim.updated"
CLAIM_CANCELED = "claim.canceled"
CLAIM_FULFILLMENT_CREATED = "claim.fulfillment_created"
CLAIM_SHIPMENT_CREATED = "claim.shipment_created"
CLAIM_REFUND_PROCESSED = "claim.refund_processed"
CUSTOMER_CREATED = "customer.created"
CUSTOMER_UPDATED = "customer.updated"
CUSTOMER_PASSWORD_RESET = "customer.password_reset"
USER_CREATED = "user.created"
USER_UPDATED = "user.updated"
USER_DELETED = "user.deleted"
USER_PASSWORD_RESET = "user.password_reset"
INVITE_CREATED = "invite.created"
GIFT_CARD_CREATED = "gift_card.created"
DRAFT_ORDER_CREATED = "draft_order.created"
DRAFT_ORDER_UPDATED = "draft_order.updated"
ORDER_EDIT_CREATED = "order-edit.created"
ORDER_EDIT_UPDATED = "order-edit.updated"
ORDER_EDIT_REQUESTED = "order-edit.requested"
ORDER_EDIT_DECLINED = "order-edit.declined"
ORDER_EDIT_CANCELED = "order-edit.canceled"
ORDER_EDIT_CONFIRMED = "order-edit.confirmed"
BATCH_CREATED = "batch.created"
BATCH_UPDATED = "batch.updated"
BATCH_CONFIRMED = "batch.confirmed"
BATCH_COMPLETED = "batch.completed"
BATCH_CANCELED = "batch.canceled"
BATCH_FAILED = "batch.failed"
PRODUCT_CREATED = "product.created"
PRODUCT_UPDATED = "product.updated"
PRODUCT_DELETED = "product.deleted"

# What a payment gateway said that the areas above payments act on (services/payments/stripe/
# handling.py records it; checkout completes the cart, orders records the refund). Medusa emits
# none of them: they are not in EVENT_NAMES, so webhooks neither offer nor send them, and a
# subscriber to every event ("*") does not hear them.
GATEWAY_PAYMENT_READY = "gateway.payment_ready"  # a cart's payment authorized or taken at the gateway
GATEWAY_REFUND_MADE = "gateway.refund_made"  # money refunded at the gateway itself (its dashboard)
INTERNAL_EVENT_NAMES = frozenset({GATEWAY_PAYMENT_READY, GATEWAY_REFUND_MADE})

EVENT_NAMES = frozenset(
    v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str) and "." in v
) - INTERNAL_EVENT_NAMES


def is_known(name: str) -> bool:
    return name in EVENT_NAMES
