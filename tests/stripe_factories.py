"""Factories for Stripe tests: a region offering `stripe`, a cart paying with it, an order placed
with a card confirmed at localstripe."""

from __future__ import annotations

from tests import stripe_fake
from tests.cart_factories import region_id
from tests.checkout_factories import complete, ready_cart

__all__ = ["offer_stripe", "stripe_cart", "paid_order", "intent_of"]


async def offer_stripe(client, admin_headers, region: str = "NA", provider_id: str = "stripe") -> dict:
    r = await client.post(f"/admin/regions/{await region_id(region)}/payment-providers",
                          json={"provider_id": provider_id}, headers=admin_headers)
    assert r.status_code == 200, r.text
    return r.json()["region"]


def intent_of(cart: dict, provider_id: str = "stripe") -> dict:
    """The data of the cart's stripe session: the PaymentIntent as the storefront sees it."""
    return next(s for s in cart["payment_sessions"] if s["provider_id"] == provider_id)["data"]


async def stripe_cart(client, admin_headers, headers: dict | None = None, *, region: str = "NA",
                      provider_id: str = "stripe", **changes) -> dict:
    """A cart ready to complete with its `stripe` session (or `provider_id`'s, one of the
    European methods') selected: the intent created."""
    await offer_stripe(client, admin_headers, region, provider_id)
    cart = await ready_cart(client, region, pay=False, **changes)
    if headers:  # the signed-in shopper's request makes the cart theirs
        r = await client.post(f"/store/carts/{cart['id']}", json={}, headers=headers)
        assert r.status_code == 200, r.text
    for path, body in (("payment-sessions", {}), ("payment-session", {"provider_id": provider_id})):
        r = await client.post(f"/store/carts/{cart['id']}/{path}", json=body, headers=headers or {})
        assert r.status_code == 200, r.text
    return r.json()["cart"]


async def paid_order(client, admin_headers, localstripe_url: str) -> dict:
    """An order placed by the storefront's flow: session, card confirmed at Stripe, completion."""
    cart = await stripe_cart(client, admin_headers)
    await stripe_fake.confirm_card(localstripe_url, intent_of(cart)["id"])
    r = await complete(client, cart)
    assert r.status_code == 200 and r.json()["type"] == "order", r.text
    return r.json()["data"]
