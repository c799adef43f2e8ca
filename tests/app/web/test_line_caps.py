"""Lines are bounded: a cart, draft order or order edit holds at most
MAX_LINES_PER_ORDER lines (500 by default, a real shop's largest order). A request that would
make line 501, at once or one at a time, is a 400 naming the cap and keeps nothing; more of a
line already there is not a new line."""

from __future__ import annotations

import pytest

from app.config import ConfigError, Settings
from models import Cart, DraftOrder, LineItem, MoneyAmount, Product, ProductVariant, SalesChannel, ShippingProfile
from app.shapes.completion import ApiAnswers
from services import setup
from services.carts import line_limits
from services.store.defaults import get_store
from tests.cart_factories import add_item, region_id
from tests.conftest import SETTINGS, settings
from tests.draft_order_factories import draft_body
from tests.order_edit_factories import new_edit, place, set_quantity

CAP = 500


async def _variants(count: int) -> list[str]:
    """`count` published variants of one product sold through the store's channel, $1 each."""
    store = await get_store()
    product = await Product.create(title="Sticker", handle="sticker", status="published",
                                   profile=await ShippingProfile.get(type="default"))
    await product.sales_channels.add(await SalesChannel.get(id=store.default_sales_channel_id))
    variants = [ProductVariant(title=f"#{n}", product_id=product.id, manage_inventory=False) for n in range(count)]
    await ProductVariant.bulk_create(variants)
    await MoneyAmount.bulk_create([MoneyAmount(variant_id=v.id, currency_code="usd", amount=100) for v in variants])
    return [v.id for v in variants]


def _custom(lines: int) -> list[dict]:
    return [{"title": f"Line {n}", "unit_price": 100, "quantity": 1} for n in range(lines)]


async def _draft(client, headers, lines: int):
    body = {**await draft_body("NA", {}, shipping=None), "items": _custom(lines)}
    return await client.post("/admin/draft-orders", json=body, headers=headers)


# ---------------------------------------------------------------- carts


async def test_a_cart_holds_500_lines_and_refuses_the_501st_but_not_more_of_a_line(client, seeded):
    # Given a cart created with 500 different variants
    variants = await _variants(CAP + 1)
    r = await client.post("/store/carts", json={"region_id": await region_id("NA"),
                                                "items": [{"variant_id": v, "quantity": 1} for v in variants[:CAP]]})
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert len(cart["items"]) == CAP
    # When a 501st variant is added
    r = await client.post(f"/store/carts/{cart['id']}/line-items", json={"variant_id": variants[CAP], "quantity": 1})
    # I expect a 400 naming the cap, and the cart as it was
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": f"A cart can hold at most {CAP} lines"}
    assert await LineItem.filter(cart_id=cart["id"]).count() == CAP
    # And one more of a variant already in it adds to its line
    cart = await add_item(client, cart, variants[0], 2)
    assert len(cart["items"]) == CAP and cart["subtotal"] == (CAP + 2) * 100


async def test_a_cart_created_with_10000_items_is_refused_and_not_kept(client, seeded):
    before = await Cart.all().count()
    r = await client.post("/store/carts", json={
        "region_id": await region_id("NA"), "items": [{"variant_id": "variant_cap_black", "quantity": 1}] * 10_000,
    })
    assert r.status_code == 400, r.text
    assert r.json()["message"] == f"A cart can hold at most {CAP} lines"
    assert await Cart.all().count() == before and await LineItem.all().count() == 0


# ---------------------------------------------------------------- draft orders


async def test_a_draft_order_of_501_lines_is_refused_and_leaves_no_rows(client, admin_headers, seeded):
    r = await _draft(client, admin_headers, CAP + 1)
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": f"A draft order can hold at most {CAP} lines"}
    assert await DraftOrder.all().count() == 0 and await LineItem.all().count() == 0


async def test_a_draft_order_of_500_lines_refuses_one_more_but_not_a_changed_quantity(client, admin_headers, seeded):
    r = await _draft(client, admin_headers, CAP)
    assert r.status_code == 200, r.text
    draft = r.json()["draft_order"]
    r = await client.post(f"/admin/draft-orders/{draft['id']}/line-items", headers=admin_headers,
                          json={"title": "One more", "unit_price": 100, "quantity": 1})
    assert r.status_code == 400 and r.json()["message"] == f"A draft order can hold at most {CAP} lines"
    first = draft["cart"]["items"][0]["id"]
    r = await client.post(f"/admin/draft-orders/{draft['id']}/line-items/{first}", headers=admin_headers,
                          json={"quantity": 3})
    assert r.status_code == 200, r.text
    assert await LineItem.filter(cart_id=draft["cart_id"]).count() == CAP


# ---------------------------------------------------------------- order edits, and the setting


@pytest.fixture
def cap_of_three():
    line_limits.configure(settings(max_lines_per_order=3))
    yield 3
    setup.configure(SETTINGS, answers=ApiAnswers())


async def test_an_order_edit_refuses_a_line_past_the_configured_cap(client, admin_headers, seeded, cap_of_three):
    # Given an order of three lines and an edit of it, with MAX_LINES_PER_ORDER=3
    order = await place(client, "EU", {"variant_t_shirt_s": 1, "variant_t_shirt_m": 1, "variant_mug_white": 1})
    edit = await new_edit(client, admin_headers, order)
    # When the edit adds a fourth line
    r = await client.post(f"/admin/order-edits/{edit['id']}/items", headers=admin_headers,
                          json={"variant_id": "variant_cap_black", "quantity": 1})
    # I expect a 400 naming the cap; more of a line it has is fine
    assert r.status_code == 400 and r.json()["message"] == "An order edit can hold at most 3 lines"
    edit = await set_quantity(client, admin_headers, edit, "variant_t_shirt_s", 4)
    assert len(edit["items"]) == 3


async def test_a_cart_refuses_a_line_past_the_configured_cap(client, seeded, cap_of_three):
    r = await client.post("/store/carts", json={"region_id": await region_id("NA"), "items": [
        {"variant_id": v, "quantity": 1} for v in ("variant_cap_black", "variant_cap_white", "variant_mug_white")
    ]})
    assert r.status_code == 200, r.text
    r = await client.post(f"/store/carts/{r.json()['cart']['id']}/line-items",
                          json={"variant_id": "variant_mug_black", "quantity": 1})
    assert r.status_code == 400 and r.json()["message"] == "A cart can hold at most 3 lines"


def test_the_cap_is_500_lines_unless_max_lines_per_order_says_otherwise():
    assert Settings.from_env({}).max_lines_per_order == CAP
    assert Settings.from_env({"MAX_LINES_PER_ORDER": "20"}).max_lines_per_order == 20
    with pytest.raises(ConfigError):
        Settings.from_env({"MAX_LINES_PER_ORDER": "0"})
