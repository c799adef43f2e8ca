"""A merchant builds a product line from the dashboard's catalogue pages, over HTTP only, and
shoppers buy it: an end-to-end story (a product with two options and four variants
priced in two currencies, edited, given an image and a category; a sale price list for a
customer group that its members see and pay while others do not; a gift-card product sold).
The export and import of products made this way is tests/app/admin/test_product_writes.py's."""

from tests.app.admin.test_uploads import PNG
from tests.checkout_factories import ADDRESS


async def call(client, method: str, path: str, headers: dict | None = None, body: dict | None = None) -> dict:
    r = await client.request(method, path, json=body, headers=headers or {})
    assert r.status_code == 200, (method, path, r.text)
    return r.json()


def variant(size: str, color: str, usd: int, eur: int) -> dict:
    return {
        "title": f"{size} / {color}", "sku": f"TEE-{size}-{color}", "inventory_quantity": 20, "manage_inventory": True,
        "prices": [{"amount": usd, "currency_code": "usd"}, {"amount": eur, "currency_code": "eur"}],
        "options": [{"value": size}, {"value": color}],
    }


async def checkout(client, headers: dict, region_id: str, variant_id: str, quantity: int) -> tuple[dict, dict]:
    """The shopper's cart of one line, taken to an order: (the cart before completion, the order)."""
    cart = (await call(client, "POST", "/store/carts", headers, {
        "region_id": region_id, "items": [{"variant_id": variant_id, "quantity": quantity}]}))["cart"]
    path = f"/store/carts/{cart['id']}"
    await call(client, "POST", path, headers, {"email": "buyer@example.com", "shipping_address": ADDRESS})
    option = (await call(client, "GET", f"/store/shipping-options/{cart['id']}", headers))["shipping_options"][0]
    await call(client, "POST", f"{path}/shipping-methods", headers, {"option_id": option["id"]})
    await call(client, "POST", f"{path}/payment-sessions", headers)
    await call(client, "POST", f"{path}/payment-session", headers, {"provider_id": "manual"})
    done = await call(client, "POST", f"{path}/complete", headers)
    assert done["type"] == "order", done
    return cart, done["data"]


def seen(product: dict, sku: str) -> dict:
    return next(v for v in product["variants"] if v["sku"] == sku)


async def signed_up(client, email: str) -> dict:
    """A shopper who made an account in the store, and the headers of their requests."""
    await call(client, "POST", "/store/customers", body={
        "email": email, "password": "secret-word", "first_name": "Ada", "last_name": "Shopper"})
    token = (await call(client, "POST", "/store/auth/token", body={"email": email, "password": "secret-word"}))
    client.cookies.clear()  # signing up also opened a cookie session, which would win over the token
    return {"Authorization": f"Bearer {token['access_token']}"}


async def test_a_merchant_builds_a_product_line_and_a_group_pays_its_sale_price(client, admin_headers, seeded):
    admin = admin_headers
    regions = {r["currency_code"]: r["id"] for r in (await call(client, "GET", "/admin/regions", admin))["regions"]}

    # Given the merchant creates a draft T-shirt with sizes and colours, priced in usd and eur
    product = (await call(client, "POST", "/admin/products", admin, {
        "title": "Organic Tee", "description": "Soft", "status": "draft",
        "options": [{"title": "Size"}, {"title": "Color"}],
        "variants": [variant("S", "Sand", 2500, 2300), variant("S", "Ink", 2500, 2300),
                     variant("M", "Sand", 2700, 2500), variant("M", "Ink", 2700, 2500)],
    }))["product"]
    assert product["handle"] == "organic-tee" and len(product["variants"]) == 4
    assert sorted(o["title"] for o in product["options"]) == ["Color", "Size"]
    path = f"/admin/products/{product['id']}"

    # ... edits it, and gives it an uploaded picture as its image and thumbnail
    r = await client.post("/admin/uploads", headers=admin, files={"files": ("tee.png", PNG, "image/png")})
    assert r.status_code == 200, r.text
    [upload] = r.json()["uploads"]
    product = (await call(client, "POST", path, admin, {
        "title": "Organic Cotton Tee", "subtitle": "Heavyweight", "images": [upload["url"]],
        "thumbnail": upload["url"], "status": "published",
    }))["product"]
    assert (product["title"], product["status"], product["thumbnail"]) == (
        "Organic Cotton Tee", "published", upload["url"])
    assert [i["url"] for i in product["images"]] == [upload["url"]]

    # ... puts it in a public category of tops
    category = (await call(client, "POST", "/admin/product-categories", admin, {
        "name": "Tops", "is_active": True, "is_internal": False}))["product_category"]
    await call(client, "POST", f"/admin/product-categories/{category['id']}/products/batch", admin,
               {"product_ids": [{"id": product["id"]}]})

    # ... and a VIP group whose members pay 2000 for the small Sand tee
    member_headers = await signed_up(client, "vip@example.com")
    guest_headers = await signed_up(client, "walk-in@example.com")
    vip_id = next(c["id"] for c in (await call(client, "GET", "/admin/customers?q=vip@example.com", admin))["customers"])
    group = (await call(client, "POST", "/admin/customer-groups", admin, {"name": "VIP"}))["customer_group"]
    await call(client, "POST", f"/admin/customer-groups/{group['id']}/customers/batch", admin,
               {"customer_ids": [{"id": vip_id}]})
    small_sand = seen(product, "TEE-S-Sand")
    sale = (await call(client, "POST", "/admin/price-lists", admin, {
        "name": "VIP week", "description": "Members only", "type": "sale", "status": "active",
        "customer_groups": [{"id": group["id"]}],
        "prices": [{"amount": 2000, "currency_code": "usd", "variant_id": small_sand["id"]}],
    }))["price_list"]
    assert sale["customer_groups"][0]["id"] == group["id"]

    # Then the store lists it in its category, priced by region
    listed = (await call(client, "GET", f"/store/products?category_id[]={category['id']}&region_id={regions['eur']}"))
    assert [p["id"] for p in listed["products"]] == [product["id"]]
    assert seen(listed["products"][0], "TEE-M-Ink")["calculated_price"] == 2500

    # ... a VIP sees the sale price, where it comes from, and the normal price beside it
    page = f"/store/products/{product['id']}?region_id={regions['usd']}"
    mine = seen((await call(client, "GET", page, member_headers))["product"], "TEE-S-Sand")
    assert (mine["original_price"], mine["calculated_price"], mine["calculated_price_type"]) == (2500, 2000, "sale")
    # ... and anyone else the normal price
    for headers in (guest_headers, {}):
        theirs = seen((await call(client, "GET", page, headers))["product"], "TEE-S-Sand")
        assert (theirs["original_price"], theirs["calculated_price"], theirs["calculated_price_type"]) == (
            2500, 2500, "default")

    # ... the VIP's cart charges the sale price through to the order, the other shopper's does not
    for headers, expected in ((member_headers, 2000), (guest_headers, 2500)):
        cart, order = await checkout(client, headers, regions["usd"], small_sand["id"], 2)
        assert [i["unit_price"] for i in cart["items"]] == [expected]
        assert [i["unit_price"] for i in order["items"]] == [expected] and order["subtotal"] == 2 * expected
    stock = seen((await call(client, "GET", path, admin))["product"], "TEE-S-Sand")["inventory_quantity"]
    assert stock == 16


async def test_a_merchant_sells_a_gift_card_product_made_in_the_dashboard(client, admin_headers, seeded):
    # Given the dashboard's "Create gift card" form with two denominations
    card = (await call(client, "POST", "/admin/products", admin_headers, {
        "is_giftcard": True, "title": "Gift Card", "discountable": False, "status": "published",
        "options": [{"title": "Denominations"}],
        "variants": [{"title": str(amount), "manage_inventory": False, "inventory_quantity": 0,
                      "prices": [{"amount": amount, "currency_code": "usd"}], "options": [{"value": str(amount)}]}
                     for amount in (2500, 10000)],
    }))["product"]
    # When a shopper finds it in the store and buys the 100 card
    listed = (await call(client, "GET", "/store/products?is_giftcard=true"))["products"]
    assert [p["id"] for p in listed] == [card["id"]]
    hundred = next(v for v in card["variants"] if v["title"] == "10000")
    usd = next(r["id"] for r in (await call(client, "GET", "/store/regions"))["regions"] if r["currency_code"] == "usd")
    _, order = await checkout(client, {}, usd, hundred["id"], 1)
    # Then the merchant sees a card worth 100 from that order, and the shopper can spend it
    cards = (await call(client, "GET", "/admin/gift-cards", admin_headers))["gift_cards"]
    [bought] = [c for c in cards if c["order_id"] == order["id"]]
    assert (bought["value"], bought["balance"]) == (10000, 10000)
    r = await client.get(f"/store/gift-cards/{bought['code']}")
    assert r.status_code == 200 and r.json()["gift_card"]["value"] == 10000
