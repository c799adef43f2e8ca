"""The admin customers list without relations (the dashboard's page): its statements are built by
the ORM once per filter and page (services/core/listing.py `find_plain_page`), and its answer is
the one the ORM's own path gives, field for field."""

from datetime import datetime, timedelta, timezone

import pytest

import services.customers.customers as customers_service
from models import Address, Customer, CustomerGroup
from services.core.listing import FindConfig, find_page
from services.customers.customers import CustomerFilter, list_customers
from tests.conftest import count_queries

T0 = datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=timezone.utc)


async def shop() -> dict[str, str]:
    """Customers with addresses, a billing address, groups, metadata, a phone, guests and a
    soft-deleted one, created a day apart (two at the same instant, so the id breaks the tie)."""
    vip, wholesale = await CustomerGroup.create(name="vip"), await CustomerGroup.create(name="wholesale")
    rows = [
        ("jane@example.com", "Jane", "Doe", True, {"tier": "gold", "n": [1, 2]}, "+49 30 1234"),
        ("john@example.com", "John", "Roe", True, None, None),
        ("guest_1@example.com", None, None, False, {}, None),
        ("100%@example.com", "Per", "Cent", False, None, "555"),
        ("ann@shop.test", "Ann", "Janssen", True, {"a": None}, None),
        ("bob@shop.test", "Bob", None, False, None, None),
    ]
    made = []
    for i, (email, first, last, account, metadata, phone) in enumerate(rows):
        at = T0 + timedelta(days=min(i, 4))
        made.append(await Customer.create(
            email=email, first_name=first, last_name=last, has_account=account, metadata=metadata, phone=phone,
            created_at=at, updated_at=at + timedelta(hours=6 - i),
        ))
    await Customer.create(email="gone@example.com", deleted_at=T0)
    jane, john = made[0], made[1]
    await Address.create(customer=jane, address_1="1 Main St", city="Berlin", country_code="de")
    billing = await Address.create(address_1="2 Rue", city="Paris", country_code="fr")
    jane.billing_address_id = billing.id
    await jane.save()
    await jane.groups.add(vip, wholesale)
    await john.groups.add(vip)
    return {"vip": vip.id, "wholesale": wholesale.id}


def queries(groups: dict[str, str]) -> list[str]:
    after = (T0 + timedelta(days=1, hours=1)).isoformat().replace("+00:00", "Z")
    return [
        "", "limit=20", "limit=2", "limit=2&offset=2", "limit=2&offset=4", "limit=4&offset=4", "offset=6", "offset=100",
        "limit=6", "q=jan", "q=JAN&limit=1", "q=100%25", "q=_", "q=nobody", "has_account=true",
        "has_account=false&order=email", "order=email", "order=-email&limit=3&offset=1", "order=-updated_at",
        "order=first_name", "order=id", f"groups[]={groups['vip']}", f"groups[]={groups['vip']},{groups['wholesale']}",
        f"created_at[gt]={after}", f"updated_at[lt]={after}&order=created_at", "q=example&has_account=true&limit=1",
        "fields=email,phone&order=email",
    ]


@pytest.fixture
def orm_path(monkeypatch):
    """Switches the list to the ORM's own path (the one with relations) while it is on."""
    async def through_the_orm(model, key, build, config):
        return await find_page(build(), config)

    def switch():
        monkeypatch.setattr(customers_service, "find_plain_page", through_the_orm)
    return switch


async def test_the_list_answers_as_the_orm_path_does_field_for_field(client, admin_headers, orm_path):
    # Given a shop of customers with addresses, groups and metadata
    groups = await shop()
    # When the admin lists them with each filter, order and page, twice (the second from the
    # statements already built), and then through the ORM's own path
    asked = queries(groups)
    lean, again = [], []
    for answers in (lean, again):
        for query in asked:
            r = await client.get(f"/admin/customers?{query}", headers=admin_headers)
            assert r.status_code == 200, (query, r.text)
            answers.append(r.json())
    orm_path()
    full = [(await client.get(f"/admin/customers?{query}", headers=admin_headers)).json() for query in asked]
    # I expect the same answers, key for key and value for value
    for query, a, b, c in zip(asked, lean, again, full):
        assert a == c, query
        assert b == c, query
    # and the cases to mean something: pages, counts and filters that select
    by_query = dict(zip(asked, full))
    assert by_query[""]["count"] == 6 and len(by_query[""]["customers"]) == 6
    assert by_query["limit=2"]["count"] == 6 and by_query["offset=100"]["count"] == 6
    assert [c["email"] for c in by_query["q=100%25"]["customers"]] == ["100%@example.com"]
    assert {c["email"] for c in by_query[f"groups[]={groups['vip']}"]["customers"]} == {
        "jane@example.com", "john@example.com"}
    jane = next(c for c in by_query["order=email"]["customers"] if c["email"] == "jane@example.com")
    assert jane["metadata"] == {"tier": "gold", "n": [1, 2]} and jane["billing_address_id"]


async def test_a_page_is_one_statement_and_a_counted_page_two_built_once(monkeypatch):
    # Given six customers, and a count of the queries the ORM builds
    await shop()
    built = []

    def counting(make_query):
        def counted(self):
            built.append(type(self).__name__)
            return make_query(self)
        return counted

    for cls in (type(Customer.all()), type(Customer.all().count())):
        monkeypatch.setattr(cls, "_make_query", counting(cls._make_query))
    for f, config, statements in (
        (CustomerFilter(q="zz-first"), FindConfig(limit=20), 1),  # a short page tells the count
        (CustomerFilter(q="zz-second"), FindConfig(limit=2, offset=2), 2),  # a page past the end is counted
    ):
        # When the same page is read twice
        async with count_queries() as first:
            await list_customers(f, config)
        built_first = len(built)
        async with count_queries() as second:
            page, count = await list_customers(f, config)
        # I expect the same statements each time, built only the first time
        assert len(first) == len(second) == statements
        assert built_first >= 1 and len(built) == built_first
        built.clear()
    # and the page read from the statements already built is right
    page, count = await list_customers(CustomerFilter(q="zz-second"), FindConfig(limit=2, offset=2))
    assert (page, count) == ([], 0)
    page, count = await list_customers(CustomerFilter(), FindConfig(limit=2, offset=2))
    assert count == 6 and [type(c) for c in page] == [Customer, Customer]
