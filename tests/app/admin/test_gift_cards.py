"""Admin gift cards: list, create, get, update and delete under `/admin/gift-cards`."""

import re
from datetime import datetime, timedelta, timezone

import pytest

from models import GiftCard, Region
from services.gift_cards.gift_cards import create_gift_card
from tests.conftest import count_queries

CARD_COLUMNS = {
    "id", "code", "value", "balance", "region_id", "order_id", "is_disabled", "ends_at", "tax_rate",
    "metadata", "created_at", "updated_at", "deleted_at",
}
REGION_COLUMNS = {
    "id", "name", "currency_code", "tax_rate", "tax_code", "gift_cards_taxable", "automatic_taxes",
    "tax_provider_id", "metadata", "includes_tax", "created_at", "updated_at", "deleted_at",
}
CODE = re.compile(r"^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$")


@pytest.fixture
async def regions(seeded):
    """The seeded regions by name: NA (usd, tax 0) and EU (eur, tax 25)."""
    return {r.name: r for r in await Region.all()}


async def a_card(region: Region, value: int = 1000, code: str | None = None, **changes) -> GiftCard:
    return await create_gift_card(region.id, value, **({"new_code": lambda: code} if code else {}), **changes)


# ---------------------------------------------------------------- create

async def test_create_issues_a_card_with_a_fresh_code_a_full_balance_and_its_region(
    client, admin_headers, regions
):
    eu = regions["EU"]
    r = await client.post("/admin/gift-cards", headers=admin_headers, json={"value": 1000, "region_id": eu.id})
    assert r.status_code == 200
    assert set(r.json()) == {"gift_card"}
    card = r.json()["gift_card"]
    assert set(card) == CARD_COLUMNS | {"region", "order"}
    assert card["id"].startswith("gift_") and CODE.match(card["code"])
    assert (card["value"], card["balance"], card["region_id"]) == (1000, 1000, eu.id)
    assert card["is_disabled"] is False and card["ends_at"] is None and card["order"] is None
    assert card["tax_rate"] == 25  # EU taxes gift cards at its 25 %
    assert set(card["region"]) == REGION_COLUMNS and card["region"]["id"] == eu.id
    stored = await GiftCard.get(id=card["id"])
    assert (stored.code, stored.balance) == (card["code"], 1000)


async def test_create_keeps_expiry_disabled_flag_and_metadata(client, admin_headers, regions):
    body = {
        "value": 2500, "region_id": regions["NA"].id, "ends_at": "2031-06-01T12:00:00Z",
        "is_disabled": True, "metadata": {"campaign": "spring"},
    }
    card = (await client.post("/admin/gift-cards", headers=admin_headers, json=body)).json()["gift_card"]
    assert datetime.fromisoformat(card["ends_at"]) == datetime(2031, 6, 1, 12, tzinfo=timezone.utc)
    assert card["is_disabled"] is True and card["metadata"] == {"campaign": "spring"}


async def test_create_reads_a_date_without_time_or_zone_as_utc_midnight(client, admin_headers, regions):
    body = {"value": 10, "region_id": regions["NA"].id, "ends_at": "2031-06-01"}
    card = (await client.post("/admin/gift-cards", headers=admin_headers, json=body)).json()["gift_card"]
    assert datetime.fromisoformat(card["ends_at"]) == datetime(2031, 6, 1, tzinfo=timezone.utc)


async def test_create_leaves_the_tax_rate_empty_where_gift_cards_are_not_taxed(client, admin_headers, regions):
    # Given NA with no tax at all, and EU set not to tax gift cards
    await Region.filter(id=regions["EU"].id).update(gift_cards_taxable=False)
    for name in ("NA", "EU"):
        body = {"value": 100, "region_id": regions[name].id}
        card = (await client.post("/admin/gift-cards", headers=admin_headers, json=body)).json()["gift_card"]
        assert card["tax_rate"] is None, name


async def test_create_allows_a_card_worth_nothing(client, admin_headers, regions):
    r = await client.post("/admin/gift-cards", headers=admin_headers, json={"value": 0, "region_id": regions["NA"].id})
    assert r.status_code == 200 and r.json()["gift_card"]["balance"] == 0


async def test_every_created_card_gets_its_own_code(client, admin_headers, regions):
    codes = set()
    for _ in range(20):
        r = await client.post("/admin/gift-cards", headers=admin_headers, json={"value": 1, "region_id": regions["NA"].id})
        codes.add(r.json()["gift_card"]["code"])
    assert len(codes) == 20 and all(CODE.match(c) for c in codes)


@pytest.mark.parametrize("body,message", [
    ({}, "region_id should not be empty, value should not be empty"),
    ({"region_id": "R"}, "value should not be empty"),
    ({"region_id": "R", "value": None}, "value must be an integer number"),
    ({"region_id": "R", "value": 1.5}, "value must be an integer number"),
    ({"region_id": "R", "value": "5"}, "value must be an integer number"),
    ({"region_id": "R", "value": -1}, "value must not be less than 0"),
    ({"region_id": "R", "value": 2**63}, "value must not be greater than 9223372036854775807"),
    ({"region_id": 5, "value": 1}, "region_id must be a string"),
    ({"region_id": "", "value": 1}, "region_id should not be empty"),
    ({"region_id": "R", "value": 1, "ends_at": "next week"}, "ends_at must be a Date instance"),
    ({"region_id": "R", "value": 1, "ends_at": 1700000000}, "ends_at must be a Date instance"),
    ({"region_id": "R", "value": 1, "is_disabled": "yes"}, "is_disabled must be a boolean value"),
    ({"region_id": "R", "value": 1, "is_disabled": None}, "is_disabled must be a boolean value"),
    ({"region_id": "R", "value": 1, "metadata": ["a"]}, "metadata must be an object"),
    ({"region_id": "R", "value": 1, "metadata": {"a": ["x\u0000"]}},
     "The request contains a NUL character, which no field accepts"),
    ({"region_id": "R", "value": 1, "code": "MINE-MINE-MINE-MINE"}, "property code should not exist"),
    ({"region_id": "R", "value": 1, "balance": 5}, "property balance should not exist"),
])
async def test_create_refuses_bad_bodies_with_a_400_naming_the_problem(client, admin_headers, regions, body, message):
    r = await client.post("/admin/gift-cards", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await GiftCard.all().count() == 0


async def test_create_refuses_a_body_that_is_not_a_json_object(client, admin_headers, regions):
    r = await client.post("/admin/gift-cards", headers={**admin_headers, "content-type": "application/json"},
                          content=b"[1, 2")
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


async def test_create_in_an_unknown_or_deleted_region_is_a_404(client, admin_headers, regions):
    for region_id in ("reg_nope", "reg_" + "x" * 100):
        r = await client.post("/admin/gift-cards", headers=admin_headers, json={"value": 1, "region_id": region_id})
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Region with {region_id} was not found"}
    eu = regions["EU"]
    await Region.filter(id=eu.id).update(deleted_at=datetime.now(timezone.utc))
    r = await client.post("/admin/gift-cards", headers=admin_headers, json={"value": 1, "region_id": eu.id})
    assert r.status_code == 404 and r.json()["message"] == f"Region with {eu.id} was not found"
    assert await GiftCard.all().count() == 0


# ---------------------------------------------------------------- list

async def test_list_shows_live_cards_newest_first_with_their_region(client, admin_headers, regions):
    older = await a_card(regions["NA"], 100)
    newer = await a_card(regions["EU"], 200)
    await GiftCard.filter(id=older.id).update(created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    r = await client.get("/admin/gift-cards", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"gift_cards", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 50)
    assert [c["id"] for c in body["gift_cards"]] == [newer.id, older.id]
    for card in body["gift_cards"]:
        assert set(card) == CARD_COLUMNS | {"region", "order"}
        assert card["region"]["id"] == card["region_id"] and card["order"] is None


async def test_list_q_finds_cards_by_part_of_the_code_in_any_case(client, admin_headers, regions):
    # Given Medusa's test cards
    wanted = await a_card(regions["NA"], 200, code="GC_TEST")
    await a_card(regions["NA"], 300, code="CARD-1234-ABCD-EFGH")
    for q in ("gc", "GC_", "c_te"):
        body = (await client.get(f"/admin/gift-cards?q={q}", headers=admin_headers)).json()
        assert [c["id"] for c in body["gift_cards"]] == [wanted.id] and body["count"] == 1, q
    body = (await client.get("/admin/gift-cards?q=does-not-exist", headers=admin_headers)).json()
    assert body["gift_cards"] == [] and body["count"] == 0


async def test_list_q_takes_like_wildcards_and_odd_characters_literally(client, admin_headers, regions):
    await a_card(regions["NA"], code="ABCD-1234-ABCD-1234")
    for q in ("%25", "_", "A%25D", "A" * 300):
        body = (await client.get(f"/admin/gift-cards?q={q}", headers=admin_headers)).json()
        assert body["gift_cards"] == [], q


async def test_list_pages_and_orders_on_request(client, admin_headers, regions):
    for value in (300, 100, 200):
        await a_card(regions["NA"], value)
    body = (await client.get("/admin/gift-cards?order=value", headers=admin_headers)).json()
    assert [c["value"] for c in body["gift_cards"]] == [100, 200, 300]
    body = (await client.get("/admin/gift-cards?order=-value&limit=1&offset=1", headers=admin_headers)).json()
    assert [c["value"] for c in body["gift_cards"]] == [200]
    assert (body["count"], body["offset"], body["limit"]) == (3, 1, 1)


async def test_list_hides_deleted_cards(client, admin_headers, regions):
    kept, gone = await a_card(regions["NA"]), await a_card(regions["NA"])
    await client.delete(f"/admin/gift-cards/{gone.id}", headers=admin_headers)
    body = (await client.get("/admin/gift-cards", headers=admin_headers)).json()
    assert [c["id"] for c in body["gift_cards"]] == [kept.id] and body["count"] == 1


@pytest.mark.parametrize("query,message", [
    ("order=password", "Order field password is not valid"),
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
    ("offset=-1", "offset must not be less than 0"),
    ("region=x", "property region should not exist"),
    ("q[]=a&q[]=b", "q must be a string"),
    ("expand=customer", "Requested relations [customer] are not valid"),
])
async def test_list_refuses_unknown_or_malformed_query_keys(client, admin_headers, regions, query, message):
    r = await client.get(f"/admin/gift-cards?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_as_many_statements_for_fifty_cards_as_for_one(client, admin_headers, regions):
    # Given more than fifty cards spread over both regions
    await GiftCard.bulk_create([
        GiftCard(code=f"BULK-{i:04d}-AAAA-AAAA", value=100 + i, balance=100 + i,
                 region_id=regions["NA" if i % 2 else "EU"].id)
        for i in range(55)
    ])
    # When a full page of one and a full page of fifty are read
    async with count_queries() as one:
        r1 = await client.get("/admin/gift-cards?limit=1", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get("/admin/gift-cards?limit=50", headers=admin_headers)
    # I expect the same statements, whatever the page size
    assert len(r1.json()["gift_cards"]) == 1 and r1.json()["count"] == 55
    cards = r50.json()["gift_cards"]
    assert len(cards) == 50 and r50.json()["count"] == 55
    assert all(c["region"]["id"] == c["region_id"] for c in cards)
    assert one and len(fifty) == len(one), (one, fifty)


# ---------------------------------------------------------------- get

async def test_get_returns_the_card_with_its_region(client, admin_headers, regions):
    card = await a_card(regions["EU"], 700, metadata={"note": "vip"})
    r = await client.get(f"/admin/gift-cards/{card.id}", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()["gift_card"]
    assert set(r.json()) == {"gift_card"} and set(body) == CARD_COLUMNS | {"region", "order"}
    assert (body["id"], body["code"], body["value"], body["balance"]) == (card.id, card.code, 700, 700)
    assert body["region"]["name"] == "EU" and body["metadata"] == {"note": "vip"}


async def test_get_accepts_expand_and_fields(client, admin_headers, regions):
    card = await a_card(regions["EU"], 700)
    body = (await client.get(f"/admin/gift-cards/{card.id}?expand=region&fields=code,balance",
                             headers=admin_headers)).json()["gift_card"]
    assert set(body) == {"id", "code", "balance", "region"}
    r = await client.get(f"/admin/gift-cards/{card.id}?expand=owner", headers=admin_headers)
    assert r.status_code == 400 and r.json()["message"] == "Requested relations [owner] are not valid"


async def test_get_of_an_unknown_or_deleted_card_is_a_404(client, admin_headers, regions):
    for card_id in ("gift_nope", "gift_" + "x" * 100):
        r = await client.get(f"/admin/gift-cards/{card_id}", headers=admin_headers)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Gift card with id: {card_id} was not found"}
    card = await a_card(regions["NA"])
    await client.delete(f"/admin/gift-cards/{card.id}", headers=admin_headers)
    r = await client.get(f"/admin/gift-cards/{card.id}", headers=admin_headers)
    assert r.status_code == 404 and r.json()["message"] == f"Gift card with id: {card.id} was not found"


# ---------------------------------------------------------------- update

async def test_update_sets_the_balance_down_to_zero(client, admin_headers, regions):
    card = await a_card(regions["NA"], 1000)
    r = await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers, json={"balance": 0})
    assert r.status_code == 200
    body = r.json()["gift_card"]
    assert body["balance"] == 0 and body["value"] == 1000 and body["region"]["id"] == card.region_id
    assert body["order"] is None and (await GiftCard.get(id=card.id)).balance == 0


@pytest.mark.parametrize("balance", [-1, 1001, 2**40])
async def test_update_refuses_a_balance_outside_zero_to_value_with_a_400(client, admin_headers, regions, balance):
    card = await a_card(regions["NA"], 1000)
    r = await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers, json={"balance": balance})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "new balance is invalid"}
    assert (await GiftCard.get(id=card.id)).balance == 1000


async def test_update_disables_moves_and_sets_then_clears_the_expiry(client, admin_headers, regions):
    card = await a_card(regions["NA"], 1000)
    eu = regions["EU"]
    body = {"is_disabled": True, "region_id": eu.id, "ends_at": "2032-01-01T00:00:00+02:00"}
    updated = (await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers, json=body)).json()["gift_card"]
    assert updated["is_disabled"] is True and updated["region_id"] == eu.id and updated["region"]["id"] == eu.id
    assert datetime.fromisoformat(updated["ends_at"]) == datetime(2031, 12, 31, 22, tzinfo=timezone.utc)
    assert updated["tax_rate"] is None  # the tax rate is the one the card was issued with
    cleared = (await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers,
                                 json={"ends_at": None})).json()["gift_card"]
    assert cleared["ends_at"] is None and cleared["is_disabled"] is True and cleared["region_id"] == eu.id


async def test_update_merges_metadata(client, admin_headers, regions):
    card = await a_card(regions["NA"], metadata={"keep": 1, "drop": 2})
    r = await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers,
                          json={"metadata": {"drop": "", "added": None, "keep": 3}})
    assert r.json()["gift_card"]["metadata"] == {"keep": 3, "added": None}


async def test_an_empty_update_changes_nothing(client, admin_headers, regions):
    card = await a_card(regions["NA"], 1000, metadata={"a": 1})
    r = await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers, json={})
    body = r.json()["gift_card"]
    assert r.status_code == 200 and (body["balance"], body["metadata"], body["code"]) == (1000, {"a": 1}, card.code)


@pytest.mark.parametrize("body,message", [
    ({"balance": None}, "balance must be an integer number"),
    ({"balance": 1.5}, "balance must be an integer number"),
    ({"is_disabled": None}, "is_disabled must be a boolean value"),
    ({"region_id": None}, "region_id must be a string"),
    ({"ends_at": "soon"}, "ends_at must be a Date instance"),
    ({"value": 5}, "property value should not exist"),
    ({"code": "ABCD-ABCD-ABCD-ABCD"}, "property code should not exist"),
])
async def test_update_refuses_bad_bodies_with_a_400_naming_the_problem(client, admin_headers, regions, body, message):
    card = await a_card(regions["NA"])
    r = await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_update_of_an_unknown_card_or_into_an_unknown_region_is_a_404(client, admin_headers, regions):
    for card_id in ("gift_nope", "gift_" + "x" * 100):
        r = await client.post(f"/admin/gift-cards/{card_id}", headers=admin_headers, json={"balance": 0})
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Gift card with id: {card_id} was not found"}
    card = await a_card(regions["NA"])
    r = await client.post(f"/admin/gift-cards/{card.id}", headers=admin_headers, json={"region_id": "reg_nope"})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Region with reg_nope was not found"}
    assert (await GiftCard.get(id=card.id)).region_id == regions["NA"].id


# ---------------------------------------------------------------- delete

async def test_delete_is_soft_and_idempotent(client, admin_headers, regions):
    card = await a_card(regions["NA"])
    for _ in range(2):
        r = await client.delete(f"/admin/gift-cards/{card.id}", headers=admin_headers)
        assert r.status_code == 200
        assert r.json() == {"id": card.id, "object": "gift-card", "deleted": True}
    stored = await GiftCard.get(id=card.id)
    assert stored.deleted_at is not None and stored.deleted_at > datetime.now(timezone.utc) - timedelta(minutes=1)


async def test_delete_of_an_unknown_card_answers_deleted_like_medusa(client, admin_headers, regions):
    for card_id in ("gift_nope", "gift_" + "x" * 100):
        r = await client.delete(f"/admin/gift-cards/{card_id}", headers=admin_headers)
        assert r.status_code == 200 and r.json() == {"id": card_id, "object": "gift-card", "deleted": True}


# ---------------------------------------------------------------- authentication

@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/gift-cards"),
    ("POST", "/admin/gift-cards"),
    ("GET", "/admin/gift-cards/gift_x"),
    ("POST", "/admin/gift-cards/gift_x"),
    ("DELETE", "/admin/gift-cards/gift_x"),
])
async def test_every_route_needs_a_signed_in_user(client, regions, method, path):
    card = await a_card(regions["NA"])
    r = await client.request(method, path.replace("gift_x", card.id), json={"value": 1, "region_id": card.region_id}
                             if method == "POST" else None)
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    stored = await GiftCard.get(id=card.id)
    assert await GiftCard.all().count() == 1 and stored.deleted_at is None
