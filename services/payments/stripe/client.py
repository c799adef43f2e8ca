"""The Stripe API as the provider calls it: the official library's async client (over httpx),
Stripe's errors turned into domain errors that name Stripe's message, and the Idempotency-Key
each call that moves money carries.

One client per event loop: httpx's connection pool belongs to the loop that opened it, and the
web server and embedded workers run on different loops. The library is imported on first use:
a process without STRIPE_API_KEY (a worker booting) does not pay for it."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from services.core.errors import DomainError, GatewayUnavailable, PaymentError

__all__ = ["StripeApi", "as_dict"]

TIMEOUT_SECONDS = 30.0


def as_dict(obj: Any) -> dict:
    """A Stripe object as the plain JSON it came as (what a session's data stores)."""
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)


class StripeApi:
    def __init__(self, api_key: str, api_base: str | None = None):
        self._api_key = api_key
        self._base = {"api": api_base.rstrip("/")} if api_base else {}
        self._clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _v1(self):
        import stripe

        loop = asyncio.get_running_loop()
        held = self._clients.get(loop)
        if held is None:
            http = stripe.HTTPXClient(timeout=TIMEOUT_SECONDS)
            # One network retry: a POST retried carries the same key (ours, or one the library makes).
            client = stripe.StripeClient(self._api_key, base_addresses=self._base, max_network_retries=1,
                                         http_client=http)
            held = self._clients[loop] = (client, http)
        return held[0].v1

    async def close(self) -> None:
        """Close this loop's connections (a process's clients otherwise live as long as it)."""
        held = self._clients.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await held[1].close_async()

    async def create_customer(self, email: str | None, key: str) -> dict:
        params = {"email": email} if email else {}
        return await self._call(self._v1().customers.create_async, params, {"idempotency_key": key})

    async def create_intent(self, params: dict, key: str) -> dict:
        return await self._call(self._v1().payment_intents.create_async, params, {"idempotency_key": key})

    async def update_intent(self, intent_id: str, params: dict) -> dict:
        return await self._call(self._v1().payment_intents.update_async, intent_id, params)

    async def retrieve_intent(self, intent_id: str) -> dict:
        return await self._call(self._v1().payment_intents.retrieve_async, intent_id)

    async def retrieve_charge(self, charge_id: str) -> dict:
        return await self._call(self._v1().charges.retrieve_async, charge_id)

    async def find(self, kind: str, object_id: str) -> dict | None:
        """The `kind` object (payment_intent, charge, dispute) as Stripe has it now; None when
        Stripe knows no such object under this key (a 404)."""
        import stripe

        v1 = self._v1()
        resource = {"payment_intent": v1.payment_intents, "charge": v1.charges, "dispute": v1.disputes}[kind]
        try:
            return as_dict(await resource.retrieve_async(object_id))
        except stripe.StripeError as e:
            if e.http_status == 404:
                return None
            raise refusal(e) from e

    async def capture_intent(self, intent_id: str, key: str) -> dict:
        return await self._call(self._v1().payment_intents.capture_async, intent_id, {}, {"idempotency_key": key})

    async def cancel_intent(self, intent_id: str, key: str) -> dict:
        return await self._call(self._v1().payment_intents.cancel_async, intent_id, {}, {"idempotency_key": key})

    async def refund(self, intent_id: str, amount: int, key: str) -> dict:
        params = {"payment_intent": intent_id, "amount": amount, "metadata": {"idempotency_key": key[:500]}}
        return await self._call(self._v1().refunds.create_async, params, {"idempotency_key": key})

    async def card_methods(self, customer: str) -> list[dict]:
        page = await self._call(self._v1().payment_methods.list_async, {"customer": customer, "type": "card"})
        return list(page.get("data") or [])

    async def _call(self, method, *args) -> dict:
        import stripe

        try:
            return as_dict(await method(*args))
        except stripe.StripeError as e:
            raise refusal(e) from e


def refusal(error) -> DomainError:
    """A stripe.StripeError as a domain error naming Stripe's message: a refusal (4xx) the client
    can act on, or the gateway away (5xx, no connection, rate limited) as a 502."""
    import stripe

    message = error.user_message or str(error) or type(error).__name__
    status = error.http_status
    if status is None or status >= 500 or status == 429 or isinstance(error, stripe.APIConnectionError):
        return GatewayUnavailable(f"Stripe did not answer: {message}", code="payment_gateway_unavailable")
    return PaymentError(f"Stripe refused the request: {message}", code=error.code or None)
