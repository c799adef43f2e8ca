"""`python -m tests.stripe_fake PORT`: localstripe (the fake Stripe API the payment tests talk to)
on 127.0.0.1:PORT, with two changes for tests:

- Stripe's Idempotency-Key rule, which localstripe lacks: a POST that repeats a key gets the first
  answer again and changes nothing (https://docs.stripe.com/api/idempotent_requests), so a test
  can show that a retried refund refunds once;
- its store stays in memory (localstripe writes /tmp/localstripe.pickle after every write, which
  two test runs on one machine would share);
- the bank-redirect methods of Medusa's European providers (iDEAL, Bancontact, giropay, BLIK,
  Przelewy24), which localstripe lacks: a payment method of such a type, confirmed, asks for
  the shopper's approval at their bank (`requires_action`; `authenticate` below approves); an
  intent keeps its `payment_method_types` and, as Stripe, refuses a method of another type;
- disputes, which localstripe lacks: `GET /v1/disputes/{id}` as Stripe answers it, and
  `POST /_test/disputes` (charge, reason) standing in for a cardholder disputing a charge.

The helpers below do at the fake what Stripe.js (the shopper's browser) and Stripe's dashboard
would do."""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import time
import uuid

import httpx

API_KEY = "sk_test_commerce"
PUBLISHABLE_KEY = "pk_test_commerce"
WEBHOOK_SECRET = "whsec_commerce_test_secret"
THREE_D_SECURE_CARD = "4000002500003155"
DECLINED_CARD = "4000000000000341"  # attaches, then is declined when charged


def serve(port: int) -> None:
    from aiohttp import web
    from localstripe import server

    answered: dict[str, tuple[int, bytes]] = {}

    @web.middleware
    async def idempotent(request, handler):
        key = request.headers.get("Idempotency-Key")
        if request.method != "POST" or not key:
            return await handler(request)
        if key in answered:
            status, body = answered[key]
            return web.Response(status=status, body=body, content_type="application/json",
                                headers={"Idempotent-Replayed": "true"})
        response = await handler(request)
        if response.status < 500:
            answered[key] = (response.status, response.body)
        return response

    server.store.dump_to_disk = lambda: None
    server.app.middlewares.insert(0, idempotent)
    _bank_redirects()
    dispute = _dispute_resource()
    server.app.router.add_route("POST", "/_test/disputes", server.api_create(dispute, "/_test/disputes"))
    server.app.router.add_route("GET", "/v1/disputes/{id}", server.api_retrieve(dispute, "/v1/disputes/{id}"))
    web.run_app(server.app, host="127.0.0.1", port=port, print=None, access_log=None)


BANK_REDIRECTS = ("ideal", "bancontact", "giropay", "blik", "p24")


def _bank_redirects():
    from localstripe.errors import UserError
    from localstripe.resources import PaymentIntent, PaymentMethod, StripeObject

    make_method, needs_approval = PaymentMethod.__init__, PaymentMethod._requires_authentication
    make_intent, confirm = PaymentIntent.__init__, PaymentIntent._confirm

    def method(self, type=None, billing_details=None, metadata=None, **details):
        if type not in BANK_REDIRECTS:
            return make_method(self, type=type, billing_details=billing_details, metadata=metadata, **details)
        StripeObject.__init__(self)
        self.type, self.billing_details, self.metadata, self.customer = type, billing_details or {}, metadata or {}, None
        setattr(self, type, details.get(type) or {})

    def intent(self, *args, payment_method_types=None, **kwargs):
        make_intent(self, *args, **kwargs)
        self.payment_method_types = list(payment_method_types or ["card"])

    def confirming(self, on_failure_now):
        kind = PaymentMethod._api_retrieve(self.payment_method).type
        if kind not in self.payment_method_types:
            raise UserError(400, f"The PaymentMethod provided ({kind}) is not allowed for this PaymentIntent")
        return confirm(self, on_failure_now)

    PaymentMethod.__init__ = method
    PaymentMethod._requires_authentication = lambda self: self.type in BANK_REDIRECTS or needs_approval(self)
    PaymentIntent.__init__, PaymentIntent._confirm = intent, confirming


def _dispute_resource():
    from localstripe.resources import Charge, StripeObject

    class Dispute(StripeObject):
        object = "dispute"
        _id_prefix = "dp_"

        def __init__(self, charge=None, reason="general", **kwargs):
            disputed = Charge._api_retrieve(charge)  # a 404 for a charge Stripe does not know
            super().__init__()
            self.charge, self.payment_intent = disputed.id, disputed.payment_intent
            self.amount, self.currency = disputed.amount, disputed.currency
            self.reason, self.status, self.metadata = reason, "needs_response", {}

    return Dispute


# ---------------------------------------------------------------- at the fake, as Stripe.js would


def _auth() -> dict:
    return {"Authorization": f"Bearer {API_KEY}"}


async def confirm_card(base: str, intent_id: str, payment_method: str = "pm_card_visa") -> dict:
    """The shopper's card given to the intent and confirmed (Stripe.js confirmCardPayment)."""
    async with httpx.AsyncClient(base_url=base, headers=_auth()) as http:
        r = await http.post(f"/v1/payment_intents/{intent_id}", data={"payment_method": payment_method})
        assert r.status_code == 200, r.text
        r = await http.post(f"/v1/payment_intents/{intent_id}/confirm")
        assert r.status_code == 200, r.text
        return r.json()


async def confirm_at_bank(base: str, intent_id: str, kind: str) -> dict:
    """The shopper picks a bank-redirect method (`ideal` …) and confirms (Stripe.js
    confirmIdealPayment and the like): the intent then waits for their approval at the bank."""
    async with httpx.AsyncClient(base_url=base, headers=_auth()) as http:
        r = await http.post("/v1/payment_methods", data={"type": kind})
        assert r.status_code == 200, r.text
        return await confirm_card(base, intent_id, r.json()["id"])


async def card(base: str, number: str) -> str:
    """A card payment method (as Stripe Elements makes one); its id."""
    async with httpx.AsyncClient(base_url=base, headers=_auth()) as http:
        r = await http.post("/v1/payment_methods", data={
            "type": "card", "card[number]": number, "card[exp_month]": "12", "card[exp_year]": "2030",
            "card[cvc]": "123",
        })
        assert r.status_code == 200, r.text
        return r.json()["id"]


async def declined_intent(base: str, metadata: dict) -> dict:
    """An intent whose card was declined at confirmation (Stripe then sends
    payment_intent.payment_failed), as Stripe has it afterwards."""
    method = await card(base, DECLINED_CARD)
    async with httpx.AsyncClient(base_url=base, headers=_auth()) as http:
        r = await http.post("/v1/payment_intents", data={
            "amount": "1000", "currency": "eur", "payment_method": method,
            **{f"metadata[{k}]": v for k, v in metadata.items()}})
        assert r.status_code == 200, r.text
        intent_id = r.json()["id"]
        r = await http.post(f"/v1/payment_intents/{intent_id}/confirm")
        assert r.status_code == 402, r.text
    return await get(base, f"/v1/payment_intents/{intent_id}")


async def authenticate(base: str, intent: dict, success: bool = True) -> dict:
    """The shopper passes (or fails) the 3-D Secure challenge."""
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post(f"/v1/payment_intents/{intent['id']}/_authenticate", data={
            "client_secret": intent["client_secret"], "success": "true" if success else "false",
            "key": PUBLISHABLE_KEY,
        })
        assert r.status_code == 200, r.text
        return r.json()


async def get(base: str, path: str, **params) -> dict:
    async with httpx.AsyncClient(base_url=base, headers=_auth()) as http:
        r = await http.get(path, params=params)
        assert r.status_code == 200, r.text
        return r.json()


async def post(base: str, path: str, **data) -> dict:
    async with httpx.AsyncClient(base_url=base, headers=_auth()) as http:
        r = await http.post(path, data=data)
        assert r.status_code == 200, r.text
        return r.json() if r.content else {}


async def dispute(base: str, charge_id: str, reason: str = "fraudulent") -> dict:
    """The cardholder disputes the charge (their bank opens a dispute at Stripe)."""
    return await post(base, "/_test/disputes", charge=charge_id, reason=reason)


def signed(event: dict, secret: str = WEBHOOK_SECRET, timestamp: int | None = None,
           extra_signatures: tuple[str, ...] = ()) -> tuple[bytes, dict]:
    """The body and headers Stripe sends an event with (Stripe-Signature: t=…,v1=…)."""
    body = json.dumps(event).encode()
    t = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    header = ",".join([f"t={t}", *(f"v1={s}" for s in extra_signatures), f"v1={mac}"])
    return body, {"Stripe-Signature": header, "Content-Type": "application/json; charset=utf-8"}


def event(kind: str, obj: dict, event_id: str | None = None) -> dict:
    """A Stripe event of `kind` about `obj` (a new event id unless given)."""
    return {"id": event_id or f"evt_{uuid.uuid4().hex[:24]}", "object": "event", "type": kind,
            "created": int(time.time()), "data": {"object": obj}, "livemode": False, "api_version": "2022-11-15"}


if __name__ == "__main__":
    serve(int(sys.argv[1]))
