"""Cross-site request forgery: bodies are JSON only, and a write authenticated by the
session cookie is accepted only from an allowed origin of its interface (STORE_CORS, ADMIN_CORS)."""

import pytest

from models import Cart, Customer, GiftCard
from services.users.users import issue_api_token
from tests.account_factories import forget_rate_limits, region
from tests.cart_factories import new_cart, update_cart
from tests.conftest import SETTINGS

STORE_ORIGIN = SETTINGS.store_cors[0]
ADMIN_ORIGIN = "http://localhost:7001"  # the admin dashboard's, in the default ADMIN_CORS
EVIL_ORIGIN = "https://evil.example"
ADMIN = {"email": "admin@test.com", "password": "supersecret"}
SHOPPER = {"email": "jane@example.com", "password": "old-password", "first_name": "Jane", "last_name": "Doe"}
CSV_FILE = {"files": ("a.csv", b"a,b\n", "text/csv")}
FORBIDDEN = {"type": "not_allowed",
             "message": "Cross-site request refused: the origin is not allowed to write with the session cookie"}


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    yield
    await forget_rate_limits()


@pytest.fixture
async def shopper_cookie(client):
    """A customer signed in by the session cookie (in the client's jar)."""
    r = await client.post("/store/customers", json=SHOPPER)
    assert r.status_code == 200 and "connect.sid" in client.cookies
    return r.json()["customer"]["id"]


@pytest.fixture
async def admin_cookie(client, admin):
    """An admin signed in by the session cookie (in the client's jar)."""
    assert (await client.post("/admin/auth", json=ADMIN)).status_code == 200 and "connect.sid" in client.cookies


async def first_name(customer_id: str) -> str:
    return (await Customer.get(id=customer_id)).first_name


# ---------------------------------------------------------------- bodies are JSON


async def test_a_text_plain_body_from_a_form_is_a_415_and_changes_nothing(client, shopper_cookie):
    # Given a signed-in shopper, when another site's form posts JSON-looking text/plain
    r = await client.post("/store/customers/me", content=b'{"password": "pwned", "first_name": "Mallory"}',
                          headers={"content-type": "text/plain"})
    # Then it is refused before the handler reads it
    assert r.status_code == 415 and r.headers["content-type"].startswith("application/json")
    assert r.json() == {"type": "invalid_data",
                        "message": "The request body must be JSON (Content-Type: application/json)"}
    assert await first_name(shopper_cookie) == "Jane"
    client.cookies.clear()
    assert (await client.post("/store/auth", json={"email": SHOPPER["email"], "password": "old-password"})
            ).status_code == 200


@pytest.mark.parametrize("content_type", [
    None, "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "application/jsonp", "text/json",
])
async def test_a_body_that_is_not_declared_json_is_a_415(client, admin_headers, content_type):
    headers = {**admin_headers, **({"content-type": content_type} if content_type else {})}
    r = await client.post("/admin/gift-cards", content=b'{"value": 50000, "region_id": "reg_x"}', headers=headers)
    assert r.status_code == 415 and r.json()["type"] == "invalid_data"
    assert await GiftCard.all().count() == 0


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
    "application/merge-patch+json",
])
async def test_json_with_parameters_or_a_json_suffix_is_accepted(client, shopper_cookie, content_type):
    r = await client.post("/store/customers/me", content=b'{"first_name": "Janet"}',
                          headers={"content-type": content_type})
    assert r.status_code == 200, r.text
    assert await first_name(shopper_cookie) == "Janet"


async def test_a_write_without_a_body_needs_no_content_type(client, admin_cookie):
    await region()
    r = await client.post("/store/carts")
    assert r.status_code == 200 and "content-type" not in r.request.headers
    assert (await client.delete("/admin/auth")).status_code == 200


async def test_uploads_still_take_multipart(client, admin_headers):
    r = await client.post("/admin/uploads", files=CSV_FILE, headers=admin_headers)
    assert r.status_code == 200 and len(r.json()["uploads"]) == 1


# ---------------------------------------------------------------- cookie writes come from allowed origins


async def test_a_cookie_write_from_another_site_is_a_403_and_changes_nothing(client, shopper_cookie):
    r = await client.post("/store/customers/me", json={"first_name": "Mallory"}, headers={"Origin": EVIL_ORIGIN})
    assert r.status_code == 403 and r.json() == FORBIDDEN
    assert await first_name(shopper_cookie) == "Jane"


async def test_an_admin_cookie_write_from_another_site_creates_no_gift_card(client, admin_cookie):
    eu = await region("EU")
    r = await client.post("/admin/gift-cards", json={"value": 50000, "region_id": eu.id},
                          headers={"Origin": EVIL_ORIGIN})
    assert r.status_code == 403 and r.json() == FORBIDDEN
    assert await GiftCard.all().count() == 0
    # the same request from the admin dashboard is fine
    r = await client.post("/admin/gift-cards", json={"value": 500, "region_id": eu.id},
                          headers={"Origin": ADMIN_ORIGIN})
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == ADMIN_ORIGIN


@pytest.mark.parametrize("method,path", [
    ("DELETE", "/admin/auth"), ("POST", "/admin/customers"), ("DELETE", "/admin/customer-groups/cgrp_x"),
])
async def test_every_state_changing_method_is_checked(client, admin_cookie, method, path):
    r = await client.request(method, path, headers={"Origin": EVIL_ORIGIN})
    assert r.status_code == 403 and r.json() == FORBIDDEN
    assert (await client.get("/admin/auth")).status_code == 200  # still signed in


async def test_without_origin_the_referer_decides(client, shopper_cookie):
    r = await client.post("/store/customers/me", json={"first_name": "Mallory"},
                          headers={"Referer": f"{EVIL_ORIGIN}/win-a-prize?x=1"})
    assert r.status_code == 403 and r.json() == FORBIDDEN
    r = await client.post("/store/customers/me", json={"first_name": "Janet"},
                          headers={"Referer": f"{STORE_ORIGIN}/account/profile"})
    assert r.status_code == 200 and await first_name(shopper_cookie) == "Janet"


async def test_an_opaque_origin_is_refused(client, shopper_cookie):
    # a sandboxed frame or a page with `Referrer-Policy: no-referrer` sends `Origin: null`
    r = await client.post("/store/customers/me", json={"first_name": "Mallory"}, headers={"Origin": "null"})
    assert r.status_code == 403 and await first_name(shopper_cookie) == "Jane"


async def test_each_interface_allows_only_its_own_origins(client, shopper_cookie, admin):
    r = await client.post("/store/customers/me", json={"first_name": "Mallory"}, headers={"Origin": ADMIN_ORIGIN})
    assert r.status_code == 403
    r = await client.post("/store/customers/me", json={"first_name": "Janet"}, headers={"Origin": STORE_ORIGIN})
    assert r.status_code == 200 and await first_name(shopper_cookie) == "Janet"
    await client.post("/admin/auth", json=ADMIN)
    r = await client.post("/admin/customers", json={"email": "x@y.co", "first_name": "X", "last_name": "Y"},
                          headers={"Origin": STORE_ORIGIN})
    assert r.status_code == 403


async def test_a_same_origin_page_may_write_with_the_cookie(client, shopper_cookie):
    # e.g. the admin dashboard served by this host; a browser sets Origin, a page cannot
    r = await client.post("/store/customers/me", json={"first_name": "Janet"},
                          headers={"Origin": str(client.base_url)})
    assert r.status_code == 200 and await first_name(shopper_cookie) == "Janet"


async def test_a_cookie_write_without_origin_or_referer_is_accepted(client, shopper_cookie):
    # curl with a cookie jar, a server-side client: no browser, so no forgery
    r = await client.post("/store/customers/me", json={"first_name": "Janet"})
    assert r.status_code == 200 and await first_name(shopper_cookie) == "Janet"


async def test_bearer_and_api_token_writes_are_not_checked_for_origin(client, admin, admin_headers):
    eu = await region("EU")
    r = await client.post("/admin/gift-cards", json={"value": 100, "region_id": eu.id},
                          headers={**admin_headers, "Origin": EVIL_ORIGIN})
    assert r.status_code == 200
    token = await issue_api_token(admin.email)
    r = await client.post("/admin/gift-cards", json={"value": 100, "region_id": eu.id},
                          headers={"x-medusa-access-token": token, "Origin": EVIL_ORIGIN})
    assert r.status_code == 200
    assert await GiftCard.all().count() == 2


async def test_a_cookie_upload_from_another_site_is_a_403(client, admin_cookie):
    r = await client.post("/admin/uploads", files=CSV_FILE, headers={"Origin": EVIL_ORIGIN})
    assert r.status_code == 403 and r.json() == FORBIDDEN
    r = await client.post("/admin/uploads", files=CSV_FILE, headers={"Origin": ADMIN_ORIGIN})
    assert r.status_code == 200


# ---------------------------------------------------------------- reads that would write


async def someone_elses_cart(client) -> str:
    """A guest's cart (an attacker's), made without the shopper's cookie, which stays in the jar."""
    jar = dict(client.cookies)
    client.cookies.clear()
    cart = await update_cart(client, await new_cart(client, "NA", {"variant_cap_black": 1}),
                             email="mallory@evil.example")
    client.cookies.update(jar)
    return cart["id"]


@pytest.mark.parametrize("headers", [
    {"Referer": f"{EVIL_ORIGIN}/cute-cats"},  # an <img> on another site
    {"Sec-Fetch-Site": "cross-site"},  # the same, on a page with `Referrer-Policy: no-referrer`
    {"Sec-Fetch-Site": "same-site"},  # a sibling host, unknown to STORE_CORS, hiding its referrer
    {"Origin": EVIL_ORIGIN},  # a script's fetch (its answer unreadable there, but the write would stay)
    {"Origin": "null"},
    {"Origin": ADMIN_ORIGIN, "Sec-Fetch-Site": "same-site"},  # not an origin of /store
])
async def test_a_cross_site_read_of_a_cart_does_not_make_it_the_visitors(client, seeded, shopper_cookie, headers):
    # Given an attacker's cart, and a shopper signed in by the cookie
    cart_id = await someone_elses_cart(client)
    # When another site makes the shopper's browser read it
    r = await client.get(f"/store/carts/{cart_id}", headers=headers)
    # I expect the cart as anyone holding its id sees it, still the attacker's, with nothing of the shopper
    mallory = await Customer.get(email="mallory@evil.example")
    assert r.status_code == 200
    assert (r.json()["cart"]["customer_id"], r.json()["cart"]["email"]) == (mallory.id, "mallory@evil.example")
    assert shopper_cookie not in r.text and SHOPPER["email"] not in r.text
    cart = await Cart.get(id=cart_id)
    assert (cart.customer_id, cart.email) == (mallory.id, "mallory@evil.example")


@pytest.mark.parametrize("headers", [
    {"Origin": STORE_ORIGIN, "Sec-Fetch-Site": "same-site"},  # medusa-js in the storefront's pages
    {"Origin": STORE_ORIGIN, "Sec-Fetch-Site": "cross-site"},  # a storefront on another site, in STORE_CORS
    {"Referer": f"{STORE_ORIGIN}/cart", "Sec-Fetch-Site": "same-site"},
    {"Sec-Fetch-Site": "same-origin"},  # a page this server serves
    {"Sec-Fetch-Site": "none"},  # the shopper typed the address
])
async def test_a_read_from_the_storefront_makes_the_cart_the_shoppers(client, seeded, shopper_cookie, headers):
    cart_id = await someone_elses_cart(client)
    r = await client.get(f"/store/carts/{cart_id}", headers=headers)
    assert r.status_code == 200 and r.json()["cart"]["customer_id"] == shopper_cookie
    assert r.json()["cart"]["email"] == SHOPPER["email"]


async def test_a_cookie_read_with_no_origin_referer_nor_fetch_site_only_reads_and_a_write_adopts(
        client, seeded, shopper_cookie):
    # Given an attacker's cart, and a browser that sends none of the three headers on another
    # site's <img> (Safari before 16.4 on a page with `Referrer-Policy: no-referrer`)
    cart_id = await someone_elses_cart(client)
    # When it reads the cart with the shopper's cookie
    r = await client.get(f"/store/carts/{cart_id}")
    # I expect the cart only read
    assert r.status_code == 200 and r.json()["cart"]["email"] == "mallory@evil.example"
    assert (await Cart.get(id=cart_id)).customer_id != shopper_cookie
    # A client of the shopper's own with the cookie (curl, server code) adopts it by a write, as in Medusa
    r = await client.post(f"/store/carts/{cart_id}", json={})
    assert r.status_code == 200 and r.json()["cart"]["customer_id"] == shopper_cookie, r.text


async def test_a_bearer_read_from_anywhere_makes_the_cart_the_shoppers(client, seeded, shopper_cookie):
    # A token in a header is sent by the client's own code, never by another site's <img>
    r = await client.post("/store/auth/token", json={"email": SHOPPER["email"], "password": SHOPPER["password"]})
    cart_id = await someone_elses_cart(client)
    client.cookies.clear()
    r = await client.get(f"/store/carts/{cart_id}", headers={
        "Authorization": f"Bearer {r.json()['access_token']}", "Referer": f"{EVIL_ORIGIN}/x",
        "Sec-Fetch-Site": "cross-site",
    })
    assert r.status_code == 200 and r.json()["cart"]["customer_id"] == shopper_cookie


# ---------------------------------------------------------------- login CSRF


@pytest.mark.parametrize("path,body", [
    ("/admin/auth", ADMIN),
    ("/store/auth", {"email": SHOPPER["email"], "password": SHOPPER["password"]}),
    ("/store/customers", {**SHOPPER, "email": "other@example.com"}),
])
async def test_a_sign_in_from_another_site_is_a_403_and_starts_no_session(client, admin, path, body):
    await client.post("/store/customers", json=SHOPPER)
    client.cookies.clear()
    r = await client.post(path, json=body, headers={"Origin": EVIL_ORIGIN})
    assert r.status_code == 403 and r.json() == FORBIDDEN
    assert "set-cookie" not in r.headers and "connect.sid" not in client.cookies
    assert await Customer.filter(email="other@example.com").count() == 0


async def test_a_sign_in_from_an_allowed_origin_or_without_one_works(client, admin):
    r = await client.post("/admin/auth", json=ADMIN, headers={"Origin": ADMIN_ORIGIN})
    assert r.status_code == 200 and "connect.sid" in client.cookies
    client.cookies.clear()
    r = await client.post("/admin/auth", json=ADMIN)  # medusa-js in Node sends no Origin
    assert r.status_code == 200 and "connect.sid" in client.cookies
