"""A merchant sets up a new market from the dashboard's settings pages, over HTTP only, and a
shopper buys there: an end-to-end story (store currencies, a region with countries,
a shipping option for it, a tax rate, return reasons, a sales channel with a publishable key,
and a colleague invited to the team)."""

from models import ProductVariant
from tests.cart_factories import region_price


async def admin_post(client, headers, path: str, body: dict | None = None) -> dict:
    r = await client.post(path, json=body or {}, headers=headers)
    assert r.status_code == 200, (path, r.text)
    return r.json()


async def admin_get(client, headers, path: str) -> dict:
    r = await client.get(path, headers=headers)
    assert r.status_code == 200, (path, r.text)
    return r.json()


async def test_a_merchant_opens_a_market_and_a_shopper_is_taxed_and_shipped_by_its_settings(
    client, admin_headers, seeded,
):
    # Given the demo store, which sells in usd and eur
    # When the merchant adds the Swedish krona and a Nordics region for Sweden and Norway
    store = (await admin_post(client, admin_headers, "/admin/store/currencies/sek"))["store"]
    assert "sek" in {c["code"] for c in store["currencies"]}
    region = (await admin_post(client, admin_headers, "/admin/regions", {
        "name": "Nordics", "currency_code": "sek", "tax_rate": 25, "countries": ["se", "NO"],
        "payment_providers": ["manual"], "fulfillment_providers": ["manual"],
    }))["region"]
    assert {c["iso_2"] for c in region["countries"]} == {"se", "no"}

    # ... a flat-rate shipping option from the options the region's provider offers
    options = (await admin_get(client, admin_headers, f"/admin/regions/{region['id']}/fulfillment-options"))
    manual = next(o for o in options["fulfillment_options"] if o["provider_id"] == "manual")
    outbound = next(o for o in manual["options"] if not o.get("is_return"))
    profiles = (await admin_get(client, admin_headers, "/admin/shipping-profiles"))["shipping_profiles"]
    default_profile = next(p for p in profiles if p["type"] == "default")
    option = (await admin_post(client, admin_headers, "/admin/shipping-options", {
        "name": "Posten", "region_id": region["id"], "provider_id": "manual", "profile_id": default_profile["id"],
        "data": outbound, "price_type": "flat_rate", "amount": 4900,
    }))["shipping_option"]

    # ... a reduced tax rate for the T-shirt
    variant = await ProductVariant.get(sku="T-SHIRT-M").prefetch_related("product")
    await region_price(variant.id, "Nordics", 20000)
    rate = (await admin_post(client, admin_headers, "/admin/tax-rates", {
        "code": "reduced", "name": "Reduced", "region_id": region["id"], "rate": 6, "products": [variant.product.id],
    }))["tax_rate"]
    assert rate["rate"] == 6

    # ... and the reasons a Nordic shopper may give for a return
    parent = (await admin_post(client, admin_headers, "/admin/return-reasons",
                               {"value": "fit", "label": "Fit"}))["return_reason"]
    await admin_post(client, admin_headers, "/admin/return-reasons",
                     {"value": "too_small", "label": "Too small", "parent_return_reason_id": parent["id"]})

    # Then a shopper in Sweden gets the region's price, its shipping option and the product's rate
    r = await client.post("/store/carts", json={"region_id": region["id"], "country_code": "se",
                                                "items": [{"variant_id": variant.id, "quantity": 1}]})
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert cart["items"][0]["unit_price"] == 20000
    r = await client.get(f"/store/shipping-options/{cart['id']}")
    assert [o["name"] for o in r.json()["shipping_options"]] == ["Posten"]
    r = await client.post(f"/store/carts/{cart['id']}/shipping-methods", json={"option_id": option["id"]})
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert cart["shipping_total"] == 4900
    assert cart["item_tax_total"] == 1200  # 6 % of 200.00 kr, not the region's 25 %
    assert cart["shipping_tax_total"] == 1225  # the region's 25 % on shipping
    r = await client.get("/store/return-reasons")
    fit = next(reason for reason in r.json()["return_reasons"] if reason["value"] == "fit")
    assert [child["value"] for child in fit["return_reason_children"]] == ["too_small"]

    # And the merchant's lists show what was made
    regions = (await admin_get(client, admin_headers, "/admin/regions"))["regions"]
    assert "Nordics" in {r["name"] for r in regions}
    rates = (await admin_get(client, admin_headers, f"/admin/tax-rates?region_id={region['id']}"))["tax_rates"]
    assert [r["code"] for r in rates] == ["reduced"]
