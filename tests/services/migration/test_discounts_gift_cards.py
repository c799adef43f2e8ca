"""The moved shop's discount code and gift card work in a new cart, with the balance they had."""

from tests.services.migration.conftest import source_fetch


async def test_move10_and_the_5000_gift_card_work_in_a_new_cart(imported, medusa_source, client):
    card = (await source_fetch(medusa_source, """
        SELECT code, balance, region_id FROM gift_card WHERE value = 5000 ORDER BY created_at DESC LIMIT 1"""))[0]
    variant = (await source_fetch(medusa_source, """
        SELECT pv.id, ma.amount FROM product_variant pv
        JOIN product p ON p.id = pv.product_id AND p.status = 'published' AND p.deleted_at IS NULL
        JOIN product_sales_channel psc ON psc.product_id = p.id
        JOIN store s ON s.default_sales_channel_id = psc.sales_channel_id
        JOIN product_variant_money_amount pvma ON pvma.variant_id = pv.id AND pvma.deleted_at IS NULL
        JOIN money_amount ma ON ma.id = pvma.money_amount_id AND ma.currency_code = 'usd'
          AND ma.price_list_id IS NULL AND ma.region_id IS NULL
        WHERE pv.deleted_at IS NULL ORDER BY pv.id LIMIT 1"""))[0]
    r = await client.post("/store/carts", json={
        "region_id": card["region_id"], "items": [{"variant_id": variant["id"], "quantity": 3}],
    })
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert cart["subtotal"] == 3 * variant["amount"]

    r = await client.post(f"/store/carts/{cart['id']}", json={
        "discounts": [{"code": "MOVE10"}], "gift_cards": [{"code": card["code"]}],
    })
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert [d["code"] for d in cart["discounts"]] == ["MOVE10"]
    assert cart["discount_total"] == round(cart["subtotal"] * 0.1)
    assert card["balance"] == 5000
    assert cart["gift_card_total"] == min(5000, cart["subtotal"] - cart["discount_total"] + cart["tax_total"])
