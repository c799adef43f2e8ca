"""Admin price lists: `/admin/price-lists`, their prices and products (Medusa's test
`admin/price-list.js`)."""

from __future__ import annotations

import pytest

from models import CustomerGroup, MoneyAmount, PriceList, Region
from tests.conftest import count_queries

LIST_COLUMNS = {"id", "name", "description", "type", "status", "starts_at", "ends_at", "includes_tax", "created_at", "updated_at",
                "deleted_at"}
PRICE_KEYS = {"id", "currency_code", "amount", "min_quantity", "max_quantity", "price_list_id", "region_id",
              "created_at", "updated_at", "deleted_at", "variant_id", "variant", "variants"}
XOR = ('Failed XOR relation between "region_id" and "currency_code"., '
       'Failed XOR relation between "currency_code" and "region_id".')


def body(**changes) -> dict:
    return {"name": "VIP sale", "description": "For friends", "type": "sale",
            "prices": [{"amount": 800, "currency_code": "usd", "variant_id": "variant_mug_white"}], **changes}


async def create(client, headers, **changes) -> dict:
    r = await client.post("/admin/price-lists", json=body(**changes), headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["price_list"]


def amounts(price_list: dict) -> list[tuple]:
    return sorted((p["variant_id"], p["currency_code"], p["amount"]) for p in price_list["prices"])


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/price-lists"),
    ("POST", "/admin/price-lists"),
    ("GET", "/admin/price-lists/pl_1"),
    ("POST", "/admin/price-lists/pl_1"),
    ("DELETE", "/admin/price-lists/pl_1"),
    ("POST", "/admin/price-lists/pl_1/prices/batch"),
    ("DELETE", "/admin/price-lists/pl_1/prices/batch"),
    ("GET", "/admin/price-lists/pl_1/products"),
    ("DELETE", "/admin/price-lists/pl_1/products/prod_1/prices"),
    ("DELETE", "/admin/price-lists/pl_1/variants/variant_1/prices"),
    ("DELETE", "/admin/price-lists/pl_1/products/prices/batch"),
])
async def test_every_route_needs_a_signed_in_user(client, method, path):
    await PriceList.create(id="pl_1", name="L", type="sale")
    r = await client.request(method, path, json={} if method != "GET" else None)
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    assert await PriceList.filter(id="pl_1").exists()


# ---------------------------------------------------------------- the whole story


async def test_a_list_is_created_read_changed_and_deleted(client, admin_headers, seeded):
    # Given a customer group and a region
    vip = await CustomerGroup.create(name="VIP")
    na = await Region.get(name="NA")
    # When a list is created with a currency price and a region price
    created = await create(client, admin_headers, status="active", starts_at="2024-01-01T00:00:00Z",
                           customer_groups=[{"id": vip.id}], prices=[
                               {"amount": 800, "currency_code": "USD", "variant_id": "variant_mug_white"},
                               {"amount": 700, "region_id": na.id, "variant_id": "variant_mug_black",
                                "min_quantity": 2, "max_quantity": 5},
                           ])
    # I expect Medusa's shape: the region price takes the region's currency
    assert set(created) == LIST_COLUMNS | {"prices", "customer_groups"}
    assert created["id"].startswith("pl_") and created["status"] == "active" and created["type"] == "sale"
    assert created["starts_at"].startswith("2024-01-01") and created["ends_at"] is None
    assert [g["id"] for g in created["customer_groups"]] == [vip.id]
    assert amounts(created) == [("variant_mug_black", "usd", 700), ("variant_mug_white", "usd", 800)]
    black = next(p for p in created["prices"] if p["variant_id"] == "variant_mug_black")
    assert set(black) == PRICE_KEYS and black["region_id"] == na.id and black["price_list_id"] == created["id"]
    assert (black["min_quantity"], black["max_quantity"]) == (2, 5)
    assert black["variant"]["id"] == "variant_mug_black" and black["variants"] == [black["variant"]]

    # When it is read, then changed: one price by id, one added, the groups cleared, the dates cleared
    r = await client.get(f"/admin/price-lists/{created['id']}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["price_list"] == created
    white = next(p for p in created["prices"] if p["variant_id"] == "variant_mug_white")
    r = await client.post(f"/admin/price-lists/{created['id']}", headers=admin_headers, json={
        "name": "VIP", "type": "override", "starts_at": None, "customer_groups": [],
        "prices": [{"id": white["id"], "amount": 750, "variant_id": "variant_mug_white"},
                   {"amount": 600, "currency_code": "eur", "variant_id": "variant_mug_white"}],
    })
    assert r.status_code == 200, r.text
    updated = r.json()["price_list"]
    # I expect the price changed in place (same id, bounds kept), the new one added, the rest kept
    assert (updated["name"], updated["type"], updated["starts_at"], updated["customer_groups"]) == (
        "VIP", "override", None, [])
    assert amounts(updated) == [("variant_mug_black", "usd", 700), ("variant_mug_white", "eur", 600),
                                ("variant_mug_white", "usd", 750)]
    assert white["id"] in {p["id"] for p in updated["prices"]}

    # When it is deleted, twice
    for _ in range(2):
        r = await client.delete(f"/admin/price-lists/{created['id']}", headers=admin_headers)
        assert r.json() == {"id": created["id"], "object": "price-list", "deleted": True}
    # I expect the list and its prices gone for good, and a 404 for it
    assert not await PriceList.filter(id=created["id"]).exists()
    assert not await MoneyAmount.filter(price_list_id=created["id"]).exists()
    r = await client.get(f"/admin/price-lists/{created['id']}", headers=admin_headers)
    assert r.status_code == 404 and r.json() == {
        "type": "not_found", "message": f"Price list with id: {created['id']} was not found"}


@pytest.mark.parametrize("changes,status,message", [
    ({"prices": [{"amount": 1, "variant_id": "variant_mug_white"}]}, 400, XOR),
    ({"prices": [{"amount": 1, "variant_id": "variant_mug_white", "currency_code": "usd", "region_id": "reg_x"}]},
     400, XOR),
    ({"prices": [{"amount": -1, "variant_id": "variant_mug_white", "currency_code": "usd"}]}, 400,
     "amount must not be less than 0"),
    ({"prices": [{"amount": 2**63, "variant_id": "variant_mug_white", "currency_code": "usd"}]}, 400,
     f"amount must not be greater than {2**63 - 1}"),
    ({"prices": [{"amount": 1.5, "variant_id": "variant_mug_white", "currency_code": "usd"}]}, 400,
     "amount must be an integer number"),
    ({"prices": [{"amount": 1, "variant_id": "variant_mug_white", "currency_code": "usd", "min_quantity": 5,
                  "max_quantity": 2}]}, 400, "min_quantity must not be greater than max_quantity"),
    ({"prices": [{"amount": 1, "variant_id": "variant_nope", "currency_code": "usd"}]}, 404,
     "Product_variant with variant_id variant_nope does not exist."),
    ({"prices": [{"amount": 1, "variant_id": "variant_mug_white", "region_id": "reg_nope"}]}, 404,
     "Region with reg_nope was not found"),
    ({"prices": [{"amount": 1, "variant_id": "variant_mug_white", "currency_code": "xyz"}]}, 404,
     "Currency with currency_code xyz does not exist."),
    ({"customer_groups": [{"id": "cgrp_nope"}]}, 404, "CustomerGroup with id cgrp_nope was not found"),
    ({"type": "clearance"}, 400, "type must be one of the following values: sale, override"),
    ({"includes_tax": "yes"}, 400, "includes_tax must be a boolean value"),
    ({"starts_at": "2024-02-01T00:00:00Z", "ends_at": "2024-01-01T00:00:00Z"}, 400, "ends_at must be after starts_at"),
])
async def test_bad_input_is_refused_and_nothing_is_written(client, admin_headers, seeded, changes, status, message):
    r = await client.post("/admin/price-lists", json=body(**changes), headers=admin_headers)
    assert r.status_code == status, r.text
    assert r.json()["message"] == message
    assert not await PriceList.exists() and not await MoneyAmount.filter(price_list_id__not_isnull=True).exists()


async def test_a_price_id_of_another_list_is_not_changed(client, admin_headers, seeded):
    mine, theirs = await create(client, admin_headers), await create(client, admin_headers, name="Other")
    r = await client.post(f"/admin/price-lists/{mine['id']}", headers=admin_headers, json={
        "name": "Renamed", "prices": [{"id": theirs["prices"][0]["id"], "amount": 1, "variant_id": "variant_mug_white"}],
    })
    assert r.status_code == 404
    assert (await PriceList.get(id=mine["id"])).name == "VIP sale"  # nothing half-written
    assert (await MoneyAmount.get(id=theirs["prices"][0]["id"])).amount == 800


# ---------------------------------------------------------------- prices in batches


async def test_prices_are_added_in_batches_and_override_replaces_the_others(client, admin_headers, seeded):
    created = await create(client, admin_headers)
    path = f"/admin/price-lists/{created['id']}/prices/batch"
    r = await client.post(path, headers=admin_headers, json={"prices": [
        {"amount": 500, "currency_code": "eur", "variant_id": "variant_mug_white"},
        {"amount": 400, "currency_code": "usd", "variant_id": "variant_mug_black", "min_quantity": 3},
    ]})
    assert r.status_code == 200, r.text
    assert amounts(r.json()["price_list"]) == [
        ("variant_mug_black", "usd", 400), ("variant_mug_white", "eur", 500), ("variant_mug_white", "usd", 800)]
    r = await client.post(path, headers=admin_headers, json={"override": True, "prices": [
        {"amount": 100, "currency_code": "usd", "variant_id": "variant_cap_black"}]})
    assert amounts(r.json()["price_list"]) == [("variant_cap_black", "usd", 100)]

    # Deleting by id: only the list's own prices go; the answer echoes the ids asked for
    kept = r.json()["price_list"]["prices"][0]["id"]
    base = await MoneyAmount.filter(price_list_id=None).first()
    r = await client.request("DELETE", path, headers=admin_headers, json={"price_ids": [kept, base.id]})
    assert r.json() == {"ids": [kept, base.id], "object": "money-amount", "deleted": True}
    assert not await MoneyAmount.filter(id=kept).exists() and await MoneyAmount.filter(id=base.id).exists()
    r = await client.request("DELETE", path, headers=admin_headers, json={"price_ids": []})
    assert r.status_code == 400 and r.json()["message"] == "price_ids should not be empty"


async def test_prices_of_products_and_variants_are_deleted(client, admin_headers, seeded):
    created = await create(client, admin_headers, prices=[
        {"amount": 1, "currency_code": "usd", "variant_id": v}
        for v in ("variant_mug_white", "variant_mug_black", "variant_cap_black", "variant_t_shirt_s")
    ])
    base = f"/admin/price-lists/{created['id']}"
    by_variant = {p["variant_id"]: p["id"] for p in created["prices"]}
    r = await client.delete(f"{base}/variants/variant_mug_white/prices", headers=admin_headers)
    assert r.json() == {"ids": [by_variant["variant_mug_white"]], "object": "money-amount", "deleted": True}
    r = await client.delete(f"{base}/products/prod_mug/prices", headers=admin_headers)
    assert r.json()["ids"] == [by_variant["variant_mug_black"]]
    r = await client.request("DELETE", f"{base}/products/prices/batch", headers=admin_headers,
                             json={"product_ids": ["prod_cap", "prod_t_shirt", "prod_nope"]})
    assert sorted(r.json()["ids"]) == sorted([by_variant["variant_cap_black"], by_variant["variant_t_shirt_s"]])
    assert not await MoneyAmount.filter(price_list_id=created["id"]).exists()
    assert await MoneyAmount.filter(variant_id="variant_mug_white", price_list_id=None).exists()  # base kept
    r = await client.delete("/admin/price-lists/pl_nope/products/prod_mug/prices", headers=admin_headers)
    assert r.status_code == 404


# ---------------------------------------------------------------- products of a list


async def test_products_of_a_list_show_its_prices_and_the_base_prices(client, admin_headers, seeded):
    created = await create(client, admin_headers)
    other = await create(client, admin_headers, name="Other", prices=[
        {"amount": 5, "currency_code": "usd", "variant_id": "variant_mug_white"},
        {"amount": 5, "currency_code": "usd", "variant_id": "variant_cap_black"}])
    r = await client.get(f"/admin/price-lists/{created['id']}/products", headers=admin_headers)
    assert r.status_code == 200, r.text
    page = r.json()
    assert [p["id"] for p in page["products"]] == ["prod_mug"] and (page["count"], page["limit"]) == (1, 50)
    white = next(v for v in page["products"][0]["variants"] if v["id"] == "variant_mug_white")
    listed = [p for p in white["prices"] if p["price_list_id"]]
    assert [(p["amount"], p["price_list"]["id"]) for p in listed] == [(800, created["id"])]
    assert other["id"] not in {p["price_list_id"] for p in white["prices"]}
    assert any(p["price_list_id"] is None and p["price_list"] is None for p in white["prices"])
    r = await client.get(f"/admin/price-lists/{created['id']}/products?q=nothing-like-it", headers=admin_headers)
    assert r.json()["products"] == []
    r = await client.get("/admin/price-lists/pl_nope/products", headers=admin_headers)
    assert r.status_code == 404


# ---------------------------------------------------------------- the list


async def test_the_list_filters_pages_and_expands(client, admin_headers, seeded):
    vip = await CustomerGroup.create(name="Very Important")
    a = await create(client, admin_headers, name="Summer", status="active", customer_groups=[{"id": vip.id}])
    b = await create(client, admin_headers, name="Winter", description="cold", type="override")
    r = await client.get("/admin/price-lists", headers=admin_headers)
    page = r.json()
    assert (page["count"], page["offset"], page["limit"]) == (2, 0, 10)
    assert [p["id"] for p in page["price_lists"]] == [b["id"], a["id"]]
    assert set(page["price_lists"][0]) == LIST_COLUMNS  # relations only when expanded

    async def found(query: str) -> list[str]:
        r = await client.get(f"/admin/price-lists?{query}", headers=admin_headers)
        assert r.status_code == 200, r.text
        return [p["id"] for p in r.json()["price_lists"]]

    assert await found("status[]=active") == [a["id"]]
    assert await found("type[]=override") == [b["id"]]
    assert await found(f"customer_groups[]={vip.id}") == [a["id"]]
    assert await found("q=COLD") == [b["id"]]
    assert await found("q=important") == [a["id"]]  # a group's name
    assert await found("name=Summer") == [a["id"]]
    assert await found("order=name") == [a["id"], b["id"]]
    assert await found("limit=1&offset=1") == [a["id"]]
    r = await client.get("/admin/price-lists?expand=prices,customer_groups&limit=1000", headers=admin_headers)
    assert r.json()["limit"] == 100
    first = r.json()["price_lists"][1]
    assert [g["id"] for g in first["customer_groups"]] == [vip.id] and amounts(first) == [
        ("variant_mug_white", "usd", 800)]
    r = await client.get("/admin/price-lists?status[]=open", headers=admin_headers)
    assert r.status_code == 400
    r = await client.get("/admin/price-lists?color=red", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "property color should not exist"


async def test_the_list_runs_the_same_statements_for_one_list_as_for_twenty(client, admin_headers, seeded):
    groups = [await CustomerGroup.create(name=f"G{i}") for i in range(3)]

    async def statements() -> int:
        async with count_queries() as queries:
            r = await client.get("/admin/price-lists?expand=prices,customer_groups&limit=50", headers=admin_headers)
        assert r.status_code == 200
        return len(queries)

    await create(client, admin_headers, customer_groups=[{"id": g.id} for g in groups])
    one = await statements()
    for i in range(19):
        await create(client, admin_headers, name=f"L{i}", customer_groups=[{"id": groups[i % 3].id}], prices=[
            {"amount": 1 + i, "currency_code": "usd", "variant_id": v} for v in ("variant_mug_white", "variant_cap_black")
        ])
    assert await statements() == one
