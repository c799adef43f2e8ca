"""The admin customers list's version (services/customers/version_reads.py): moved by triggers in the
writer's own transaction, whoever the writer is (models/migrations/0027_customer_list_version.py),
in the scope of what moved: customers, addresses or orders."""

import asyncio
import importlib

import pytest
from tortoise import connections
from tortoise.transactions import in_transaction

from app.admin.customers import RELATIONS
from models import Address, Customer, CustomerGroup, Order
from services.customers.version_reads import read_customer_list_versions
from tests.conftest import BACKEND, PATIENCE, requires_postgres
from tests.order_factories import place_order

MIGRATION = importlib.import_module("models.migrations.0027_customer_list_version")


async def _scopes() -> dict[str, str]:
    versions = await read_customer_list_versions()
    both, plain = versions.of(), versions.of(addresses=False, orders=False)
    customers, addresses, orders = both.split(".")
    assert plain == f"{customers}.-.-"
    return {"customers": customers, "addresses": addresses, "orders": orders}


async def _moved(before: dict[str, str]) -> set[str]:
    after = await _scopes()
    return {scope for scope in after if after[scope] != before[scope]}


async def _triggered_tables() -> set[str]:
    conn = connections.get("default")
    if BACKEND == "postgres":
        rows = await conn.execute_query_dict(
            "SELECT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " WHERE t.tgname = 'customer_list_version_bump'")
    else:
        rows = await conn.execute_query_dict(
            "SELECT tbl_name AS name FROM sqlite_master WHERE type = 'trigger'"
            " AND name LIKE 'customer_list_version_%'")
    return {r["name"] for r in rows}


def test_the_scopes_cover_every_table_the_list_can_show():
    # The list shows customer rows and, by `expand` (or a dotted `fields`), these relations;
    # the `groups[]` filter reads the groups and their links.
    shown = {Customer._meta.db_table}
    for relation in RELATIONS:
        if relation == "billing_address":  # a plain column (models/customer.py), attached by hand
            shown.add(Address._meta.db_table)
            continue
        field = Customer._meta.fields_map[relation]
        shown.add(field.related_model._meta.db_table)
        if getattr(field, "through", None):
            shown.add(field.through)
    assert shown == {"customer", "address", "orders", "customer_group", "customer_group_customers"}
    assert set(MIGRATION.TABLES) == shown


async def test_every_table_the_list_can_show_has_its_trigger():
    assert await _triggered_tables() == set(MIGRATION.TABLES)


async def test_each_write_moves_its_scope_only(client, seeded):
    # Customers, groups and their links move `customers`
    before = await _scopes()
    jane = await Customer.create(email="jane@example.com")
    assert await _moved(before) == {"customers"}
    before = await _scopes()
    vip = await CustomerGroup.create(name="vip")
    assert await _moved(before) == {"customers"}
    before = await _scopes()
    await jane.groups.add(vip)
    assert await _moved(before) == {"customers"}
    before = await _scopes()
    await jane.groups.remove(vip)
    assert await _moved(before) == {"customers"}
    before = await _scopes()
    await Customer.filter(id=jane.id).update(first_name="Jane")
    assert await _moved(before) == {"customers"}
    # Addresses move `addresses`, whoever's they are (a billing address has no customer_id)
    before = await _scopes()
    billing = await Address.create(address_1="2 Rue", city="Paris", country_code="fr")
    assert await _moved(before) == {"addresses"}
    before = await _scopes()
    await Address.filter(id=billing.id).update(city="Lyon")
    assert await _moved(before) == {"addresses"}
    # Orders move `orders` (placing one also writes its cart's address and a guest customer)
    order = await place_order(client)
    before = await _scopes()
    await Order.filter(id=order.id).update(fulfillment_status="shipped")
    assert await _moved(before) == {"orders"}
    before = await _scopes()
    await Address.filter(id=billing.id).delete()
    await Customer.filter(id=jane.id).delete()
    assert await _moved(before) == {"customers", "addresses"}


async def test_a_raw_sql_write_moves_the_version():
    before = await _scopes()
    await connections.get("default").execute_query(
        "INSERT INTO customer (id, email, has_account, created_at, updated_at)"
        " VALUES ('cus_raw', 'raw@example.com', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
    assert await _moved(before) == {"customers"}


async def test_a_rolled_back_write_leaves_the_version():
    before = await _scopes()
    with pytest.raises(RuntimeError):
        async with in_transaction():
            await Customer.create(email="never@example.com")
            raise RuntimeError("undo")
    assert await _moved(before) == set()


async def test_a_bulk_write_in_one_transaction_moves_the_version_at_its_commit():
    for i in range(5):
        await Customer.create(email=f"c{i}@example.com")
    before = await _scopes()
    async with in_transaction():
        await Customer.all().update(first_name="Bulk")
        inside = await _moved(before)
    assert await _moved(before) == {"customers"}
    if BACKEND == "postgres":  # deferred to the commit: a shard is locked only for it
        assert inside == set()


@requires_postgres("the shards' locks matter only with concurrent writers")
async def test_a_committing_writer_never_waits_for_another_ones_bump():
    # Given a transaction that wrote a guest customer and has already bumped the version (its
    # deferred trigger run now instead of at its commit), still open, so it holds its shard
    before = await _scopes()
    bumped, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with in_transaction() as conn:
            await Customer.create(email="first@example.com", using_db=conn)
            await conn.execute_query("SET CONSTRAINTS ALL IMMEDIATE")
            bumped.set()
            await release.wait()

    held = asyncio.create_task(holder())
    await bumped.wait()
    try:
        # When another shopper's guest customer, an order's address and a group are committed meanwhile
        async with asyncio.timeout(PATIENCE):  # one version row would hold these until the first ends
            await Customer.create(email="second@example.com")
            await Address.create(address_1="1 Main St", country_code="us")
            await CustomerGroup.create(name="vip")
        # I expect them committed and seen, before the first transaction ends
        assert await _moved(before) == {"customers", "addresses"}
        assert await Customer.filter(email="second@example.com").exists()
    finally:
        release.set()
        await held
    moved = await _scopes()
    assert moved["customers"] != before["customers"]
    assert await Customer.filter(email="first@example.com").exists()
