"""Admin customers: `/admin/customers` list, create, get and update."""

import asyncio
from datetime import datetime, timezone

import pytest

from app.shapes.orders import ORDER_COLUMNS
from models import Address, Customer, CustomerGroup, Order, Region
from services.core.passwords import hash_password
from tests.conftest import count_queries, requires_postgres

CUSTOMER_COLUMNS = {
    "id", "email", "first_name", "last_name", "billing_address_id", "phone", "has_account", "metadata",
    "created_at", "updated_at", "deleted_at",
}


async def make_customer(email: str, **columns) -> Customer:
    return await Customer.create(email=email, **columns)


async def registered(email: str = "jane@example.com", password: str = "jane-secret", **columns) -> Customer:
    return await Customer.create(
        email=email, has_account=True, password_hash=hash_password(password), first_name="Jane",
        last_name="Doe", **columns,
    )


async def can_sign_in(client, email: str, password: str) -> bool:
    r = await client.post("/store/auth/token", json={"email": email, "password": password})
    return r.status_code == 200


def emails(body: dict) -> list[str]:
    return [c["email"] for c in body["customers"]]


async def orders_of(*customers: Customer, each: int = 1) -> list[Order]:
    """`each` plain order rows per customer, in one region (no lines: these tests read rows only)."""
    region = await Region.create(name="NA", currency_code="usd")
    start = (await Order.all().count()) + 1000
    orders = [
        Order(display_id=start + i * each + n, customer_id=c.id, email=c.email, region_id=region.id,
              currency_code="usd")
        for i, c in enumerate(customers) for n in range(each)
    ]
    await Order.bulk_create(orders)
    return orders


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/customers"),
    ("POST", "/admin/customers"),
    ("GET", "/admin/customers/cus_1"),
    ("POST", "/admin/customers/cus_1"),
])
async def test_every_customer_route_needs_a_signed_in_user(client, method, path):
    r = await client.request(method, path, json={"email": "a@b.co", "first_name": "A", "last_name": "B",
                                                 "password": "x"} if method == "POST" else None)
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert await Customer.all().count() == 0


# ---------------------------------------------------------------- list


async def test_list_shows_live_customers_newest_first_without_password_hashes(client, admin_headers):
    # Given a guest, a registered customer and a soft-deleted one
    await make_customer("guest@example.com", created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    jane = await registered()
    await make_customer("gone@example.com", deleted_at=datetime.now(timezone.utc))
    # When the admin lists customers
    r = await client.get("/admin/customers", headers=admin_headers)
    # I expect both live ones, newest first, in Medusa's wrapper, with no relation and no hash
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"customers", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 50)
    assert emails(body) == ["jane@example.com", "guest@example.com"]
    for customer in body["customers"]:
        assert set(customer) == CUSTOMER_COLUMNS
    assert body["customers"][0]["id"] == jane.id and body["customers"][0]["has_account"] is True
    assert b"password" not in r.content


async def test_medusa_js_lists_with_limit_twenty_and_finds_a_guest_by_email(client, admin_headers):
    # The calls @medusajs/medusa-js makes: list({limit: 20}) then list({q: email})
    for i in range(3):
        await make_customer(f"shopper{i}@example.com")
    await make_customer("New.Guest+1@Example.com".lower())
    body = (await client.get("/admin/customers?limit=20", headers=admin_headers)).json()
    assert (body["count"], body["limit"], body["offset"], len(body["customers"])) == (4, 20, 0, 4)
    body = (await client.get("/admin/customers", params={"q": "new.guest+1@example.com"}, headers=admin_headers)).json()
    assert emails(body) == ["new.guest+1@example.com"] and body["count"] == 1


async def test_q_searches_email_first_and_last_name_ignoring_case(client, admin_headers):
    await make_customer("test1@email.com", first_name="Alice", last_name="Smith")
    await make_customer("test2@email.com", first_name="Bob", last_name="Jones")
    await make_customer("other@shop.com", first_name="Carol", last_name="ALICEWORTH")

    async def search(q: str) -> list[str]:
        return sorted(emails((await client.get("/admin/customers", params={"q": q}, headers=admin_headers)).json()))

    assert await search("est2@") == ["test2@email.com"]  # Medusa's own test
    assert await search("alice") == ["other@shop.com", "test1@email.com"]
    assert await search("JONES") == ["test2@email.com"]
    assert await search("EMAIL.COM") == ["test1@email.com", "test2@email.com"]
    assert await search("nobody") == []


async def test_q_treats_like_wildcards_as_plain_characters(client, admin_headers):
    await make_customer("a_b@example.com")
    await make_customer("axb@example.com")
    await make_customer("100%@example.com")
    body = (await client.get("/admin/customers", params={"q": "a_b"}, headers=admin_headers)).json()
    assert emails(body) == ["a_b@example.com"]
    body = (await client.get("/admin/customers", params={"q": "%"}, headers=admin_headers)).json()
    assert emails(body) == ["100%@example.com"]


async def test_has_account_lists_only_registered_or_only_guests(client, admin_headers):
    await make_customer("guest@example.com")
    await registered()
    body = (await client.get("/admin/customers?has_account=true", headers=admin_headers)).json()
    assert emails(body) == ["jane@example.com"] and body["count"] == 1
    body = (await client.get("/admin/customers?has_account=false", headers=admin_headers)).json()
    assert emails(body) == ["guest@example.com"]
    body = (await client.get("/admin/customers?has_account=null", headers=admin_headers)).json()
    assert body["count"] == 2


async def test_groups_filter_lists_members_of_any_given_group_once(client, admin_headers):
    # Given a customer in two groups, one in the first only, and one in none
    vip, wholesale = await CustomerGroup.create(name="vip"), await CustomerGroup.create(name="wholesale")
    both, one, _ = [await make_customer(f"{n}@example.com") for n in ("both", "one", "none")]
    await vip.customers.add(both, one)
    await wholesale.customers.add(both)
    # When the admin filters by both groups, in both spellings
    for query in (f"groups[]={vip.id}&groups[]={wholesale.id}", f"groups[]={vip.id},{wholesale.id}"):
        body = (await client.get(f"/admin/customers?{query}", headers=admin_headers)).json()
        # I expect each member once
        assert sorted(emails(body)) == ["both@example.com", "one@example.com"] and body["count"] == 2
    body = (await client.get(f"/admin/customers?groups[]={wholesale.id}", headers=admin_headers)).json()
    assert emails(body) == ["both@example.com"]
    body = (await client.get("/admin/customers?groups[]=cgrp_unknown", headers=admin_headers)).json()
    assert body == {"customers": [], "count": 0, "offset": 0, "limit": 50}


async def test_created_at_comparisons_filter_the_list(client, admin_headers):
    await make_customer("old@example.com", created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    await make_customer("new@example.com")
    body = (await client.get("/admin/customers?created_at[lt]=2021-01-01", headers=admin_headers)).json()
    assert emails(body) == ["old@example.com"]
    body = (await client.get("/admin/customers?created_at[gte]=2021-01-01T00:00:00Z", headers=admin_headers)).json()
    assert emails(body) == ["new@example.com"]
    body = (await client.get("/admin/customers?updated_at[gt]=1600000000", headers=admin_headers)).json()
    assert body["count"] == 2


async def test_order_sorts_by_an_allowed_column_and_pages(client, admin_headers):
    for name in ("carol", "alice", "bob"):
        await make_customer(f"{name}@example.com")
    body = (await client.get("/admin/customers?order=email", headers=admin_headers)).json()
    assert emails(body) == ["alice@example.com", "bob@example.com", "carol@example.com"]
    body = (await client.get("/admin/customers?order=-email&limit=1&offset=1", headers=admin_headers)).json()
    assert emails(body) == ["bob@example.com"] and (body["count"], body["limit"], body["offset"]) == (3, 1, 1)


async def test_expand_loads_addresses_billing_address_and_groups(client, admin_headers):
    # Given a customer with two shipping addresses (one deleted), a billing address and a group
    jane = await registered()
    home = await Address.create(customer=jane, address_1="1 Main St", city="Berlin", country_code="de")
    await Address.create(customer=jane, address_1="old", deleted_at=datetime.now(timezone.utc))
    billing = await Address.create(address_1="Billing 2", city="Paris", country_code="fr")
    jane.billing_address_id = billing.id
    await jane.save(update_fields=["billing_address_id"])
    vip = await CustomerGroup.create(name="vip")
    await vip.customers.add(jane)
    await make_customer("guest@example.com")
    # When the list is expanded
    r = await client.get("/admin/customers?expand=shipping_addresses,billing_address,groups&order=email",
                         headers=admin_headers)
    # I expect each relation, live rows only, and empty values for the guest
    assert r.status_code == 200
    guest, jane_json = r.json()["customers"]
    assert set(jane_json) == CUSTOMER_COLUMNS | {"shipping_addresses", "billing_address", "groups"}
    assert [a["id"] for a in jane_json["shipping_addresses"]] == [home.id]
    assert jane_json["billing_address"]["id"] == billing.id and jane_json["billing_address"]["city"] == "Paris"
    assert [g["name"] for g in jane_json["groups"]] == ["vip"]
    assert (guest["shipping_addresses"], guest["billing_address"], guest["groups"]) == ([], None, [])


async def test_fields_is_honoured_where_medusa_ignores_it(client, admin_headers):
    await registered()
    body = (await client.get("/admin/customers?fields=email,first_name", headers=admin_headers)).json()
    assert set(body["customers"][0]) == {"id", "created_at", "email", "first_name"}
    body = (await client.get("/admin/customers?fields=email&expand=groups", headers=admin_headers)).json()
    assert set(body["customers"][0]) == {"id", "created_at", "email", "groups"}


@pytest.mark.parametrize("query,message", [
    ("expand=notes", "Requested relations [notes] are not valid"),
    ("fields=password_hash", "Requested fields [password_hash] are not valid"),
    ("order=password_hash", "Order field password_hash is not valid"),
    ("has_account=maybe", "has_account must be a boolean value"),
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
    ("created_at[lt]=not-a-date", "lt must be a date (ISO 8601) or unix seconds"),
    ("email=jane@example.com", "property email should not exist"),
])
async def test_bad_list_queries_are_a_400_naming_the_problem(client, admin_headers, query, message):
    r = await client.get(f"/admin/customers?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_as_many_statements_for_fifty_customers_as_for_one(client, admin_headers):
    # Given 55 customers, each with an address, a billing address and two groups
    groups = [await CustomerGroup.create(name=f"group {i}") for i in range(2)]
    customers = [Customer(email=f"c{i:02}@example.com", first_name=f"C{i}") for i in range(55)]
    await Customer.bulk_create(customers)
    addresses = [Address(customer_id=c.id, address_1=f"{i} Road") for i, c in enumerate(customers)]
    billing = [Address(address_1=f"{i} Billing Road") for i in range(55)]
    await Address.bulk_create(addresses + billing)
    for customer, address in zip(customers, billing):
        await Customer.filter(id=customer.id).update(billing_address_id=address.id)
    saved = await Customer.all()
    for group in groups:
        await group.customers.add(*saved)
    expand = "expand=shipping_addresses,billing_address,groups"
    # When a page of one and a page of fifty are read (both full, so both count)
    async with count_queries() as one:
        r1 = await client.get(f"/admin/customers?limit=1&{expand}", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get(f"/admin/customers?limit=50&{expand}", headers=admin_headers)
    # I expect the same statements, whatever the page size
    assert r1.json()["count"] == 55 and len(r1.json()["customers"]) == 1
    page = r50.json()["customers"]
    assert r50.json()["count"] == 55 and len(page) == 50
    assert all(len(c["shipping_addresses"]) == 1 and c["billing_address"] and len(c["groups"]) == 2 for c in page)
    assert one and len(fifty) == len(one), (one, fifty)


async def test_the_dashboards_expand_orders_shows_each_customers_orders_as_rows(client, admin_headers):
    # Given a customer with two orders and a guest with none
    jane = await registered()
    guest = await make_customer("guest@example.com", created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    first, second = await orders_of(jane, each=2)
    # When the dashboard's customer list asks for them (it shows how many each customer has)
    r = await client.get("/admin/customers?expand=orders&offset=0&limit=15", headers=admin_headers)
    # I expect every order of each customer, as order rows: columns and `object`, no lines, no totals
    assert r.status_code == 200, r.text
    jane_json, guest_json = r.json()["customers"]
    assert set(jane_json) == CUSTOMER_COLUMNS | {"orders"} and guest_json["orders"] == []
    assert sorted(o["id"] for o in jane_json["orders"]) == sorted([first.id, second.id])
    for order in jane_json["orders"]:
        assert set(order) == set(ORDER_COLUMNS) | {"object"} and order["object"] == "order"
        assert order["customer_id"] == jane.id and order["status"] == "pending" and order["currency_code"] == "usd"
    assert guest.id == guest_json["id"]


async def test_list_with_orders_runs_as_many_statements_for_fifty_customers_as_for_one(client, admin_headers):
    customers = [Customer(email=f"c{i:02}@example.com") for i in range(55)]
    await Customer.bulk_create(customers)
    await orders_of(*customers, each=2)
    async with count_queries() as one:
        r1 = await client.get("/admin/customers?limit=1&expand=orders", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get("/admin/customers?limit=50&expand=orders", headers=admin_headers)
    assert [len(c["orders"]) for c in r1.json()["customers"]] == [2]
    assert [len(c["orders"]) for c in r50.json()["customers"]] == [2] * 50
    assert one and len(fifty) == len(one), (one, fifty)


async def test_a_groups_customers_may_show_their_orders_too(client, admin_headers):
    jane = await registered()
    vip = await CustomerGroup.create(name="vip")
    await vip.customers.add(jane)
    [order] = await orders_of(jane)
    r = await client.get(f"/admin/customer-groups/{vip.id}/customers?expand=orders", headers=admin_headers)
    assert r.status_code == 200 and [o["id"] for o in r.json()["customers"][0]["orders"]] == [order.id]


# ---------------------------------------------------------------- create


async def test_create_registers_a_customer_with_a_lower_cased_email_and_a_hashed_password(client, admin_headers):
    r = await client.post("/admin/customers", headers=admin_headers, json={
        "email": "New.Customer@Example.COM", "first_name": "New", "last_name": "Customer",
        "password": "s3cret-pass", "phone": "+45 1234", "metadata": {"source": "admin"},
    })
    assert r.status_code == 201
    assert set(r.json()) == {"customer"}
    customer = r.json()["customer"]
    assert set(customer) == CUSTOMER_COLUMNS and b"password" not in r.content
    assert customer["id"].startswith("cus_")
    assert (customer["email"], customer["first_name"], customer["last_name"], customer["phone"]) == (
        "new.customer@example.com", "New", "Customer", "+45 1234"
    )
    assert customer["has_account"] is True and customer["metadata"] == {"source": "admin"}
    stored = await Customer.get(id=customer["id"])
    assert stored.password_hash and stored.password_hash != "s3cret-pass"
    assert await can_sign_in(client, "new.customer@example.com", "s3cret-pass")


@pytest.mark.parametrize("body,message", [
    ({}, "email should not be empty, first_name should not be empty, last_name should not be empty, "
         "password should not be empty"),
    ({"email": "not-an-email", "first_name": "A", "last_name": "B", "password": "x"}, "email must be an email"),
    ({"email": "a@b.co", "first_name": 1, "last_name": "B", "password": "x"}, "first_name must be a string"),
    ({"email": "a@b.co", "first_name": "A", "last_name": "B", "password": ""}, "password should not be empty"),
    ({"email": "a@b.co", "first_name": "A", "last_name": "B", "password": "x", "metadata": "x"},
     "metadata must be an object"),
    ({"email": "a@b.co", "first_name": "A", "last_name": "B", "password": "x", "has_account": False},
     "property has_account should not exist"),
])
async def test_create_with_bad_input_is_a_400_and_writes_nothing(client, admin_headers, body, message):
    r = await client.post("/admin/customers", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await Customer.all().count() == 0


async def test_create_with_the_email_of_a_registered_customer_is_a_422(client, admin_headers):
    await registered("jane@example.com")
    r = await client.post("/admin/customers", headers=admin_headers, json={
        "email": "JANE@example.com", "first_name": "J", "last_name": "D", "password": "other",
    })
    assert r.status_code == 422
    assert r.json() == {
        "type": "duplicate_error", "code": "invalid_request_error",
        "message": "A customer with the given email already has an account. Log in instead",
    }
    assert await Customer.all().count() == 1


async def test_a_guest_with_the_same_email_does_not_block_registration(client, admin_headers):
    guest = await make_customer("jane@example.com")
    r = await client.post("/admin/customers", headers=admin_headers, json={
        "email": "jane@example.com", "first_name": "Jane", "last_name": "Doe", "password": "pw",
    })
    assert r.status_code == 201 and r.json()["customer"]["id"] != guest.id
    rows = await Customer.filter(email="jane@example.com").order_by("has_account")
    assert [c.has_account for c in rows] == [False, True]


@requires_postgres("needs concurrent transactions")
async def test_two_simultaneous_registrations_of_one_email_make_one_customer(client, admin_headers):
    # Given two admins registering the same email at the same moment
    body = {"email": "race@example.com", "first_name": "R", "last_name": "C", "password": "pw"}
    # When both requests run together
    responses = await asyncio.gather(*(client.post("/admin/customers", headers=admin_headers, json=body)
                                       for _ in range(4)))
    # I expect exactly one 201, the others a 422 duplicate, and one row
    assert sorted(r.status_code for r in responses) == [201, 422, 422, 422]
    assert {r.json()["type"] for r in responses if r.status_code == 422} == {"duplicate_error"}
    assert await Customer.filter(email="race@example.com").count() == 1


# ---------------------------------------------------------------- get


async def test_get_shows_the_customer_with_orders_and_shipping_addresses_by_default(client, admin_headers):
    jane = await registered()
    home = await Address.create(customer=jane, address_1="1 Main St", city="Berlin", country_code="de")
    r = await client.get(f"/admin/customers/{jane.id}", headers=admin_headers)
    assert r.status_code == 200
    customer = r.json()["customer"]
    assert set(customer) == CUSTOMER_COLUMNS | {"orders", "shipping_addresses"} and b"password" not in r.content
    assert customer["orders"] == []
    assert customer["id"] == jane.id and customer["deleted_at"] is None and customer["metadata"] is None
    [address] = customer["shipping_addresses"]
    assert address["id"] == home.id and address["customer_id"] == jane.id and address["city"] == "Berlin"


async def test_the_customer_page_gets_the_customers_orders_without_asking(client, admin_headers):
    # The dashboard's customer page reads `customer.orders.length` from a plain GET
    jane = await registered()
    await make_customer("other@example.com")
    orders = await orders_of(jane, each=3)
    r = await client.get(f"/admin/customers/{jane.id}", headers=admin_headers)
    assert r.status_code == 200
    shown = r.json()["customer"]["orders"]
    assert sorted(o["id"] for o in shown) == sorted(o.id for o in orders)
    assert all(o["object"] == "order" and o["display_id"] >= 1000 for o in shown)
    # each row's values as the order's own route shows them (dates, metadata, numbers)
    for row in shown:
        own = (await client.get(f"/admin/orders/{row['id']}", headers=admin_headers)).json()["order"]
        assert {c: row[c] for c in row if c != "object"} == {c: own[c] for c in row if c != "object"}
    r = await client.get(f"/admin/customers/{jane.id}?expand=orders,groups", headers=admin_headers)
    assert set(r.json()["customer"]) == CUSTOMER_COLUMNS | {"orders", "groups"}


async def test_get_expand_replaces_the_default_relations_and_fields_selects_columns(client, admin_headers):
    # Medusa's own test: expand=billing_address,groups gives those two and no shipping_addresses
    jane = await registered()
    r = await client.get(f"/admin/customers/{jane.id}?expand=billing_address,groups", headers=admin_headers)
    customer = r.json()["customer"]
    assert set(customer) == CUSTOMER_COLUMNS | {"billing_address", "groups"}
    assert customer["billing_address"] is None and customer["groups"] == []
    r = await client.get(f"/admin/customers/{jane.id}?fields=email&expand=", headers=admin_headers)
    assert r.json() == {"customer": {"id": jane.id, "email": "jane@example.com"}}


async def test_get_unknown_or_deleted_customer_is_a_404(client, admin_headers):
    gone = await make_customer("gone@example.com", deleted_at=datetime.now(timezone.utc))
    for customer_id in ("cus_missing", gone.id):
        r = await client.get(f"/admin/customers/{customer_id}", headers=admin_headers)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Customer with id: {customer_id} was not found"}


async def test_get_with_a_bad_query_is_a_400(client, admin_headers):
    jane = await registered()
    for query, message in (("expand=notes", "Requested relations [notes] are not valid"),
                           ("q=jane", "property q should not exist")):
        r = await client.get(f"/admin/customers/{jane.id}?{query}", headers=admin_headers)
        assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": message}


# ---------------------------------------------------------------- update


async def test_update_changes_names_phone_and_merges_metadata(client, admin_headers):
    guest = await make_customer("guest@example.com", first_name="G", phone="1",
                                metadata={"keep": 1, "drop": "x", "nulled": "y"})
    r = await client.post(f"/admin/customers/{guest.id}", headers=admin_headers, json={
        "first_name": "Greta", "last_name": "Guest", "phone": None,
        "metadata": {"drop": "", "nulled": None, "new": "v"},
    })
    assert r.status_code == 200
    customer = r.json()["customer"]
    assert set(customer) == CUSTOMER_COLUMNS | {"orders", "shipping_addresses"}
    assert (customer["first_name"], customer["last_name"], customer["phone"]) == ("Greta", "Guest", None)
    assert customer["metadata"] == {"keep": 1, "nulled": None, "new": "v"}
    assert customer["email"] == "guest@example.com"
    stored = await Customer.get(id=guest.id)
    assert (stored.first_name, stored.phone, stored.metadata["new"]) == ("Greta", None, "v")


async def test_update_lower_cases_a_guests_new_email(client, admin_headers):
    # Medusa v1 keeps the case on update (QUIRK); sign-in and look-ups compare lower-case emails
    guest = await make_customer("guest@example.com")
    r = await client.post(f"/admin/customers/{guest.id}", headers=admin_headers, json={"email": "Renamed@Example.com"})
    assert r.status_code == 200 and r.json()["customer"]["email"] == "renamed@example.com"


async def test_a_registered_customers_email_cannot_be_changed(client, admin_headers):
    jane = await registered()
    r = await client.post(f"/admin/customers/{jane.id}", headers=admin_headers,
                          json={"email": "other@example.com", "first_name": "Changed"})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data",
                        "message": "Email cannot be changed when the user has registered their account"}
    assert (await Customer.get(id=jane.id)).first_name == "Jane"
    # Sending the email it already has is not a change (an edit form sends every field)
    r = await client.post(f"/admin/customers/{jane.id}", headers=admin_headers,
                          json={"email": "Jane@Example.com", "first_name": "Janet"})
    assert r.status_code == 200 and r.json()["customer"]["first_name"] == "Janet"


async def test_a_guest_cannot_take_another_guests_email(client, admin_headers):
    await make_customer("taken@example.com")
    guest = await make_customer("guest@example.com")
    r = await client.post(f"/admin/customers/{guest.id}", headers=admin_headers, json={"email": "taken@example.com"})
    assert r.status_code == 422 and r.json()["type"] == "duplicate_error"
    assert (await Customer.get(id=guest.id)).email == "guest@example.com"


async def test_update_re_hashes_the_password(client, admin_headers):
    jane = await registered(password="old-password")
    r = await client.post(f"/admin/customers/{jane.id}", headers=admin_headers, json={"password": "new-password"})
    assert r.status_code == 200 and b"password" not in r.content
    assert await can_sign_in(client, "jane@example.com", "new-password")
    assert not await can_sign_in(client, "jane@example.com", "old-password")


async def test_groups_replace_the_whole_membership(client, admin_headers):
    jane = await registered()
    a, b, c = [await CustomerGroup.create(name=n) for n in ("a", "b", "c")]
    await a.customers.add(jane)

    async def set_groups(groups) -> list[str]:
        r = await client.post(f"/admin/customers/{jane.id}?expand=groups", headers=admin_headers,
                              json={"groups": groups})
        assert r.status_code == 200
        return sorted(g["name"] for g in r.json()["customer"]["groups"])

    assert await set_groups([{"id": b.id}, {"id": c.id}]) == ["b", "c"]
    assert await set_groups([{"id": b.id}, {"id": b.id}]) == ["b"]
    assert await set_groups([]) == []
    assert await b.customers.all().count() == 0


async def test_an_unknown_group_is_a_404_naming_it_and_changes_nothing(client, admin_headers):
    jane = await registered()
    vip = await CustomerGroup.create(name="vip")
    await vip.customers.add(jane)
    gone = await CustomerGroup.create(name="gone", deleted_at=datetime.now(timezone.utc))
    for missing in ("fake-group-0", gone.id):
        r = await client.post(f"/admin/customers/{jane.id}", headers=admin_headers,
                              json={"first_name": "Changed", "groups": [{"id": missing}]})
        assert r.status_code == 404
        assert r.json() == {"type": "not_found",
                            "message": f"Customer_group with customer_group_id {missing} does not exist."}
    stored = await Customer.get(id=jane.id).prefetch_related("groups")
    assert stored.first_name == "Jane" and [g.id for g in stored.groups] == [vip.id]


async def test_update_honours_expand_and_fields(client, admin_headers):
    jane = await registered()
    r = await client.post(f"/admin/customers/{jane.id}?fields=first_name&expand=groups", headers=admin_headers,
                          json={"first_name": "Janet"})
    assert r.json() == {"customer": {"id": jane.id, "first_name": "Janet", "groups": []}}


@pytest.mark.parametrize("body,message", [
    ({"email": None}, "email must be a string"),
    ({"email": "nope"}, "email must be an email"),
    ({"password": ""}, "password should not be empty"),
    ({"groups": ["cgrp_1"]}, "groups must be an object"),
    ({"groups": [{"name": "vip"}]}, "id should not be empty, property name should not exist"),
    ({"has_account": False}, "property has_account should not exist"),
    ({"metadata": []}, "metadata must be an object"),
])
async def test_update_with_bad_input_is_a_400_and_changes_nothing(client, admin_headers, body, message):
    jane = await registered()
    r = await client.post(f"/admin/customers/{jane.id}", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert (await Customer.get(id=jane.id)).updated_at == jane.updated_at


async def test_update_of_an_unknown_customer_is_a_404(client, admin_headers):
    r = await client.post("/admin/customers/cus_missing", headers=admin_headers, json={"first_name": "X"})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Customer with id: cus_missing was not found"}
