"""The tax-inclusive shop Medusa v1.20 made and answered for (tests/fixtures/medusa_inclusive),
built again here through our own admin API from the same specification (`answers.json`'s `shop`),
one region at a time, and its carts filled through our store API the way Medusa's were.

A region is built on its own (its currency's prices, its price-list prices, shipping options,
discounts and gift cards) so that what one region needs cannot stop another's comparison."""

from __future__ import annotations

import json
from pathlib import Path

from bench.medusa_v1.inclusive_shop import cart_steps

__all__ = ["ANSWERS", "SHOP", "CARTS", "build_region", "fill_cart", "differences", "order_differences",
           "CART_MONEY", "LINE_MONEY", "SHIPPING_MONEY"]

ANSWERS = json.loads((Path(__file__).resolve().parent / "fixtures/medusa_inclusive/answers.json").read_text())
SHOP = ANSWERS["shop"]
CARTS = ANSWERS["carts"]

CART_MONEY = ("subtotal", "discount_total", "shipping_total", "tax_total", "gift_card_total", "gift_card_tax_total",
              "item_tax_total", "shipping_tax_total", "total")
LINE_MONEY = ("unit_price", "quantity", "subtotal", "discount_total", "tax_total", "total", "original_total",
              "original_tax_total")
SHIPPING_MONEY = ("price", "subtotal", "tax_total", "total", "original_total", "original_tax_total")


async def _post(client, headers, path: str, body: dict | None = None) -> dict:
    r = await client.post(path, json=body, headers=headers)
    assert r.status_code == 200, f"POST {path} {body}: {r.status_code} {r.text}"
    return r.json()


def _flag(attrs: dict) -> dict:
    """`includes_tax` as Medusa was sent it; false is left out, as every price is tax-exclusive
    without it (our API, like Medusa's with the flag off, refuses the field)."""
    return {"includes_tax": True} if attrs.get("includes_tax") else {}


async def build_region(client, headers, region: str) -> dict[str, dict]:
    """The shop's `region` with what its carts use; our ids for the shop's keys (as answers' `ids`)."""
    spec = SHOP["regions"][region]
    currency = spec["currency_code"]
    ids: dict[str, dict] = {"regions": {}, "variants": {}, "shipping_options": {}, "discounts": {}, "gift_cards": {}}
    store = (await client.get("/admin/store", headers=headers)).json()["store"]
    if currency not in {c["code"] for c in store["currencies"]}:
        await _post(client, headers, f"/admin/store/currencies/{currency}")
    if SHOP["currencies"][currency]["includes_tax"]:
        await _post(client, headers, f"/admin/currencies/{currency}", {"includes_tax": True})
    body = {k: v for k, v in spec.items() if k != "includes_tax"}
    made = await _post(client, headers, "/admin/regions", {**body, **_flag(spec), "payment_providers": ["manual"],
                                                           "fulfillment_providers": ["manual"]})
    ids["regions"][region] = made["region"]["id"]
    products: dict[str, list] = {}
    for sku, variant in SHOP["variants"].items():
        products.setdefault(variant["product"], []).append((sku, variant))
    for title, variants in products.items():
        body = {"title": title, "status": "published", "options": [{"title": "Size"}], "variants": [
            {"title": v["title"], "sku": sku, "manage_inventory": False, "options": [{"value": v["title"]}],
             "prices": [{"region_id": ids["regions"][region], "amount": amount} if key == f"region:{region}"
                        else {"currency_code": key, "amount": amount}
                        for key, amount in v["prices"].items() if key in (currency, f"region:{region}")]}
            for sku, v in variants]}
        made = await _post(client, headers, "/admin/products", body)
        ids["variants"].update({v["sku"]: v["id"] for v in made["product"]["variants"]})
    for price_list in SHOP["price_lists"].values():
        prices = [{"variant_id": ids["variants"][p["sku"]], "currency_code": currency, "amount": p["amount"]}
                  for p in price_list["prices"] if p["currency_code"] == currency]
        if prices:
            body = {k: v for k, v in price_list.items() if k not in ("prices", "includes_tax")}
            await _post(client, headers, "/admin/price-lists", {**body, **_flag(price_list), "prices": prices})
    for key, option in SHOP["shipping_options"].items():
        if option["region"] == region:
            body = {"name": option["name"], "region_id": ids["regions"][region], "provider_id": "manual",
                    "data": {"id": "manual-fulfillment"}, "price_type": "flat_rate", "amount": option["amount"],
                    **_flag(option)}
            ids["shipping_options"][key] = (await _post(client, headers, "/admin/shipping-options", body))[
                "shipping_option"]["id"]
    for code, discount in SHOP["discounts"].items():
        if region in discount["regions"]:
            body = {"code": code, "rule": {**discount["rule"], "description": code}, "regions": [ids["regions"][region]]}
            ids["discounts"][code] = (await _post(client, headers, "/admin/discounts", body))["discount"]["id"]
    for key, card in SHOP["gift_cards"].items():
        if card["region"] == region:
            made = await _post(client, headers, "/admin/gift-cards", {"region_id": ids["regions"][region],
                                                                      "value": card["value"]})
            ids["gift_cards"][key] = {"id": made["gift_card"]["id"], "code": made["gift_card"]["code"]}
    return ids


async def fill_cart(client, ids: dict, spec: dict) -> str:
    """A cart of `spec` (as answers' `carts`) up to the point of completion, with the very requests
    Medusa's was filled with; its id."""
    cart = (await _post(client, None, "/store/carts", {"region_id": ids["regions"][spec["region"]]}))["cart"]
    for path, body in cart_steps(ids, spec):
        await _post(client, None, f"/store/carts/{cart['id']}{path}", body)
    return cart["id"]


def differences(medusa: dict, ours: dict) -> dict[str, tuple]:
    """Each money field of a cart or order that differs, by path: (Medusa's, ours). Lines are
    matched by SKU, shipping methods by option name."""
    found: dict[str, tuple] = {}

    def compare(path: str, theirs: dict, mine: dict | None, names) -> None:
        for name in names:
            if name in theirs and (mine or {}).get(name) != theirs[name]:
                found[f"{path}.{name}"] = (theirs[name], (mine or {}).get(name))

    compare("cart", medusa, ours, CART_MONEY)
    lines = {(i.get("variant") or {}).get("sku"): i for i in ours.get("items") or []}
    for item in medusa.get("items") or []:
        compare(f"items[{item['sku']}]", item, lines.get(item["sku"]), LINE_MONEY)
    methods = {(m.get("shipping_option") or {}).get("name"): m for m in ours.get("shipping_methods") or []}
    for method in medusa.get("shipping_methods") or []:
        compare(f"shipping[{method['shipping_option']}]", method, methods.get(method["shipping_option"]),
                SHIPPING_MONEY)
    return found


ORDER_MONEY = ("subtotal", "discount_total", "shipping_total", "tax_total", "gift_card_total", "gift_card_tax_total",
               "total", "paid_total", "refunded_total", "refundable_amount", "item_tax_total", "shipping_tax_total")
# What adds up lines, and so counts returned quantities differently here (see order_differences).
FROM_LINES = {"subtotal", "discount_total", "tax_total", "total", "item_tax_total", "original_total",
              "original_tax_total", "quantity"}
# relation -> the money of each of its rows
RELATED_MONEY = {"payments": ("amount", "amount_refunded"), "refunds": ("amount", "reason"),
                 "returns": ("refund_amount", "status"), "swaps": ("difference_due", "payment_status"),
                 "claims": ("refund_amount", "payment_status"), "gift_card_transactions": ("amount", "tax_rate")}


def order_differences(medusa: dict, ours: dict, same_ids: bool) -> dict[str, tuple]:
    """Each money field of an order (as `GET /admin/orders/{id}` answers it) that differs, by path:
    (Medusa's, ours); a missing field or row is None. With `same_ids` (a moved shop) rows are
    matched by id; otherwise lines by SKU, shipping methods by option name, other rows in order.

    One difference is ours by design (README, the move's money check): a line that came back
    counts net of what was returned here, while Medusa answers it, and the order's totals built
    from its lines, as ordered. On such a line only `refundable` and `unit_price` are compared, and
    on its order only the figures that do not add up lines (shipping, gift cards, paid, refunded,
    refundable)."""
    found: dict[str, tuple] = {}

    def compare(path: str, theirs: dict, mine: dict | None, names) -> None:
        for name in names:
            if name in theirs and (mine or {}).get(name) != theirs[name]:
                found[f"{path}.{name}"] = (theirs[name], (mine or {}).get(name))

    def returned(item: dict) -> bool:
        return bool(item.get("returned_quantity"))

    def key(relation: str, row: dict, mine: bool) -> str:
        if same_ids:
            return row["id"]
        if relation == "items":
            return (row.get("variant") or {}).get("sku") if mine else row["sku"]
        if relation == "shipping_methods":
            return (row.get("shipping_option") or {}).get("name") if mine else row["shipping_option"]
        return ""

    any_returned = any(returned(item) for item in medusa.get("items") or [])
    compare("order", medusa, ours, [n for n in ORDER_MONEY if not (any_returned and n in FROM_LINES)])
    for relation, names in {"items": LINE_MONEY + ("refundable",), "shipping_methods": SHIPPING_MONEY,
                            **RELATED_MONEY}.items():
        mine = ours.get(relation) or []
        by_key = {key(relation, row, True): row for row in mine}
        for n, row in enumerate(medusa.get(relation) or []):
            label = row.get("sku") or row.get("shipping_option") or row["id"]
            match = by_key.get(key(relation, row, False)) if relation in ("items", "shipping_methods") or same_ids \
                else (mine[n] if n < len(mine) else None)
            kept = [f for f in names if not (relation == "items" and returned(row) and f in FROM_LINES)]
            compare(f"{relation}[{label}]", row, match, kept)
    return found
