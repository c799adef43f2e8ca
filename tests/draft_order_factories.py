"""Factories for draft-order tests: drafts made through the admin API in the demo store, and
registering their payment."""

from __future__ import annotations

from models import MoneyAmount, Product, ProductVariant, ShippingProfile
from tests.cart_factories import option_id, region_id

__all__ = ["ADDRESS", "EU_ADDRESS", "draft_body", "new_draft", "pay", "unpriced_variant", "OPEN_ONLY"]

ADDRESS = {"first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Boston",
           "country_code": "us", "postal_code": "02110"}
EU_ADDRESS = {**ADDRESS, "city": "Copenhagen", "country_code": "dk", "postal_code": "1050"}
OPEN_ONLY = "You are only allowed to update open draft orders"


async def draft_body(region: str = "NA", items: dict[str, int] | None = None, *, shipping: str | None = "default",
                     email: str = "phone@example.com", **body) -> dict:
    """A create body: `{variant_id: quantity}` lines, the region's flat rate (unless `shipping`
    names another option, or is None) and its address."""
    payload: dict = {
        "email": email, "region_id": await region_id(region),
        "items": [{"variant_id": v, "quantity": q} for v, q in (items if items is not None else {"variant_cap_black": 1}).items()],
        "shipping_methods": [],
        "shipping_address": EU_ADDRESS if region == "EU" else ADDRESS,
    }
    if shipping:
        name = f"{region} Flat Rate" if shipping == "default" else shipping
        payload["shipping_methods"] = [{"option_id": await option_id(name)}]
    payload.update(body)
    return payload


async def new_draft(client, headers: dict, region: str = "NA", items: dict[str, int] | None = None, **kw) -> dict:
    r = await client.post("/admin/draft-orders", json=await draft_body(region, items, **kw), headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["draft_order"]


async def pay(client, headers: dict, draft: dict | str):
    draft_id = draft if isinstance(draft, str) else draft["id"]
    return await client.post(f"/admin/draft-orders/{draft_id}/pay", headers=headers)


async def unpriced_variant(currency_code: str | None = None, amount: int = 5000) -> ProductVariant:
    """A variant of a new, unpublished product, priced only in `currency_code` (no price at all
    without one)."""
    product = await Product.create(title="Engraved pen", handle="engraved-pen", status="draft",
                                   profile=await ShippingProfile.get(type="default"))
    variant = await ProductVariant.create(title="Silver", product=product, inventory_quantity=5)
    if currency_code:
        await MoneyAmount.create(variant=variant, currency_code=currency_code, amount=amount)
    return variant
