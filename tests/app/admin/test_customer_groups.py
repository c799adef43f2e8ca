"""Admin customer groups: `/admin/customer-groups`, their members and batch membership changes."""

import asyncio
from datetime import datetime, timezone

import pytest

from models import Address, Customer, CustomerGroup
from tests.conftest import count_queries, requires_postgres

GROUP_COLUMNS = {"id", "name", "metadata", "created_at", "updated_at", "deleted_at"}
CUSTOMER_COLUMNS = {
    "id", "email", "first_name", "last_name", "billing_address_id", "phone", "has_account", "metadata",
    "created_at", "updated_at", "deleted_at",
}


async def group(name: str, **columns) -> CustomerGroup:
    return await CustomerGroup.create(name=name, **columns)


async def customer(email: str, **columns) -> Customer:
    return await Customer.create(email=email, **columns)


async def member_ids(group_id: str) -> set[str]:
    g = await CustomerGroup.get(id=group_id).prefetch_related("customers")
    return {c.id for c in g.customers}


def names(body: dict) -> list[str]:
    return [g["name"] for g in body["customer_groups"]]


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/customer-groups"),
    ("POST", "/admin/customer-groups"),
    ("GET", "/admin/customer-groups/cgrp_1"),
    ("POST", "/admin/customer-groups/cgrp_1"),
    ("DELETE", "/admin/customer-groups/cgrp_1"),
    ("GET", "/admin/customer-groups/cgrp_1/customers"),
    ("POST", "/admin/customer-groups/cgrp_1/customers/batch"),
    ("DELETE", "/admin/customer-groups/cgrp_1/customers/batch"),
])
async def test_every_group_route_needs_a_signed_in_user(client, method, path):
    await group("vip", id="cgrp_1")
    body = {"name": "x", "customer_ids": []} if method != "GET" else None
    r = await client.request(method, path, json=body)
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert await CustomerGroup.filter(id="cgrp_1", name="vip").exists()


# ---------------------------------------------------------------- create


async def test_create_returns_the_group_with_its_name_and_metadata(client, admin_headers):
    r = await client.post("/admin/customer-groups", headers=admin_headers,
                          json={"name": "vip-customers", "metadata": {"tier": 1}})
    assert r.status_code == 200
    assert set(r.json()) == {"customer_group"}
    created = r.json()["customer_group"]
    assert set(created) == GROUP_COLUMNS
    assert created["id"].startswith("cgrp_") and created["name"] == "vip-customers"
    assert created["metadata"] == {"tier": 1} and created["deleted_at"] is None
    assert await CustomerGroup.filter(id=created["id"]).exists()


@pytest.mark.parametrize("body,message", [
    ({}, "name should not be empty"),
    ({"name": ""}, "name should not be empty"),
    ({"name": 7}, "name must be a string"),
    ({"name": "vip", "metadata": "x"}, "metadata must be an object"),
    ({"name": "vip", "customers": []}, "property customers should not exist"),
])
async def test_create_with_bad_input_is_a_400(client, admin_headers, body, message):
    r = await client.post("/admin/customer-groups", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await CustomerGroup.all().count() == 0


async def test_a_duplicate_name_is_a_422_with_one_message_on_create_and_update(client, admin_headers):
    # Medusa v1 answers the raw database detail on create and this message on update (QUIRK)
    await group("vip-customers")
    other = await group("regulars")
    expected = {"type": "duplicate_error", "code": "invalid_request_error",
                "message": "Customer_group with name vip-customers already exists."}
    r = await client.post("/admin/customer-groups", headers=admin_headers, json={"name": "vip-customers"})
    assert (r.status_code, r.json()) == (422, expected)
    r = await client.post(f"/admin/customer-groups/{other.id}", headers=admin_headers, json={"name": "vip-customers"})
    assert (r.status_code, r.json()) == (422, expected)
    assert await CustomerGroup.filter(name="vip-customers").count() == 1
    assert (await CustomerGroup.get(id=other.id)).name == "regulars"


async def test_a_deleted_groups_name_can_be_used_again(client, admin_headers):
    old = await group("seasonal")
    assert (await client.delete(f"/admin/customer-groups/{old.id}", headers=admin_headers)).status_code == 200
    r = await client.post("/admin/customer-groups", headers=admin_headers, json={"name": "seasonal"})
    assert r.status_code == 200 and r.json()["customer_group"]["id"] != old.id


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_creates_of_one_name_make_one_group(client, admin_headers):
    responses = await asyncio.gather(*(
        client.post("/admin/customer-groups", headers=admin_headers, json={"name": "flash-sale"}) for _ in range(4)
    ))
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422]
    assert {r.json()["message"] for r in responses if r.status_code == 422} == {
        "Customer_group with name flash-sale already exists."
    }
    assert await CustomerGroup.filter(name="flash-sale").count() == 1


# ---------------------------------------------------------------- list


async def test_list_pages_ten_newest_groups_by_default(client, admin_headers):
    for i in range(12):
        await group(f"group {i:02}", created_at=datetime(2020, 1, 1 + i, tzinfo=timezone.utc))
    r = await client.get("/admin/customer-groups", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"customer_groups", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (12, 0, 10)
    assert names(body) == [f"group {i:02}" for i in range(11, 1, -1)]
    assert all(set(g) == GROUP_COLUMNS for g in body["customer_groups"])


async def test_medusas_paged_expanded_ordered_list(client, admin_headers):
    for i in range(7):
        await group(f"customer-group-{i}", created_at=datetime(2021, 1, 1 + i, tzinfo=timezone.utc))
    body = (await client.get("/admin/customer-groups?limit=5&offset=2&expand=customers&order=created_at",
                             headers=admin_headers)).json()
    assert (body["count"], len(body["customer_groups"])) == (7, 5)
    assert names(body)[0] == "customer-group-2"
    assert all(g["customers"] == [] for g in body["customer_groups"])


async def test_q_name_and_id_filter_the_list(client, admin_headers):
    vip, vip_plus, regular = await group("VIP"), await group("vip-plus"), await group("regular")
    await group("hidden vip", deleted_at=datetime.now(timezone.utc))

    async def listed(query: str) -> list[str]:
        r = await client.get(f"/admin/customer-groups?{query}&order=name", headers=admin_headers)
        assert r.status_code == 200, r.json()
        return names(r.json())

    assert await listed("q=vip") == ["VIP", "vip-plus"]
    assert await listed("name[]=regular&name[]=VIP") == ["VIP", "regular"]
    assert await listed("name[]=vip") == []  # names match exactly
    assert await listed(f"id={vip_plus.id}") == ["vip-plus"]
    assert await listed(f"id[]={vip.id}&id[]={regular.id}") == ["VIP", "regular"]
    body = (await client.get("/admin/customer-groups?q=vip", headers=admin_headers)).json()
    assert body["count"] == 2 and "customers" not in body["customer_groups"][0]


async def test_date_comparisons_filter_the_list(client, admin_headers):
    await group("old", created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    await group("new")
    body = (await client.get("/admin/customer-groups?created_at[lt]=2021-01-01", headers=admin_headers)).json()
    assert names(body) == ["old"]
    body = (await client.get("/admin/customer-groups?created_at[gt]=2021-01-01", headers=admin_headers)).json()
    assert names(body) == ["new"]


async def test_fields_selects_the_groups_columns(client, admin_headers):
    vip = await group("vip")
    body = (await client.get("/admin/customer-groups?fields=name", headers=admin_headers)).json()
    [shown] = body["customer_groups"]
    assert shown == {"id": vip.id, "name": "vip", "created_at": shown["created_at"]}


@pytest.mark.parametrize("query,message", [
    ("expand=price_lists", "Requested relations [price_lists] are not valid"),
    ("order=metadata", "Order field metadata is not valid"),
    ("id[lt]=cgrp_1", "id must be an array"),
    ("limit=-1", "limit must not be less than 0"),
])
async def test_bad_list_queries_are_a_400_naming_the_problem(client, admin_headers, query, message):
    r = await client.get(f"/admin/customer-groups?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_as_many_statements_for_fifty_groups_as_for_one(client, admin_headers):
    # Given 55 groups, each with two members
    members = [await customer(f"m{i}@example.com") for i in range(2)]
    for i in range(55):
        await (await group(f"group {i:02}")).customers.add(*members)
    # When a page of one and a page of fifty are read with their customers (both full, so both count)
    async with count_queries() as one:
        r1 = await client.get("/admin/customer-groups?limit=1&expand=customers", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get("/admin/customer-groups?limit=50&expand=customers", headers=admin_headers)
    # I expect the same statements, whatever the page size
    assert r1.json()["count"] == 55 and len(r1.json()["customer_groups"]) == 1
    page = r50.json()["customer_groups"]
    assert r50.json()["count"] == 55 and len(page) == 50
    assert all(len(g["customers"]) == 2 for g in page)
    assert b"password" not in r50.content
    assert one and len(fifty) == len(one), (one, fifty)


# ---------------------------------------------------------------- get


async def test_get_shows_the_group_and_its_customers_only_when_expanded(client, admin_headers):
    vip = await group("vip", metadata={"a": 1})
    jane = await customer("jane@example.com")
    await customer("gone@example.com", deleted_at=datetime.now(timezone.utc))
    r = await client.get(f"/admin/customer-groups/{vip.id}", headers=admin_headers)
    assert r.status_code == 200
    assert set(r.json()["customer_group"]) == GROUP_COLUMNS and r.json()["customer_group"]["metadata"] == {"a": 1}
    r = await client.get(f"/admin/customer-groups/{vip.id}?expand=customers", headers=admin_headers)
    assert r.json()["customer_group"]["customers"] == []
    await vip.customers.add(jane, await Customer.get(email="gone@example.com"))
    r = await client.get(f"/admin/customer-groups/{vip.id}?expand=customers&fields=name", headers=admin_headers)
    got = r.json()["customer_group"]
    assert set(got) == {"id", "name", "customers"}
    [shown] = got["customers"]
    assert shown["id"] == jane.id and set(shown) == CUSTOMER_COLUMNS


async def test_get_unknown_group_is_a_404(client, admin_headers):
    r = await client.get("/admin/customer-groups/test-group-000", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "CustomerGroup with id test-group-000 was not found"}


async def test_get_with_an_unknown_query_key_is_a_400(client, admin_headers):
    vip = await group("vip")
    r = await client.get(f"/admin/customer-groups/{vip.id}?q=vip", headers=admin_headers)
    assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": "property q should not exist"}


# ---------------------------------------------------------------- update


async def test_update_renames_and_merges_metadata(client, admin_headers):
    vip = await group("vip-customers", metadata={"data1": "value1", "gone": "x"})
    r = await client.post(f"/admin/customer-groups/{vip.id}", headers=admin_headers,
                          json={"name": "vip-customers-v2", "metadata": {"metaKey1": "metaValue1", "gone": ""}})
    assert r.status_code == 200
    updated = r.json()["customer_group"]
    assert set(updated) == GROUP_COLUMNS
    assert updated["name"] == "vip-customers-v2"
    assert updated["metadata"] == {"data1": "value1", "metaKey1": "metaValue1"}
    r = await client.post(f"/admin/customer-groups/{vip.id}?expand=customers", headers=admin_headers,
                          json={"metadata": {"data1": None}})
    updated = r.json()["customer_group"]
    assert updated["metadata"] == {"data1": None, "metaKey1": "metaValue1"} and updated["customers"] == []
    assert updated["name"] == "vip-customers-v2"


async def test_renaming_a_group_to_its_own_name_is_allowed(client, admin_headers):
    vip = await group("vip")
    r = await client.post(f"/admin/customer-groups/{vip.id}", headers=admin_headers, json={"name": "vip"})
    assert r.status_code == 200 and r.json()["customer_group"]["name"] == "vip"


@pytest.mark.parametrize("body,message", [
    ({"name": None}, "name must be a string"),
    ({"name": ""}, "name should not be empty"),
    ({"metadata": [1]}, "metadata must be an object"),
    ({"customers": []}, "property customers should not exist"),
])
async def test_update_with_bad_input_is_a_400_and_changes_nothing(client, admin_headers, body, message):
    vip = await group("vip")
    r = await client.post(f"/admin/customer-groups/{vip.id}", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert (await CustomerGroup.get(id=vip.id)).name == "vip"


async def test_update_of_an_unknown_group_is_a_404(client, admin_headers):
    r = await client.post("/admin/customer-groups/cgrp_missing", headers=admin_headers, json={"name": "x"})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "CustomerGroup with id cgrp_missing was not found"}


# ---------------------------------------------------------------- delete


async def test_delete_removes_the_group_and_its_memberships_and_is_idempotent(client, admin_headers):
    # Given a customer in two groups
    vip, other = await group("vip"), await group("other")
    jane = await customer("jane@example.com")
    await vip.customers.add(jane)
    await other.customers.add(jane)
    # When one group is deleted, twice
    for _ in range(2):
        r = await client.delete(f"/admin/customer-groups/{vip.id}", headers=admin_headers)
        assert r.status_code == 200
        assert r.json() == {"id": vip.id, "object": "customer_group", "deleted": True}
    # I expect the row gone (a hard delete), the customer kept, and only the other membership left
    assert not await CustomerGroup.filter(id=vip.id).exists()
    r = await client.get(f"/admin/customer-groups/{vip.id}", headers=admin_headers)
    assert r.status_code == 404
    r = await client.get(f"/admin/customers/{jane.id}?expand=groups", headers=admin_headers)
    assert [g["id"] for g in r.json()["customer"]["groups"]] == [other.id]


async def test_deleting_an_unknown_group_succeeds(client, admin_headers):
    r = await client.delete("/admin/customer-groups/cgrp_never", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"id": "cgrp_never", "object": "customer_group", "deleted": True}


# ---------------------------------------------------------------- the group's customers


async def test_a_groups_customers_are_listed_with_all_their_groups(client, admin_headers):
    # Given three members of a group (one also in another group), a non-member and a deleted member
    vip, other = await group("vip"), await group("other")
    members = [await customer(f"member{i}@example.com") for i in range(3)]
    gone = await customer("gone@example.com", deleted_at=datetime.now(timezone.utc))
    await customer("outsider@example.com")
    await vip.customers.add(*members, gone)
    await other.customers.add(members[0])
    # When the group's customers are listed
    r = await client.get(f"/admin/customer-groups/{vip.id}/customers?order=email", headers=admin_headers)
    # I expect the live members, each with every group it belongs to
    assert r.status_code == 200
    body = r.json()
    assert (body["count"], body["offset"], body["limit"]) == (3, 0, 50)
    assert [c["email"] for c in body["customers"]] == [f"member{i}@example.com" for i in range(3)]
    assert all(set(c) == CUSTOMER_COLUMNS | {"groups"} for c in body["customers"])
    assert sorted(g["name"] for g in body["customers"][0]["groups"]) == ["other", "vip"]
    assert [g["name"] for g in body["customers"][1]["groups"]] == ["vip"]
    assert b"password" not in r.content


async def test_a_groups_customers_take_q_has_account_expand_and_fields(client, admin_headers):
    vip = await group("vip")
    jane = await customer("jane@example.com", first_name="Jane", has_account=True)
    bob = await customer("bob@example.com", first_name="Bob")
    await Address.create(customer=bob, address_1="1 Road")
    await vip.customers.add(jane, bob)
    base = f"/admin/customer-groups/{vip.id}/customers"
    body = (await client.get(f"{base}?q=JAN", headers=admin_headers)).json()
    assert [c["email"] for c in body["customers"]] == ["jane@example.com"] and body["count"] == 1
    body = (await client.get(f"{base}?has_account=false&expand=shipping_addresses&fields=email",
                             headers=admin_headers)).json()
    [shown] = body["customers"]
    assert set(shown) == {"id", "created_at", "email", "shipping_addresses"}
    assert shown["shipping_addresses"][0]["address_1"] == "1 Road"
    body = (await client.get(f"{base}?expand=", headers=admin_headers)).json()
    assert all(set(c) == CUSTOMER_COLUMNS for c in body["customers"])


async def test_the_customers_of_an_unknown_group_are_a_404(client, admin_headers):
    # Medusa v1 answers an empty list; an admin following a stale link should learn the group is gone
    r = await client.get("/admin/customer-groups/cgrp_missing/customers", headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "CustomerGroup with id cgrp_missing was not found"}


@pytest.mark.parametrize("query,message", [
    ("groups[]=cgrp_other", "property groups should not exist"),
    ("expand=notes", "Requested relations [notes] are not valid"),
    ("has_account=yes", "has_account must be a boolean value"),
])
async def test_bad_queries_on_a_groups_customers_are_a_400(client, admin_headers, query, message):
    vip = await group("vip")
    r = await client.get(f"/admin/customer-groups/{vip.id}/customers?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_a_groups_customers_run_as_many_statements_for_fifty_as_for_one(client, admin_headers):
    vip, other = await group("vip"), await group("other")
    await Customer.bulk_create([Customer(email=f"c{i:02}@example.com") for i in range(55)])
    everyone = await Customer.all()
    await vip.customers.add(*everyone)
    await other.customers.add(*everyone)
    base = f"/admin/customer-groups/{vip.id}/customers?expand=groups,shipping_addresses,billing_address"
    async with count_queries() as one:
        r1 = await client.get(f"{base}&limit=1", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get(f"{base}&limit=50", headers=admin_headers)
    assert r1.json()["count"] == 55 and len(r1.json()["customers"]) == 1
    assert r50.json()["count"] == 55 and len(r50.json()["customers"]) == 50
    assert all(len(c["groups"]) == 2 for c in r50.json()["customers"])
    assert one and len(fifty) == len(one), (one, fifty)


# ---------------------------------------------------------------- batch add


async def test_batch_add_puts_customers_in_the_group_and_is_idempotent(client, admin_headers):
    vip = await group("vip-customers")
    a, b = await customer("a@example.com"), await customer("b@example.com")
    for _ in range(2):
        r = await client.post(f"/admin/customer-groups/{vip.id}/customers/batch", headers=admin_headers,
                              json={"customer_ids": [{"id": a.id}, {"id": b.id}, {"id": a.id}]})
        assert r.status_code == 200
        assert set(r.json()) == {"customer_group"}
        assert set(r.json()["customer_group"]) == GROUP_COLUMNS
        assert r.json()["customer_group"]["name"] == "vip-customers"
    assert await member_ids(vip.id) == {a.id, b.id}
    r = await client.get(f"/admin/customers?groups[]={vip.id}", headers=admin_headers)
    assert r.json()["count"] == 2


async def test_batch_add_with_unknown_customers_adds_none_and_names_them(client, admin_headers):
    vip = await group("vip")
    known = await customer("known@example.com")
    gone = await customer("gone@example.com", deleted_at=datetime.now(timezone.utc))
    r = await client.post(f"/admin/customer-groups/{vip.id}/customers/batch", headers=admin_headers, json={
        "customer_ids": [{"id": known.id}, {"id": "test-customer-27"}, {"id": gone.id}],
    })
    assert r.status_code == 404
    assert r.json() == {
        "type": "not_found",
        "message": f'The following customer ids do not exist: "test-customer-27, {gone.id}"',
    }
    assert await member_ids(vip.id) == set()


async def test_batch_add_to_an_unknown_group_is_a_404(client, admin_headers):
    jane = await customer("jane@example.com")
    r = await client.post("/admin/customer-groups/non-existing-customer-group-1/customers/batch",
                          headers=admin_headers, json={"customer_ids": [{"id": jane.id}]})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found",
                        "message": "CustomerGroup with id non-existing-customer-group-1 was not found"}


@pytest.mark.parametrize("method", ["POST", "DELETE"])
@pytest.mark.parametrize("body,message", [
    ({}, "customer_ids should not be empty"),
    ({"customer_ids": None}, "customer_ids must be an array"),
    ({"customer_ids": "cus_1"}, "customer_ids must be an array"),
    ({"customer_ids": ["cus_1"]}, "customer_ids must be an object"),
    ({"customer_ids": [{}]}, "id should not be empty"),
    ({"customer_ids": [{"id": 5}]}, "id must be a string"),
    ({"customer_ids": [], "extra": 1}, "property extra should not exist"),
])
async def test_a_bad_batch_body_is_a_400_and_changes_nothing(client, admin_headers, method, body, message):
    vip = await group("vip")
    jane = await customer("jane@example.com")
    await vip.customers.add(jane)
    r = await client.request(method, f"/admin/customer-groups/{vip.id}/customers/batch", headers=admin_headers,
                             json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert await member_ids(vip.id) == {jane.id}


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_batches_on_one_group_all_succeed(client, admin_headers):
    # Given overlapping batches sent at the same moment
    vip = await group("vip")
    people = [await customer(f"p{i}@example.com") for i in range(6)]
    batches = [people[0:3], people[2:5], people[3:6], people[0:6]]
    responses = await asyncio.gather(*(
        client.post(f"/admin/customer-groups/{vip.id}/customers/batch", headers=admin_headers,
                    json={"customer_ids": [{"id": p.id} for p in batch]}) for batch in batches
    ))
    # I expect every batch to succeed and each customer to be a member once
    assert [r.status_code for r in responses] == [200] * 4
    assert await member_ids(vip.id) == {p.id for p in people}
    assert await vip.customers.all().count() == 6


# ---------------------------------------------------------------- batch remove


async def test_batch_remove_ends_only_the_listed_memberships_of_this_group(client, admin_headers):
    # Given three members of vip, one of whom is also in another group
    vip, other = await group("vip"), await group("other")
    a, b, c = [await customer(f"{n}@example.com") for n in "abc"]
    await vip.customers.add(a, b, c)
    await other.customers.add(a)
    # When a and an outsider id are removed from vip, twice
    for _ in range(2):
        r = await client.request("DELETE", f"/admin/customer-groups/{vip.id}/customers/batch",
                                 headers=admin_headers, json={"customer_ids": [{"id": a.id}, {"id": "cus_nobody"}]})
        assert r.status_code == 200
        assert set(r.json()) == {"customer_group"} and r.json()["customer_group"]["id"] == vip.id
        assert set(r.json()["customer_group"]) == GROUP_COLUMNS
    # I expect b and c to stay, and a to stay in the other group
    assert await member_ids(vip.id) == {b.id, c.id}
    assert await member_ids(other.id) == {a.id}
    assert await Customer.filter(id=a.id).exists()


async def test_batch_remove_from_an_unknown_group_is_a_404(client, admin_headers):
    r = await client.request("DELETE", "/admin/customer-groups/cgrp_missing/customers/batch",
                             headers=admin_headers, json={"customer_ids": [{"id": "cus_1"}]})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "CustomerGroup with id cgrp_missing was not found"}


async def test_list_narrows_to_the_groups_a_discount_condition_names(client, admin_headers):
    from models import Region
    from services.discounts.conditions import ConditionInput
    from services.discounts.discounts import RuleInput, create_discount

    vip, _ = [await CustomerGroup.create(name=n) for n in ("vip", "wholesale")]
    region = await Region.create(name="EU", currency_code="eur", tax_rate=0)
    discount = await create_discount(code="VIP", regions=[region.id], relations=("rule", "rule.conditions"), rule=RuleInput(
        type="percentage", value=5, conditions=[ConditionInput(operator="in", resources={"customer_groups": [vip.id]})],
    ))
    condition_id = discount.rule.conditions.related_objects[0].id
    r = await client.get(f"/admin/customer-groups?discount_condition_id={condition_id}", headers=admin_headers)
    assert r.status_code == 200
    assert [g["name"] for g in r.json()["customer_groups"]] == ["vip"] and r.json()["count"] == 1
