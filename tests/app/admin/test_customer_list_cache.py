"""The admin customers list kept by its version (app/admin/customers.py, app/web/answer_cache.py):
the same bytes as a built answer, one statement when kept, a 304 for a revalidation, every change
seen on the next request whoever wrote it, and the caller checked on every request as before."""

import pytest
from tortoise import connections

from app.web.answer_cache import forget_answers
from models import Customer, CustomerGroup, Order
from services.users.users import set_user_password
from tests.cart_factories import new_cart, shopper, update_cart
from tests.conftest import count_queries
from tests.kept_answers import version_only
from tests.order_factories import place_order

ADMIN = {"email": "admin@test.com", "password": "supersecret"}
ADDRESS = {"first_name": "Jane", "last_name": "Doe", "city": "Berlin", "country_code": "de", "postal_code": "10115"}
QUERIES = [
    "limit=20", "", "limit=2&offset=1", "order=email", "q=jane", "has_account=true", "fields=email,phone",
    "expand=groups", "expand=orders", "expand=shipping_addresses,billing_address", "fields=orders.id",
    "groups[]={vip}",
]


async def _shop(client) -> dict[str, str]:
    """Customers in a group, one with an address book entry and one with an order."""
    jane, jane_headers = await shopper(client)
    r = await client.post("/store/customers/me/addresses", headers=jane_headers, json={"address": {
        **ADDRESS, "address_1": "1 Main St"}})
    assert r.status_code == 200, r.text
    vip = await CustomerGroup.create(name="vip")
    await jane.groups.add(vip)
    await Customer.create(email="guest@example.com", first_name="Gus")
    await place_order(client, email="buyer@example.com")
    return {"vip": vip.id, "jane": jane.id}


def _version_only(statements: list[str]) -> bool:
    return version_only(statements, "customer_list_version")


async def _list(client, headers: dict, query: str, **extra):
    return await client.get(f"/admin/customers?{query}", headers={**headers, **extra})


async def test_a_kept_answer_is_the_built_one_after_one_statement(client, seeded, admin_headers):
    names = await _shop(client)
    for query in (q.format(**names) for q in QUERIES):
        forget_answers()
        built = await _list(client, admin_headers, query)
        assert built.status_code == 200, (query, built.text)
        async with count_queries() as statements:
            again = await _list(client, admin_headers, query)
        assert again.status_code == 200 and again.content == built.content, query
        assert _version_only(statements), (query, statements)
        assert again.headers["etag"] == built.headers["etag"]
        assert "cache-control" not in again.headers and "cache-control" not in built.headers  # as before
    # A query written in another order is the same answer
    shuffled = await _list(client, admin_headers, "offset=1&limit=2")
    assert shuffled.content == (await _list(client, admin_headers, "limit=2&offset=1")).content


async def test_a_revalidation_is_a_304_after_one_statement(client, seeded, admin_headers):
    await _shop(client)
    first = await _list(client, admin_headers, "limit=20")
    async with count_queries() as statements:
        again = await _list(client, admin_headers, "limit=20", **{"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == first.headers["etag"] and _version_only(statements)
    other = await _list(client, admin_headers, "limit=2", **{"If-None-Match": first.headers["etag"]})
    assert other.status_code == 200 and other.headers["etag"] != first.headers["etag"]


async def test_a_bad_query_is_refused_every_time_and_not_kept(client, seeded, admin_headers):
    for _ in range(2):
        r = await _list(client, admin_headers, "expand=nope")
        assert r.status_code == 400 and "etag" not in r.headers


async def _emails(client, headers, query="limit=50", **extra) -> list[str]:
    r = await _list(client, headers, query, **extra)
    assert r.status_code == 200, r.text
    return sorted(c["email"] for c in r.json()["customers"])


async def test_changes_through_the_admin_api_show_on_the_next_request(client, seeded, admin_headers):
    names = await _shop(client)
    await _emails(client, admin_headers)
    # A customer created
    r = await client.post("/admin/customers", headers=admin_headers, json={
        "email": "new@example.com", "first_name": "New", "last_name": "One", "password": "secret-pass"})
    assert r.status_code == 201, r.text
    new = r.json()["customer"]["id"]
    assert "new@example.com" in await _emails(client, admin_headers)
    # updated
    r = await client.post(f"/admin/customers/{new}", headers=admin_headers, json={"first_name": "Renamed"})
    assert r.status_code == 200, r.text
    shown = {c["id"]: c["first_name"] for c in (await _list(client, admin_headers, "limit=50")).json()["customers"]}
    assert shown[new] == "Renamed"
    # put in a group, by the customer's update and by the group's batch
    in_vip = f"groups[]={names['vip']}&limit=50"
    before = await _emails(client, admin_headers, in_vip)
    r = await client.post(f"/admin/customers/{new}", headers=admin_headers, json={"groups": [{"id": names["vip"]}]})
    assert r.status_code == 200, r.text
    assert await _emails(client, admin_headers, in_vip) == sorted([*before, "new@example.com"])
    r = await client.request("DELETE", f"/admin/customer-groups/{names['vip']}/customers/batch",
                             headers=admin_headers, json={"customer_ids": [{"id": new}]})
    assert r.status_code == 200, r.text
    assert await _emails(client, admin_headers, in_vip) == before
    # a group renamed shows in the groups it expands
    r = await client.post(f"/admin/customer-groups/{names['vip']}", headers=admin_headers, json={"name": "gold"})
    assert r.status_code == 200, r.text
    listed = (await _list(client, admin_headers, "expand=groups&limit=50")).json()["customers"]
    assert {g["name"] for c in listed for g in c["groups"]} == {"gold"}


async def test_an_address_and_an_order_show_on_the_next_request_and_leave_the_plain_list_kept(
        client, seeded, admin_headers):
    names = await _shop(client)
    jane = await Customer.get(id=names["jane"])
    plain = await _list(client, admin_headers, "limit=50")
    books = await _list(client, admin_headers, "expand=shipping_addresses&limit=50")
    # When the customer adds an address to their book (the store's API)
    r = await client.post("/store/auth/token", json={"email": jane.email, "password": "jane-secret"})
    jane_headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    r = await client.post("/store/customers/me/addresses", headers=jane_headers, json={"address": {
        **ADDRESS, "address_1": "9 Side St"}})
    assert r.status_code == 200, r.text
    # I expect it in the list that expands addresses, and the plain list still kept
    r = await _list(client, admin_headers, "expand=shipping_addresses&limit=50",
                    **{"If-None-Match": books.headers["etag"]})
    assert r.status_code == 200
    book = next(c for c in r.json()["customers"] if c["id"] == jane.id)["shipping_addresses"]
    assert "9 Side St" in {a["address_1"] for a in book}
    assert (await _list(client, admin_headers, "limit=50", **{"If-None-Match": plain.headers["etag"]})).status_code == 304
    # And an order's change shows where orders are expanded
    orders = await _list(client, admin_headers, "expand=orders&limit=50")
    order = await Order.first()
    r = await client.post(f"/admin/orders/{order.id}/archive", headers=admin_headers)
    if r.status_code != 200:  # not archivable in its state: any writer counts the same
        await Order.filter(id=order.id).update(status="archived")
    r = await _list(client, admin_headers, "expand=orders&limit=50", **{"If-None-Match": orders.headers["etag"]})
    assert r.status_code == 200
    shown = {o["id"]: o["status"] for c in r.json()["customers"] for o in c["orders"]}
    assert shown[order.id] == "archived"


async def test_a_change_by_another_process_or_writer_shows_on_the_next_request(client, seeded, admin_headers):
    # Given a kept list (this process has cached it)
    before = await _emails(client, admin_headers)
    # When another process writes (raw SQL: nothing of this process's code runs)
    await connections.get("default").execute_query(
        "INSERT INTO customer (id, email, has_account, created_at, updated_at)"
        " VALUES ('cus_elsewhere', 'elsewhere@example.com', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
    # I expect it listed on the next request
    assert await _emails(client, admin_headers) == sorted([*before, "elsewhere@example.com"])
    # and a shopper's checkout (its email step makes a guest customer) too
    cart = await new_cart(client)
    await update_cart(client, cart, email="checkout@example.com")
    assert "checkout@example.com" in await _emails(client, admin_headers)


@pytest.mark.parametrize("tag", [False, True])
async def test_a_kept_answer_is_never_sent_to_an_unauthenticated_caller(client, seeded, admin_headers, tag):
    first = await _list(client, admin_headers, "limit=20")
    assert first.status_code == 200
    extra = {"If-None-Match": first.headers["etag"]} if tag else {}
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Cookie": "connect.sid=s%3Aforged.sig"},
                    {"x-medusa-access-token": "nope"}):
        r = await _list(client, headers, "limit=20", **extra)
        assert r.status_code == 401 and b"customers" not in r.content, headers


async def test_an_ended_session_and_a_changed_password_are_refused_on_a_kept_answer(client, seeded, admin):
    r = await client.post("/admin/auth", json=ADMIN)
    assert r.status_code == 200
    cookie = {"Cookie": f"connect.sid={client.cookies['connect.sid']}"}
    client.cookies.clear()
    token = (await client.post("/admin/auth/token", json=ADMIN)).json()["access_token"]
    bearer = {"Authorization": f"Bearer {token}"}
    kept = await _list(client, cookie, "limit=20")
    assert kept.status_code == 200 and (await _list(client, bearer, "limit=20")).content == kept.content
    # When the session signs out
    assert (await client.delete("/admin/auth", headers=cookie)).status_code == 200
    client.cookies.clear()
    # I expect the cookie refused, with or without the tag
    for extra in ({}, {"If-None-Match": kept.headers["etag"]}):
        assert (await _list(client, cookie, "limit=20", **extra)).status_code == 401
    assert (await _list(client, bearer, "limit=20")).status_code == 200
    # When the password changes, the token is refused too
    await set_user_password(ADMIN["email"], "a-new-admin-secret")
    for extra in ({}, {"If-None-Match": kept.headers["etag"]}):
        assert (await _list(client, bearer, "limit=20", **extra)).status_code == 401
