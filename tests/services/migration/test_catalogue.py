"""The moved shop's settings and catalogue: the storefront's publishable keys list the same
products as in Medusa, and the counts are the fixture's."""

from models import PriceList, Product, PublishableApiKey, Region, SalesChannel, Store
from tests.services.migration.conftest import source_fetch


async def test_each_publishable_key_lists_the_same_products_as_in_medusa(imported, medusa_source, client):
    keys = await source_fetch(medusa_source, "SELECT id FROM publishable_api_key WHERE revoked_at IS NULL")
    assert len(keys) == 4
    listed = 0
    for key in keys:
        expected = {r["id"] for r in await source_fetch(medusa_source, """
            SELECT DISTINCT p.id FROM product p
            JOIN product_sales_channel psc ON psc.product_id = p.id
            JOIN publishable_api_key_sales_channel k ON k.sales_channel_id = psc.sales_channel_id
            WHERE k.publishable_key_id = $1 AND p.status = 'published' AND p.deleted_at IS NULL""", key["id"])}
        r = await client.get("/store/products", params={"limit": 100}, headers={"x-publishable-api-key": key["id"]})
        assert r.status_code == 200, r.text
        assert {p["id"] for p in r.json()["products"]} == expected, key["id"]
        listed += len(expected)
    assert listed  # some key's channels do sell products


async def test_a_product_reads_with_its_medusa_prices(imported, medusa_source, client):
    row = (await source_fetch(medusa_source, """
        SELECT pv.id AS variant_id, pv.product_id, ma.currency_code, ma.amount FROM product_variant pv
        JOIN product_variant_money_amount pvma ON pvma.variant_id = pv.id AND pvma.deleted_at IS NULL
        JOIN money_amount ma ON ma.id = pvma.money_amount_id AND ma.price_list_id IS NULL AND ma.region_id IS NULL
        WHERE pv.deleted_at IS NULL ORDER BY pv.id LIMIT 1"""))[0]
    token = (await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})).json()
    r = await client.get(f"/admin/products/{row['product_id']}",
                         headers={"Authorization": f"Bearer {token['access_token']}"})
    assert r.status_code == 200, r.text
    variant = next(v for v in r.json()["product"]["variants"] if v["id"] == row["variant_id"])
    prices = {(p["currency_code"], p["amount"]) for p in variant["prices"]}
    assert (row["currency_code"], row["amount"]) in prices


async def test_settings_and_catalogue_counts_match_the_fixture(imported, medusa_source):
    assert await Product.filter(deleted_at=None).count() == 43
    assert await Region.filter(deleted_at=None).count() == 13
    assert await SalesChannel.filter(deleted_at=None).count() == 6
    assert await PublishableApiKey.all().count() == 4
    assert await PriceList.filter(deleted_at=None).count() == 4
    store = (await source_fetch(medusa_source, "SELECT id, default_sales_channel_id FROM store"))[0]
    assert await Store.all().values_list("id", "default_sales_channel_id") == [(store["id"], store["default_sales_channel_id"])]


async def test_json_columns_arrive_as_the_source_holds_them(imported, medusa_source):
    import json

    from models import Customer, LineItem, Order, Payment

    # metadata and payment data travel as the source's json text: read back, they are the same values
    checked = 0
    for model, table, column in ((Product, "product", "metadata"), (Customer, "customer", "metadata"),
                                 (Order, '"order"', "metadata"), (LineItem, "line_item", "metadata"),
                                 (Payment, "payment", "data")):
        rows = await source_fetch(medusa_source, f"SELECT id, {column}::text AS j FROM {table} WHERE {column} IS NOT NULL "
                                                 f"AND {column}::text NOT IN ('null', '{{}}') ORDER BY id LIMIT 5")
        for row in rows:
            ours = await model.filter(id=row["id"]).values_list(column, flat=True)
            assert ours == [json.loads(row["j"])], (table, row["id"])
            checked += 1
    assert checked >= 5
