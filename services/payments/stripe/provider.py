"""The `stripe` payment provider: a cart's session is a Stripe PaymentIntent, as with Medusa v1's
medusa-payment-stripe 6.x, so storefronts built for it (Stripe Elements reading `client_secret`)
work unchanged.

- initiate: a Stripe customer is made once per customer and kept in its `metadata.stripe_id`;
  the intent is for the cart's total, `capture_method` manual unless STRIPE_CAPTURE, with
  `metadata.resource_id` = the cart's id; the session's data is the intent.
- Besides cards (`stripe`), the plugin's providers for one European payment method each
  (METHOD_PROVIDERS, its services/stripe-*.ts): the intent names that one method in
  `payment_method_types` and captures at once (`capture_method` automatic, whatever
  STRIPE_CAPTURE says), as those methods pay in full when the shopper approves at their bank.
- authorize reads the intent's status and maps it as Medusa's getPaymentStatus does.
- capture, cancel and refund act on the intent. Unlike Medusa, each carries an Idempotency-Key
  made from our own operation (the intent for a capture or cancel, which happens once; the
  refund's key), so a retry never moves money twice at Stripe.
"""

from __future__ import annotations

from tortoise.expressions import Q

from models import Cart, Customer, PaymentSession, Region
from models.ids import new_id
from services.core.errors import InvalidData, NotAllowed, PaymentError
from services.payments.stripe.client import StripeApi

__all__ = ["StripeProvider", "session_status", "PROVIDER_ID", "METHOD_PROVIDERS", "PROVIDER_IDS"]

PROVIDER_ID = "stripe"
# Medusa's provider id -> the Stripe payment method type its intents allow.
METHOD_PROVIDERS = {
    "stripe-bancontact": "bancontact", "stripe-blik": "blik", "stripe-giropay": "giropay",
    "stripe-ideal": "ideal", "stripe-przelewy24": "p24",
}
PROVIDER_IDS = (PROVIDER_ID, *METHOD_PROVIDERS)

# Medusa's getPaymentStatus; anything else is pending.
_STATUSES = {
    "requires_payment_method": "pending", "requires_confirmation": "pending", "processing": "pending",
    "requires_action": "requires_more", "canceled": "canceled",
    "requires_capture": "authorized", "succeeded": "authorized",
}
# What the shopper may set on the intent through POST /store/carts/:id/payment-sessions/:provider
# (Medusa's updatePaymentData passes anything but the amount; the intent's customer, capture and
# metadata, which the webhook trusts, stay ours).
_UPDATABLE = ("payment_method", "description", "receipt_email", "setup_future_usage", "shipping")


def session_status(intent: dict) -> str:
    return _STATUSES.get(intent.get("status") or "", "pending")


class StripeProvider:
    def __init__(self, api: StripeApi, *, provider_id: str = PROVIDER_ID, capture: bool = False,
                 automatic_payment_methods: bool = False, payment_description: str | None = None,
                 webhook_secret: str | None = None):
        self.id = provider_id
        self.api = api
        self.webhook_secret = webhook_secret  # STRIPE_WEBHOOK_SECRET: what POST /stripe/hooks verifies against
        self.method_type = METHOD_PROVIDERS.get(provider_id)  # None: cards (`stripe`)
        self.capture_at_once = capture or self.method_type is not None
        self.automatic_payment_methods = automatic_payment_methods
        self.payment_description = payment_description

    async def initiate(self, amount: int, cart: Cart | None, *, idempotency_key: str | None = None) -> dict:
        if cart is None:
            raise NotAllowed("Stripe pays carts only, not payment collections")
        currency = (await Region.filter(id=cart.region_id).values_list("currency_code", flat=True))[0]
        key = idempotency_key or new_id("start")  # a caller without a key gets no deduplication
        params: dict = {
            "amount": amount, "currency": currency, "metadata": {"resource_id": cart.id},
            "capture_method": "automatic" if self.capture_at_once else "manual",
        }
        description = (cart.context or {}).get("payment_description") or self.payment_description
        if description:
            params["description"] = description
        if self.method_type:
            # Stripe refuses automatic_payment_methods beside payment_method_types (Medusa sends both).
            params["payment_method_types"] = [self.method_type]
        elif self.automatic_payment_methods:
            params["automatic_payment_methods"] = {"enabled": True}
        customer = await self._customer_of(cart, key)
        if customer:
            params["customer"] = customer
        return await self.api.create_intent(params, f"intent:{key}")

    async def update_amount(self, session: PaymentSession, amount: int, cart: Cart) -> dict:
        data = dict(session.data or {})
        if not data.get("id"):
            return await self.initiate(amount, cart, idempotency_key=f"{session.id}:{session.updated_at.isoformat()}")
        if data.get("amount") == amount:
            return data
        return await self.api.update_intent(data["id"], {"amount": amount})

    async def update(self, data: dict, changes: dict) -> dict:
        if "amount" in changes:
            raise InvalidData("Cannot update amount, use updatePayment instead")  # Medusa's words
        refused = sorted(k for k in changes if k not in _UPDATABLE)
        if refused:
            raise InvalidData(
                f"Stripe payment data cannot set {', '.join(refused)}; it may set {', '.join(_UPDATABLE)}")
        if not changes:
            return {}
        return await self.api.update_intent(_intent_id(data), dict(changes))

    async def authorize(self, session: PaymentSession) -> tuple[str, dict]:
        intent = await self.api.retrieve_intent(_intent_id(session.data))
        return session_status(intent), intent

    async def delete(self, session: PaymentSession) -> None:
        data = session.data or {}
        if data.get("id") and data.get("status") not in ("canceled", "succeeded"):
            await self.cancel(data)

    async def retrieve(self, session: PaymentSession) -> dict:
        return await self.api.retrieve_intent(_intent_id(session.data))

    async def capture(self, data: dict) -> dict:
        intent_id = _intent_id(data)
        return await self._settle(intent_id, self.api.capture_intent(intent_id, f"{intent_id}:capture"), "succeeded")

    async def cancel(self, data: dict) -> dict:
        intent_id = _intent_id(data)
        return await self._settle(intent_id, self.api.cancel_intent(intent_id, f"{intent_id}:cancel"), "canceled")

    async def _settle(self, intent_id: str, call, settled: str) -> dict:
        """The intent after `call`; a refusal of an intent already `settled` (captured at
        authorization with STRIPE_CAPTURE, or an answer lost on the way) is its settled state."""
        try:
            return await call
        except PaymentError:
            intent = await self.api.retrieve_intent(intent_id)
            if intent.get("status") == settled:
                return intent
            raise

    async def refund(self, data: dict, amount: int, idempotency_key: str) -> dict:
        await self.api.refund(_intent_id(data), amount, idempotency_key)
        return dict(data)  # the intent, as Medusa keeps it; the refund is Stripe's own object

    async def saved_methods(self, customer_id: str) -> list[dict]:
        if self.method_type:
            return []  # the customer's cards are listed once, by `stripe`
        metadata = (await Customer.filter(id=customer_id).values_list("metadata", flat=True) or [None])[0] or {}
        stripe_id = metadata.get("stripe_id")
        return await self.api.card_methods(stripe_id) if stripe_id else []

    async def _customer_of(self, cart: Cart, key: str) -> str | None:
        """The cart's customer at Stripe, made once and remembered in `metadata.stripe_id`."""
        if not cart.customer_id:
            return None
        customer = await Customer.get_or_none(id=cart.customer_id)
        if customer is None:
            return None
        known = (customer.metadata or {}).get("stripe_id")
        if known:
            return known
        # Keyed by our customer: two carts initiating at once make one Stripe customer.
        made = await self.api.create_customer(customer.email, f"customer:{customer.id}")
        metadata = {**(customer.metadata or {}), "stripe_id": made["id"]}
        await Customer.filter(Q(id=customer.id)).update(metadata=metadata)
        return made["id"]


def _intent_id(data: dict | None) -> str:
    intent_id = (data or {}).get("id")
    if not intent_id:
        raise NotAllowed("The Stripe payment has no PaymentIntent")
    return intent_id
