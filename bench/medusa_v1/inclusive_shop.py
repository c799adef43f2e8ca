"""Builds a small tax-inclusive shop in a running Medusa v1.20.11 through its own admin and store
API only, works carts and orders through it, and records Medusa's answers (not a test).

    MEDUSA_PORT=9101 MEDUSA_DB=medusaref_incl REDIS_URL=redis://127.0.0.1:6379/8 \\
      MEDUSA_FF_TAX_INCLUSIVE_PRICING=true SEED=bench/medusa_v1/inclusive-seed.json \\
      bench/medusa_v1/setup.sh                   # fresh Medusa with tax-inclusive pricing on
    .venv/bin/python -m bench.medusa_v1.inclusive_shop --url http://127.0.0.1:9101 \\
      --db postgres://postgres@127.0.0.1:5432/medusaref_incl --out tests/fixtures/medusa_inclusive

Writes `answers.json` (the shop as specified in SHOP, Medusa's ids for it, each cart's totals
before completion and what completion charged, each order as `GET /admin/orders/{id}` answers
after the work on it, the storefront's variant prices per region and per cart, the shipping
options' prices) and `medusa-inclusive.sql.gz` (`pg_dump`, plain SQL, no owners) beside it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

import httpx

# The shop, in the terms of Medusa's admin API. Amounts in minor units; a region or price list
# with `includes_tax` holds prices with their tax in them (Medusa's tax_inclusive_pricing flag).
SHOP = {
    "currencies": {"gbp": {"includes_tax": True}, "eur": {"includes_tax": False}, "usd": {"includes_tax": False}},
    "regions": {
        "uk": {"name": "UK", "currency_code": "gbp", "tax_rate": 20, "includes_tax": True, "countries": ["gb"]},
        "eu": {"name": "EU", "currency_code": "eur", "tax_rate": 21, "includes_tax": False, "countries": ["de", "nl"]},
        "us": {"name": "US", "currency_code": "usd", "tax_rate": 8, "includes_tax": False, "countries": ["us"]},
    },
    # sku -> product title, variant title, prices by currency (and by region key, "region:uk")
    "variants": {
        "TEE-S": {"product": "Tee", "title": "S", "prices": {"gbp": 1999, "eur": 2500, "usd": 2200}},
        "TEE-M": {"product": "Tee", "title": "M", "prices": {"gbp": 1999, "eur": 2500, "usd": 2200}},
        "MUG": {"product": "Mug", "title": "One size", "prices": {"gbp": 1250, "eur": 1390, "usd": 1500}},
        "CAP": {"product": "Cap", "title": "One size", "prices": {"gbp": 999, "eur": 1195, "usd": 1000}},
        "POSTER": {"product": "Poster", "title": "A2",
                   "prices": {"region:uk": 1333, "gbp": 1400, "eur": 777, "usd": 650}},
    },
    "price_lists": {
        "sale": {"name": "Sale, tax included", "description": "Sale prices with their tax in them", "type": "sale", "status": "active", "includes_tax": True,
                 "prices": [{"sku": "TEE-S", "currency_code": "gbp", "amount": 1499},
                            {"sku": "MUG", "currency_code": "eur", "amount": 1190}]},
    },
    "shipping_options": {
        "uk-standard": {"name": "UK Standard", "region": "uk", "amount": 499, "includes_tax": True},
        "uk-express": {"name": "UK Express", "region": "uk", "amount": 999, "includes_tax": False},
        "eu-standard": {"name": "EU Standard", "region": "eu", "amount": 800, "includes_tax": False},
        "eu-inclusive": {"name": "EU Inclusive", "region": "eu", "amount": 1210, "includes_tax": True},
        "us-ground": {"name": "US Ground", "region": "us", "amount": 1000, "includes_tax": False},
    },
    "discounts": {
        "FIXEDUK": {"rule": {"type": "fixed", "value": 500, "allocation": "total"}, "regions": ["uk"]},
        "FIXEDEU": {"rule": {"type": "fixed", "value": 500, "allocation": "total"}, "regions": ["eu"]},
        "FIXEDUS": {"rule": {"type": "fixed", "value": 500, "allocation": "total"}, "regions": ["us"]},
        "PCT12": {"rule": {"type": "percentage", "value": 12, "allocation": "total"}, "regions": ["uk", "eu", "us"]},
        "FREESHIP": {"rule": {"type": "free_shipping", "value": 0, "allocation": "total"}, "regions": ["uk", "eu", "us"]},
    },
    "gift_cards": {"uk": {"region": "uk", "value": 1000}, "uk-2": {"region": "uk", "value": 1000}, "eu": {"region": "eu", "value": 1500},
                   "us": {"region": "us", "value": 1200}},
}

LINES = {"TEE-S": 1, "MUG": 2, "POSTER": 1}  # three lines, one on the price list
ADDRESS = {"uk": "gb", "eu": "de", "us": "us"}
FIXED = {"uk": "FIXEDUK", "eu": "FIXEDEU", "us": "FIXEDUS"}
STANDARD = {"uk": "uk-standard", "eu": "eu-standard", "us": "us-ground"}


def carts_to_place() -> list[dict]:
    """Every region with and without each discount and with a gift card, and the other way to ship."""
    carts = []
    for region in SHOP["regions"]:
        base = {"region": region, "lines": LINES, "shipping": STANDARD[region]}
        carts += [
            {**base, "name": f"{region}-plain"},
            {**base, "name": f"{region}-fixed", "discount": FIXED[region]},
            {**base, "name": f"{region}-pct", "discount": "PCT12"},
            {**base, "name": f"{region}-freeship", "discount": "FREESHIP"},
            {**base, "name": f"{region}-giftcard", "gift_card": region},
        ]
    carts += [
        {"region": "uk", "lines": LINES, "shipping": "uk-express", "name": "uk-express"},
        {"region": "eu", "lines": LINES, "shipping": "eu-inclusive", "name": "eu-inclusive-shipping"},
        {"region": "uk", "lines": {"CAP": 1, "MUG": 1, "TEE-M": 1}, "shipping": "uk-standard",
         "discount": FIXED["uk"], "gift_card": "uk-2", "name": "uk-fixed-giftcard"},
    ]
    return carts


# What of Medusa's answers is kept: the money, and what says which thing it is.
TOTALS = ("subtotal", "discount_total", "shipping_total", "tax_total", "gift_card_total", "gift_card_tax_total",
          "item_tax_total", "shipping_tax_total", "raw_discount_total", "total", "paid_total", "refunded_total",
          "refundable_amount", "original_total", "original_tax_total", "refundable", "unit_price", "quantity",
          "includes_tax", "price", "amount", "fulfilled_quantity", "returned_quantity", "shipped_quantity",
          "difference_due", "refund_amount", "amount_refunded", "tax_rate", "status", "payment_status",
          "fulfillment_status", "type", "id", "display_id", "currency_code", "variant_id", "code", "rate",
          "is_return", "is_giftcard", "title", "reason", "order_id", "cart_id", "swap_id", "claim_order_id")
RELATIONS = ("items", "shipping_methods", "payments", "refunds", "returns", "swaps", "claims", "discounts",
             "gift_cards", "gift_card_transactions", "tax_lines", "adjustments", "additional_items",
             "claim_items", "return_items", "edits", "shipping_option", "region")


def keep(answer):
    if isinstance(answer, list):
        return [keep(x) for x in answer]
    if not isinstance(answer, dict):
        return answer
    kept = {k: answer[k] for k in TOTALS if k in answer}
    kept.update({k: keep(answer[k]) for k in RELATIONS if answer.get(k) is not None})
    if isinstance(answer.get("variant"), dict):
        kept["sku"] = answer["variant"].get("sku")
    if isinstance(answer.get("shipping_option"), dict):
        kept["shipping_option"] = answer["shipping_option"]["name"]
    if isinstance(answer.get("region"), dict):
        kept["region"] = answer["region"]["name"]
    return kept


class Medusa:
    def __init__(self, url: str):
        self.http = httpx.Client(base_url=url, timeout=120)
        token = self.call("POST", "/admin/auth/token", {"email": "admin@test.com", "password": "supersecret"})
        self.admin = {"Authorization": f"Bearer {token['access_token']}"}

    def call(self, method: str, path: str, body: dict | None = None, admin: bool = False, **params) -> dict:
        r = self.http.request(method, path, json=body, params=params or None,
                              headers=self.admin if admin else None)
        if r.status_code >= 400:
            raise RuntimeError(f"{method} {path} {body}: {r.status_code} {r.text[:600]}")
        return r.json() if r.content else {}

    def a(self, method: str, path: str, body: dict | None = None, **params) -> dict:
        return self.call(method, path, body, admin=True, **params)


def build(m: Medusa) -> dict:
    """The shop of SHOP, made through the admin API; Medusa's ids for each of its keys."""
    ids: dict[str, dict] = {"regions": {}, "variants": {}, "shipping_options": {}, "discounts": {},
                            "gift_cards": {}, "price_lists": {}}
    for code, attrs in SHOP["currencies"].items():
        m.a("POST", f"/admin/currencies/{code}", attrs)
    for key, region in SHOP["regions"].items():
        made = m.a("POST", "/admin/regions", {**region, "payment_providers": ["manual"],
                                              "fulfillment_providers": ["manual"]})["region"]
        ids["regions"][key] = made["id"]
    products: dict[str, list] = {}
    for sku, v in SHOP["variants"].items():
        products.setdefault(v["product"], []).append((sku, v))
    for title, variants in products.items():
        body = {"title": title, "status": "published", "options": [{"title": "Size"}], "variants": [
            {"title": v["title"], "sku": sku, "manage_inventory": False, "options": [{"value": v["title"]}],
             "prices": [{"region_id": ids["regions"][c.split(":")[1]], "amount": amount} if c.startswith("region:")
                        else {"currency_code": c, "amount": amount} for c, amount in v["prices"].items()]}
            for sku, v in variants]}
        made = m.a("POST", "/admin/products", body)["product"]
        ids["variants"].update({v["sku"]: v["id"] for v in made["variants"]})
    for key, pl in SHOP["price_lists"].items():
        prices = [{"variant_id": ids["variants"][p["sku"]], "currency_code": p["currency_code"], "amount": p["amount"]}
                  for p in pl["prices"]]
        ids["price_lists"][key] = m.a("POST", "/admin/price-lists", {**pl, "prices": prices})["price_list"]["id"]
    for key, so in SHOP["shipping_options"].items():
        body = {"name": so["name"], "region_id": ids["regions"][so["region"]], "provider_id": "manual",
                "data": {"id": "manual-fulfillment"}, "price_type": "flat_rate", "amount": so["amount"],
                "includes_tax": so["includes_tax"]}
        ids["shipping_options"][key] = m.a("POST", "/admin/shipping-options", body)["shipping_option"]["id"]
    for code, d in SHOP["discounts"].items():
        body = {"code": code, "rule": {**d["rule"], "description": code},
                "regions": [ids["regions"][r] for r in d["regions"]]}
        ids["discounts"][code] = m.a("POST", "/admin/discounts", body)["discount"]["id"]
    for key, gc in SHOP["gift_cards"].items():
        made = m.a("POST", "/admin/gift-cards", {"region_id": ids["regions"][gc["region"]], "value": gc["value"]})
        ids["gift_cards"][key] = {"id": made["gift_card"]["id"], "code": made["gift_card"]["code"]}
    return ids


def cart_steps(ids: dict, spec: dict) -> list[tuple[str, dict | None]]:
    """What fills a cart of `spec` once it is made, up to completion: each POST's path under
    `/store/carts/{id}` and its body. `ids` are the store's own for the shop's keys (as `build`'s)."""
    steps: list[tuple[str, dict | None]] = [
        ("/line-items", {"variant_id": ids["variants"][sku], "quantity": quantity})
        for sku, quantity in spec["lines"].items()]
    address = {"first_name": "Ada", "last_name": "Shopper", "address_1": "1 High Street", "city": "Town",
               "postal_code": "AB1 2CD", "country_code": ADDRESS[spec["region"]]}
    body = {"email": f"{spec['name']}@example.com", "shipping_address": address}
    if spec.get("discount"):
        body["discounts"] = [{"code": spec["discount"]}]
    if spec.get("gift_card"):
        body["gift_cards"] = [{"code": ids["gift_cards"][spec["gift_card"]]["code"]}]
    return steps + [("", body), ("/shipping-methods", {"option_id": ids["shipping_options"][spec["shipping"]]}),
                    ("/payment-sessions", None), ("/payment-session", {"provider_id": "manual"})]


def fill_cart(m: Medusa, ids: dict, spec: dict) -> str:
    """A cart of `spec` up to the point of completion; its id."""
    cart = m.call("POST", "/store/carts", {"region_id": ids["regions"][spec["region"]]})["cart"]
    for path, body in cart_steps(ids, spec):
        m.call("POST", f"/store/carts/{cart['id']}{path}", body)
    return cart["id"]


def place(m: Medusa, ids: dict, spec: dict) -> dict:
    cart_id = fill_cart(m, ids, spec)
    cart = m.call("GET", f"/store/carts/{cart_id}")["cart"]
    done = m.call("POST", f"/store/carts/{cart_id}/complete")
    if done.get("type") != "order":
        raise RuntimeError(f"cart {spec['name']} did not complete: {json.dumps(done)[:600]}")
    order = done["data"]
    placed = {k: order[k] for k in TOTALS if k in order and not isinstance(order[k], (dict, list))}
    return {**spec, "cart": keep(cart), "order_id": order["id"], "placed": placed,
            "charged": sum(p["amount"] for p in order["payments"])}


def storefront(m: Medusa, ids: dict, carts: list[dict]) -> dict:
    """Each variant's prices as the storefront shows them in each region, and for one open cart each."""
    fields = ("original_price", "calculated_price", "original_price_incl_tax", "calculated_price_incl_tax",
              "original_tax", "calculated_tax", "calculated_price_type", "tax_rates")
    shown = {}

    def variants(**params):
        products = m.call("GET", "/store/products", limit=50, **params)["products"]
        return {v["sku"]: {f: v.get(f) for f in fields} for p in products for v in p["variants"]}

    for key, region_id in ids["regions"].items():
        shown[f"region:{key}"] = variants(region_id=region_id)
    for region in SHOP["regions"]:
        spec = {"region": region, "lines": {"CAP": 1}, "shipping": STANDARD[region], "name": f"{region}-open"}
        cart_id = fill_cart(m, ids, spec)
        shown[f"cart:{region}"] = variants(cart_id=cart_id)
        options = m.call("GET", f"/store/shipping-options/{cart_id}")["shipping_options"]
        shown[f"shipping:{region}"] = {o["name"]: {k: o.get(k) for k in ("amount", "price_incl_tax", "includes_tax")}
                                      for o in options}
    return shown


def work_orders(m: Medusa, ids: dict, placed: dict[str, dict]) -> dict[str, str]:
    """Fulfilments, returns with refunds, a swap, a claim, an order edit, on a few placed orders;
    what was done to which."""
    done = {}

    def order(name):
        return m.a("GET", f"/admin/orders/{placed[name]['order_id']}")["order"]

    def fulfil(name):
        o = order(name)
        m.a("POST", f"/admin/orders/{o['id']}/capture")
        o = m.a("POST", f"/admin/orders/{o['id']}/fulfillment",
                {"items": [{"item_id": i["id"], "quantity": i["quantity"]} for i in o["items"]]})["order"]
        m.a("POST", f"/admin/orders/{o['id']}/shipment", {"fulfillment_id": o["fulfillments"][0]["id"]})
        return order(name)

    def item(o, sku):
        return next(i for i in o["items"] if i["variant"]["sku"] == sku)

    def receive(return_id, items):
        m.a("POST", f"/admin/returns/{return_id}/receive", {"items": items})

    for name in ("uk-plain", "eu-plain", "us-plain", "uk-fixed"):
        o = fulfil(name)
        items = [{"item_id": item(o, "MUG")["id"], "quantity": 1}]
        o = m.a("POST", f"/admin/orders/{o['id']}/return", {"items": items})["order"]
        receive(o["returns"][0]["id"], items)
        done[name] = "captured, fulfilled, shipped, one mug returned, received and refunded"
    for name in ("uk-pct", "us-fixed"):
        o = fulfil(name)
        items = [{"item_id": item(o, "POSTER")["id"], "quantity": 1}]
        # the new item ships free (a custom price of 0 on the region's standard option): Medusa
        # completes an exchange without shipping, a store may rightly refuse to
        option = ids["shipping_options"][STANDARD[placed[name]["region"]]]
        o = m.a("POST", f"/admin/orders/{o['id']}/swaps",
                {"return_items": items, "additional_items": [{"variant_id": ids["variants"]["CAP"], "quantity": 1}],
                 "custom_shipping_options": [{"option_id": option, "price": 0}]})["order"]
        swap = m.a("GET", f"/admin/swaps/{o['swaps'][0]['id']}")["swap"]
        cart_id = swap["cart_id"]
        m.call("POST", f"/store/carts/{cart_id}/shipping-methods", {"option_id": option})
        if m.call("POST", f"/store/carts/{cart_id}/payment-sessions")["cart"]["total"] > 0:
            m.call("POST", f"/store/carts/{cart_id}/payment-session", {"provider_id": "manual"})
        m.call("POST", f"/store/carts/{cart_id}/complete")
        m.a("POST", f"/admin/orders/{o['id']}/swaps/{swap['id']}/process-payment")
        receive(swap["return_order"]["id"], items)
        done[name] = ("captured, fulfilled, shipped, poster exchanged for a cap shipped free (cart completed, "
                      "difference settled, return received)")
    for name in ("uk-freeship", "eu-fixed"):
        o = fulfil(name)
        m.a("POST", f"/admin/orders/{o['id']}/claims",
            {"type": "refund", "claim_items": [{"item_id": item(o, "TEE-S")["id"], "quantity": 1,
                                                "reason": "production_failure"}]})
        done[name] = "captured, fulfilled, shipped, tee claimed for a refund"
    for name in ("uk-giftcard", "us-pct"):
        o = order(name)
        m.a("POST", f"/admin/orders/{o['id']}/capture")
        edit = m.a("POST", "/admin/order-edits", {"order_id": o["id"]})["order_edit"]
        m.a("POST", f"/admin/order-edits/{edit['id']}/items", {"variant_id": ids["variants"]["CAP"], "quantity": 1})
        m.a("POST", f"/admin/order-edits/{edit['id']}/request")
        m.a("POST", f"/admin/order-edits/{edit['id']}/confirm")
        done[name] = "captured, edited: a cap added (the difference left unpaid)"
    return done


def drafts(m: Medusa, ids: dict) -> dict[str, dict]:
    """A draft order per inclusive and exclusive region, paid (which makes it an order)."""
    made = {}
    for region in ("uk", "us"):
        body = {"email": f"draft-{region}@example.com", "region_id": ids["regions"][region],
                "items": [{"variant_id": ids["variants"][sku], "quantity": q} for sku, q in LINES.items()],
                "shipping_methods": [{"option_id": ids["shipping_options"][STANDARD[region]]}],
                "shipping_address": {"first_name": "Dee", "last_name": "Raft", "address_1": "2 Low Road",
                                     "city": "Town", "postal_code": "1", "country_code": ADDRESS[region]}}
        draft = m.a("POST", "/admin/draft-orders", body)["draft_order"]
        order = m.a("POST", f"/admin/draft-orders/{draft['id']}/pay")["order"]
        made[f"draft-{region}"] = {"region": region, "lines": LINES, "shipping": STANDARD[region],
                                   "draft_order_id": draft["id"], "order_id": order["id"]}
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:9101")
    parser.add_argument("--db", default="postgres://postgres@127.0.0.1:5432/medusaref_incl")
    parser.add_argument("--out", type=Path, default=Path("tests/fixtures/medusa_inclusive"))
    args = parser.parse_args()
    m = Medusa(args.url)
    version = m.http.get("/health").text
    ids = build(m)
    placed = {}
    for spec in carts_to_place():
        placed[spec["name"]] = place(m, ids, spec)
        print("placed", spec["name"], placed[spec["name"]]["charged"], file=sys.stderr)
    shown = storefront(m, ids, list(placed.values()))
    work = work_orders(m, ids, placed)
    made = drafts(m, ids)
    orders = {o["order_id"]: keep(m.a("GET", f"/admin/orders/{o['order_id']}")["order"])
              for o in [*placed.values(), *made.values()]}
    answers = {"medusa": "1.20.11", "health": version, "shop": SHOP, "ids": ids, "carts": placed,
               "work": work, "drafts": made, "orders": orders, "storefront": shown}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "answers.json").write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", args.db], check=True, capture_output=True)
    (args.out / "medusa-inclusive.sql.gz").write_bytes(gzip.compress(dump.stdout, mtime=0))
    print(f"{len(placed)} carts, {len(orders)} orders -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
