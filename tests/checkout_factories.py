"""Factories for checkout tests: a cart ready to complete, and completing it."""

from __future__ import annotations

import pytest

from models import PaymentProvider, Region
from services.payments import register, unregister
from services.payments.manual import ManualProvider
from tests.cart_factories import new_cart, ship, update_cart

__all__ = [
    "ADDRESS", "EU_ADDRESS", "ready_cart", "pay_with_manual", "pay_with", "complete", "GatewayProvider", "gateway", "paying_with",
]

ADDRESS = {"first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Boston",
           "country_code": "us", "postal_code": "02110"}
EU_ADDRESS = {**ADDRESS, "city": "Copenhagen", "country_code": "dk", "postal_code": "1050"}


async def ready_cart(client, region: str = "NA", items: dict[str, int] | None = None, *, pay: bool = True,
                     email: str = "jane@example.com", **changes) -> dict:
    """A cart with lines, an email, a shipping address, a shipping method and (with `pay`) the
    region's one provider (`manual`) selected."""
    cart = await new_cart(client, region, items or {"variant_cap_black": 1})
    address = EU_ADDRESS if region == "EU" else ADDRESS
    cart = await update_cart(client, cart, email=email, shipping_address=address, **changes)
    cart = await ship(client, cart, f"{region} Flat Rate")
    if pay:
        cart = await pay_with_manual(client, cart)
    return cart


async def pay_with_manual(client, cart: dict) -> dict:
    r = await client.post(f"/store/carts/{cart['id']}/payment-sessions", json={})
    assert r.status_code == 200, r.text
    r = await client.post(f"/store/carts/{cart['id']}/payment-session", json={"provider_id": "manual"})
    assert r.status_code == 200, r.text
    return r.json()["cart"]


async def pay_with(client, cart: dict, provider_id: str) -> dict:
    r = await client.post(f"/store/carts/{cart['id']}/payment-sessions", json={})
    assert r.status_code == 200, r.text
    r = await client.post(f"/store/carts/{cart['id']}/payment-session", json={"provider_id": provider_id})
    assert r.status_code == 200, r.text
    return r.json()["cart"]


class GatewayProvider(ManualProvider):
    """`manual` as a gateway would be: its authorization is committed on its own before placing
    (services/checkout/completion.py), so it can outlive a placing that fails or is refused."""
    id = "test-gateway"
    in_process = False


async def _offer_gateway() -> GatewayProvider:
    provider = GatewayProvider()
    register(provider)
    row, _ = await PaymentProvider.get_or_create(id=provider.id)
    for region in await Region.all():
        await region.payment_providers.add(row)
    return provider


@pytest.fixture
async def gateway(seeded):
    """GatewayProvider registered and offered in every region (import the fixture to use it)."""
    provider = await _offer_gateway()
    yield provider
    unregister(provider.id)


@pytest.fixture(params=["manual", GatewayProvider.id])
async def paying_with(request, seeded):
    """A test run once paying with `manual` (authorized in the placing's transaction) and once
    through GatewayProvider (authorized in a transaction of its own): the provider's id."""
    if request.param == "manual":
        yield "manual"
        return
    provider = await _offer_gateway()
    yield provider.id
    unregister(provider.id)


async def complete(client, cart: dict | str, key: str | None = None):
    cart_id = cart if isinstance(cart, str) else cart["id"]
    headers = {"Idempotency-Key": key} if key else {}
    return await client.post(f"/store/carts/{cart_id}/complete", headers=headers)
