"""Amounts are 64-bit integers of minor units: sums past 2^31 - 1 are stored and
answered, and a line, cart, draft order or order edit whose amounts would leave the signed 64-bit
range is refused with a 400 naming the amount, before anything is kept."""

from __future__ import annotations

from models import Cart, Customer, DraftOrder, LineItem, MoneyAmount
from tests.cart_factories import add_item, new_cart, region_id, update_cart
from tests.checkout_factories import EU_ADDRESS
from tests.draft_order_factories import draft_body
from tests.order_edit_factories import add, new_edit, place

MAX_AMOUNT = 2**63 - 1
INT32 = 2**31 - 1
FIVE = ("variant_hoodie_m", "variant_hoodie_l", "variant_sweatshirt_s", "variant_sweatshirt_m", "variant_sweatshirt_l")


async def _rows() -> tuple[int, int, int, int]:
    return (await DraftOrder.all().count(), await Cart.all().count(), await LineItem.all().count(),
            await Customer.all().count())


async def _price(variant_id: str, currency_code: str, amount: int) -> None:
    """The variant's price in that currency becomes `amount`."""
    await MoneyAmount.filter(variant_id=variant_id, currency_code=currency_code).update(amount=amount)


def _custom(unit_price: int, quantity: int, lines: int = 1) -> list[dict]:
    return [{"title": f"Line {n}", "unit_price": unit_price, "quantity": quantity} for n in range(lines)]


async def _draft(client, headers, lines: list[dict], email: str = "phone@example.com"):
    """POST a NA draft of these custom lines, without shipping."""
    body = {**await draft_body("NA", {}, shipping=None, email=email), "items": lines}
    return await client.post("/admin/draft-orders", json=body, headers=headers)


# ---------------------------------------------------------------- sums past 32 bits are kept


async def test_a_cart_totalling_more_than_2_31_gets_payment_sessions_for_its_total(client, seeded):
    # Given an EU cart of five variants x 100,000 (EUR 18,400,000 plus 25 % tax)
    cart = await new_cart(client, "EU", {v: 100_000 for v in FIVE})
    cart = await update_cart(client, cart, email="big@example.com", shipping_address=EU_ADDRESS)
    assert cart["total"] == 2_300_000_000 > INT32
    # When its payment sessions are made
    r = await client.post(f"/store/carts/{cart['id']}/payment-sessions", json={})
    # I expect a session for the whole total, and the cart readable
    assert r.status_code == 200, r.text
    assert [s["amount"] for s in r.json()["cart"]["payment_sessions"]] == [2_300_000_000]
    assert (await client.get(f"/store/carts/{cart['id']}")).json()["cart"]["total"] == 2_300_000_000


async def test_a_draft_line_priced_beyond_32_bits_is_kept_and_read_back(client, admin_headers, seeded):
    # When staff type a price of 10^12 for three units
    r = await _draft(client, admin_headers, _custom(10**12, 3))
    assert r.status_code == 200, r.text
    draft = r.json()["draft_order"]
    # I expect the draft to total it, and to read back the same
    assert draft["cart"]["items"][0]["unit_price"] == 10**12
    assert draft["cart"]["subtotal"] == 3 * 10**12
    again = await client.get(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    assert again.status_code == 200 and again.json()["draft_order"]["cart"]["total"] == 3 * 10**12


# ---------------------------------------------------------------- beyond 64 bits is refused


async def test_a_draft_whose_lines_sum_past_64_bits_is_refused_and_leaves_no_rows(client, admin_headers, seeded):
    # Given what the store holds
    before = await _rows()
    # When staff create a draft of five lines of 2147483647 x 2147483647
    r = await _draft(client, admin_headers, _custom(INT32, INT32, lines=5), email="new-guest@example.com")
    # I expect a 400 naming the subtotal, and no draft, cart, line or guest customer kept
    assert r.status_code == 400, r.text
    assert r.json()["type"] == "invalid_data" and "subtotal" in r.json()["message"]
    assert await _rows() == before


async def test_a_single_line_past_64_bits_is_refused_naming_its_price_and_quantity(client, admin_headers, seeded):
    before = await _rows()
    r = await _draft(client, admin_headers, _custom(2**62, 2))
    assert r.status_code == 400, r.text
    assert "unit_price × quantity" in r.json()["message"]
    assert await _rows() == before


async def test_a_line_added_to_a_draft_past_64_bits_is_refused_and_the_draft_unchanged(
    client, admin_headers, seeded,
):
    # Given a draft of one line of 2^62
    draft = (await _draft(client, admin_headers, _custom(2**62, 1))).json()["draft_order"]
    # When a second line of 2^62 x 2 is added
    r = await client.post(f"/admin/draft-orders/{draft['id']}/line-items", headers=admin_headers,
                          json={"title": "More", "unit_price": 2**62, "quantity": 2})
    # I expect a 400, and the draft as it was
    assert r.status_code == 400, r.text
    again = await client.get(f"/admin/draft-orders/{draft['id']}", headers=admin_headers)
    assert again.status_code == 200 and len(again.json()["draft_order"]["cart"]["items"]) == 1


async def test_prices_and_quantities_past_their_columns_are_refused_at_the_edge(client, admin_headers, seeded):
    r = await _draft(client, admin_headers, _custom(MAX_AMOUNT + 1, 1))
    assert r.status_code == 400 and r.json()["message"] == f"unit_price must not be greater than {MAX_AMOUNT}"
    r = await _draft(client, admin_headers, _custom(1, INT32 + 1))
    assert r.status_code == 400 and r.json()["message"] == f"quantity must not be greater than {INT32}"
    r = await client.post("/store/carts", json={"items": [{"variant_id": "variant_cap_black", "quantity": INT32 + 1}]})
    assert r.status_code == 400 and "quantity must not be greater than" in r.json()["message"]


async def test_a_cart_line_that_would_take_the_cart_past_64_bits_is_refused_and_the_cart_kept(client, seeded):
    # Given two caps priced 2^62 and 2^61 in NA, sold without stock limits, and a cart of the first
    await _price("variant_cap_black", "usd", 2**62)
    await _price("variant_cap_white", "usd", 2**61)
    cart = await new_cart(client, "NA", {"variant_cap_black": 1})
    # When two of the other are added (2^62 + 2 x 2^61 > 2^63 - 1)
    r = await client.post(f"/store/carts/{cart['id']}/line-items", json={"variant_id": "variant_cap_white",
                                                                         "quantity": 2})
    # I expect a 400 naming the subtotal, and the cart readable as it was
    assert r.status_code == 400, r.text
    assert r.json()["type"] == "invalid_data" and "subtotal" in r.json()["message"]
    again = await client.get(f"/store/carts/{cart['id']}")
    assert again.status_code == 200 and again.json()["cart"]["subtotal"] == 2**62
    # And one of the other is still within range
    assert (await add_item(client, cart, "variant_cap_white", 1))["subtotal"] == 2**62 + 2**61


async def test_a_cart_created_with_lines_past_64_bits_is_refused_and_not_kept(client, seeded):
    await _price("variant_cap_black", "usd", 2**62)
    before = await Cart.all().count()
    r = await client.post("/store/carts", json={"region_id": await region_id("NA"),
                                                "items": [{"variant_id": "variant_cap_black", "quantity": 2}]})
    assert r.status_code == 400 and "unit_price × quantity" in r.json()["message"]
    assert await Cart.all().count() == before


async def test_an_order_edit_line_past_64_bits_is_refused_and_the_edit_unchanged(client, admin_headers, seeded):
    # Given an order and an edit of it, and a cap priced 2^62 in the EU
    order = await place(client)
    edit = await new_edit(client, admin_headers, order)
    await _price("variant_cap_black", "eur", 2**62)
    # When the edit adds two caps
    r = await client.post(f"/admin/order-edits/{edit['id']}/items", headers=admin_headers,
                          json={"variant_id": "variant_cap_black", "quantity": 2})
    # I expect a 400, and the edit as it was, readable
    assert r.status_code == 400, r.text
    again = await client.get(f"/admin/order-edits/{edit['id']}", headers=admin_headers)
    assert again.status_code == 200 and len(again.json()["order_edit"]["items"]) == len(edit["items"])
    # And one cap (2^62 plus 25 % tax, within range) is fine
    assert len((await add(client, admin_headers, edit, "variant_cap_black", 1))["items"]) == len(edit["items"]) + 1
