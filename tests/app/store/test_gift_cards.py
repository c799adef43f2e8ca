"""Store gift cards: `GET /store/gift-cards/{code}`, a customer's balance check."""

from datetime import datetime, timedelta, timezone

import pytest

from models import GiftCard, Region
from services.gift_cards.gift_cards import create_gift_card

REGION_COLUMNS = {
    "id", "name", "currency_code", "tax_rate", "tax_code", "gift_cards_taxable", "automatic_taxes",
    "tax_provider_id", "metadata", "includes_tax", "created_at", "updated_at", "deleted_at",
}


@pytest.fixture
async def regions(seeded):
    return {r.name: r for r in await Region.all()}


async def a_card(region: Region, value: int = 200, code: str = "GC_TEST", **changes) -> GiftCard:
    return await create_gift_card(region.id, value, new_code=lambda: code, **changes)


def not_found(code: str) -> dict:
    return {"type": "not_found", "message": f"Gift card with code: {code} was not found"}


async def test_a_customer_sees_id_code_value_balance_and_region_only(client, regions):
    # Given Medusa's test card: worth 200, 120 left
    card = await a_card(regions["EU"], 200)
    await GiftCard.filter(id=card.id).update(balance=120)
    # When it is looked up without signing in
    r = await client.get("/store/gift-cards/GC_TEST")
    # I expect exactly Medusa's keys
    assert r.status_code == 200
    body = r.json()["gift_card"]
    assert set(r.json()) == {"gift_card"}
    assert set(body) == {"id", "code", "value", "balance", "region"}
    assert (body["id"], body["code"], body["value"], body["balance"]) == (card.id, "GC_TEST", 200, 120)
    assert set(body["region"]) == REGION_COLUMNS
    assert (body["region"]["id"], body["region"]["currency_code"]) == (regions["EU"].id, "eur")


async def test_medusa_js_creates_a_card_then_finds_it_by_code(client, admin_headers, regions):
    # Given the admin client creates a card as medusa-js does
    r = await client.post("/admin/gift-cards", headers=admin_headers,
                          json={"value": 5000, "region_id": regions["NA"].id})
    created = r.json()["gift_card"]
    assert (created["value"], created["balance"]) == (5000, 5000)
    # When the storefront looks its code up
    client.cookies.clear()
    r = await client.get(f"/store/gift-cards/{created['code']}")
    # I expect the same card
    assert r.status_code == 200 and r.json()["gift_card"]["id"] == created["id"]
    assert r.json()["gift_card"]["balance"] == 5000


async def test_a_code_typed_in_lower_case_or_with_spaces_finds_the_card(client, regions):
    card = await a_card(regions["NA"], code="ABCD-EFGH-1234-WXYZ")
    for typed in ("abcd-efgh-1234-wxyz", "Abcd-Efgh-1234-wxYZ", "%20ABCD-EFGH-1234-WXYZ%20"):
        r = await client.get(f"/store/gift-cards/{typed}")
        assert r.status_code == 200 and r.json()["gift_card"]["id"] == card.id, typed
        assert r.json()["gift_card"]["code"] == "ABCD-EFGH-1234-WXYZ"


async def test_an_exact_spelling_wins_over_an_upper_case_one(client, regions):
    upper = await a_card(regions["NA"], code="MIXED-CODE")
    mixed = await a_card(regions["NA"], code="mixed-code")
    assert (await client.get("/store/gift-cards/mixed-code")).json()["gift_card"]["id"] == mixed.id
    assert (await client.get("/store/gift-cards/MIXED-CODE")).json()["gift_card"]["id"] == upper.id


async def test_a_card_with_an_expiry_ahead_is_found(client, regions):
    card = await a_card(regions["NA"], ends_at=datetime.now(timezone.utc) + timedelta(days=1))
    r = await client.get("/store/gift-cards/GC_TEST")
    assert r.status_code == 200 and r.json()["gift_card"]["id"] == card.id


@pytest.mark.parametrize("state", ["unknown", "disabled", "deleted", "expired", "region deleted"])
async def test_a_card_that_cannot_be_spent_is_the_same_404_as_an_unknown_code(client, regions, state):
    # Given a card in the given state (or none at all)
    if state != "unknown":
        card = await a_card(regions["NA"])
        changes = {
            "disabled": {"is_disabled": True},
            "deleted": {"deleted_at": datetime.now(timezone.utc)},
            "expired": {"ends_at": datetime.now(timezone.utc) - timedelta(seconds=1)},
        }.get(state)
        if changes:
            await GiftCard.filter(id=card.id).update(**changes)
        else:
            await Region.filter(id=card.region_id).update(deleted_at=datetime.now(timezone.utc))
    # When a customer looks it up
    r = await client.get("/store/gift-cards/GC_TEST")
    # I expect nothing but the 404
    assert r.status_code == 404
    assert r.json() == not_found("GC_TEST")


async def test_a_code_that_only_differs_by_more_than_case_is_not_found(client, regions):
    await a_card(regions["NA"], code="ABCD-EFGH-1234-WXYZ")
    for typed in ("ABCD-EFGH-1234", "ABCDEFGH1234WXYZ", "ABCD-EFGH-1234-WXY%25", "%20", "A" * 300, "ß" * 40):
        r = await client.get(f"/store/gift-cards/{typed}")
        assert r.status_code == 404 and r.json()["type"] == "not_found", typed
