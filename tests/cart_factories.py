"""Factories for cart tests: the demo store's regions, carts made through the API, discounts,
gift cards, shoppers with an account, and shipping options."""

from __future__ import annotations

from models import (
    Customer, FulfillmentProvider, MoneyAmount, PaymentProvider, Region, ShippingOption, ShippingOptionRequirement,
    ShippingProfile,
)
from services.discounts.discounts import RuleInput, create_discount
from services.gift_cards.gift_cards import create_gift_card
from services.core.passwords import hash_password

__all__ = [
    "region_id", "new_cart", "add_item", "ship", "update_cart", "discount", "gift_card", "shopper", "shipping_option",
    "option_id", "line", "manual_tax_region", "region_price", "CART_COLUMNS", "TOTAL_KEYS",
]

CART_COLUMNS = {
    "id", "email", "billing_address_id", "shipping_address_id", "region_id", "customer_id", "payment_id", "type",
    "completed_at", "payment_authorized_at", "idempotency_key", "context", "metadata", "sales_channel_id",
    "created_at", "updated_at", "deleted_at",
}
TOTAL_KEYS = {
    "subtotal", "discount_total", "item_tax_total", "shipping_total", "shipping_tax_total", "tax_total",
    "gift_card_total", "gift_card_tax_total", "total",
}


async def region_id(name: str) -> str:
    """The id of a region of the demo store ("NA": usd, no tax; "EU": eur, 25 %)."""
    return (await Region.get(name=name)).id


async def new_cart(client, region: str = "NA", items: dict[str, int] | None = None, **body) -> dict:
    """A cart made through the API in a demo region, with `{variant_id: quantity}` lines."""
    payload = {"region_id": await region_id(region), **body}
    if items:
        payload["items"] = [{"variant_id": v, "quantity": q} for v, q in items.items()]
    r = await client.post("/store/carts", json=payload)
    assert r.status_code == 200, r.text
    return r.json()["cart"]


async def add_item(client, cart: dict, variant_id: str, quantity: int = 1, **body) -> dict:
    r = await client.post(f"/store/carts/{cart['id']}/line-items",
                          json={"variant_id": variant_id, "quantity": quantity, **body})
    assert r.status_code == 200, r.text
    return r.json()["cart"]


async def ship(client, cart: dict, option: str = "NA Flat Rate") -> dict:
    """The cart shipped with the demo option of that name."""
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": await option_id(option)})
    assert r.status_code == 200, r.text
    return r.json()["cart"]


async def update_cart(client, cart: dict, **body) -> dict:
    r = await client.post(f"/store/carts/{cart['id']}", json=body)
    assert r.status_code == 200, r.text
    return r.json()["cart"]


def line(cart: dict, variant_id: str) -> dict:
    return next(i for i in cart["items"] if i["variant_id"] == variant_id)


async def discount(code: str, kind: str = "percentage", value: int = 10, allocation: str = "total",
                   regions: tuple[str, ...] = ("NA", "EU"), **changes):
    return await create_discount(
        code=code,
        rule=RuleInput(type=kind, value=value, allocation=allocation, conditions=changes.pop("conditions", [])),
        regions=[await region_id(r) for r in regions], **changes,
    )


async def gift_card(value: int, region: str = "NA", **changes):
    return await create_gift_card(await region_id(region), value, **changes)


async def shopper(client, email: str = "jane@example.com", password: str = "jane-secret") -> tuple[Customer, dict]:
    """A customer with an account, and the headers of their signed-in requests."""
    customer = await Customer.create(email=email, has_account=True, password_hash=hash_password(password),
                                     first_name="Jane", last_name="Doe")
    r = await client.post("/store/auth/token", json={"email": email, "password": password})
    return customer, {"Authorization": f"Bearer {r.json()['access_token']}"}


async def option_id(name: str) -> str:
    return (await ShippingOption.get(name=name)).id


async def shipping_option(name: str, region: str = "NA", amount: int | None = 500, *, profile: str = "default",
                          requirements: dict[str, int] | None = None, price_type: str = "flat_rate",
                          **columns) -> ShippingOption:
    option = await ShippingOption.create(
        name=name, region_id=await region_id(region), provider_id="manual", price_type=price_type, amount=amount,
        profile_id=(await ShippingProfile.get(type=profile)).id, **columns,
    )
    for kind, limit in (requirements or {}).items():
        await ShippingOptionRequirement.create(shipping_option_id=option.id, type=kind, amount=limit)
    return option


async def manual_tax_region(name: str = "Manual", tax_rate: float = 12) -> Region:
    """A usd region whose taxes are not automatic, paying
    and shipping with `manual`."""
    region = await Region.create(name=name, currency_code="usd", tax_rate=tax_rate, automatic_taxes=False)
    await region.payment_providers.add(await PaymentProvider.get(id="manual"))
    await region.fulfillment_providers.add(await FulfillmentProvider.get(id="manual"))
    return region


async def region_price(variant_id: str, region: str, amount: int) -> MoneyAmount:
    """A price of the variant in the region of that name (it wins over a higher currency price)."""
    found = await Region.get(name=region)
    return await MoneyAmount.create(variant_id=variant_id, region_id=found.id, currency_code=found.currency_code,
                                    amount=amount)
