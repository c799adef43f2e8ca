"""Re-running the move until cut-over: what changed in the source arrives, an interrupted run
run again finishes with nothing duplicated and nothing missing."""

import io

import asyncpg
import pytest

from models import Address, Cart, LineItem, Order, Product
from services.migration.medusa_v1 import Progress, move

NEW_ORDER = "order_01MOVEDLATER00000000000000"


class _Interrupt(Exception):
    pass


class _StopAt(Progress):
    """Stops the run (as a kill would) once `rows` rows of `entity` are written."""

    def __init__(self, entity: str, rows: int):
        super().__init__(io.StringIO())
        self.stop_entity, self.stop_rows = entity, rows

    def advance(self, rows: int) -> None:
        super().advance(rows)
        if self.entity == self.stop_entity and self.done >= self.stop_rows:
            raise _Interrupt


async def test_a_change_in_the_source_arrives_on_the_next_run(imported, medusa_source):
    conn = await asyncpg.connect(medusa_source.replace("postgres://", "postgresql://", 1))
    product = await conn.fetchrow("SELECT id, title, updated_at FROM product WHERE deleted_at IS NULL ORDER BY id LIMIT 1")
    address = await conn.fetchrow("SELECT id, updated_at FROM address WHERE deleted_at IS NULL AND customer_id IS NOT NULL ORDER BY id LIMIT 1")
    top = await conn.fetchval('SELECT max(display_id) FROM "order"')
    link = await conn.fetchrow("SELECT * FROM product_sales_channel ORDER BY product_id, sales_channel_id LIMIT 1")
    line = await conn.fetchrow(
        "SELECT li.* FROM line_item li JOIN cart c ON c.id = li.cart_id WHERE li.order_id IS NULL AND c.completed_at IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM line_item_tax_line t WHERE t.item_id = li.id)"
        " AND NOT EXISTS (SELECT 1 FROM line_item_adjustment a WHERE a.item_id = li.id) ORDER BY li.id LIMIT 1"
    )
    try:
        # Given an edited product, a deleted customer address and a new order in Medusa
        await conn.execute("UPDATE product SET title = title || ' (edited)', updated_at = now() WHERE id = $1", product["id"])
        await conn.execute("UPDATE address SET deleted_at = now(), updated_at = now() WHERE id = $1", address["id"])
        await conn.execute(
            'INSERT INTO "order" (id, status, fulfillment_status, payment_status, display_id, cart_id, customer_id, email,'
            " billing_address_id, shipping_address_id, region_id, currency_code, tax_rate, draft_order_id, canceled_at,"
            " metadata, no_notification, idempotency_key, external_id, sales_channel_id, created_at, updated_at)"
            " SELECT $1, status, fulfillment_status, payment_status, $2, NULL, customer_id, email, billing_address_id,"
            " shipping_address_id, region_id, currency_code, tax_rate, NULL, canceled_at, metadata, no_notification,"
            ' NULL, external_id, sales_channel_id, now(), now() FROM "order" ORDER BY display_id LIMIT 1',
            NEW_ORDER, top + 1,
        )
        # and, deleted outright as Medusa does, a product's channel link and a line of an open cart
        await conn.execute("DELETE FROM product_sales_channel WHERE product_id = $1 AND sales_channel_id = $2",
                           link["product_id"], link["sales_channel_id"])
        await conn.execute("DELETE FROM line_item WHERE id = $1", line["id"])
        # When the move runs again
        report = await move(medusa_source, progress=Progress(io.StringIO()))
        # Then each change is here
        assert (await Product.get(id=product["id"])).title == product["title"] + " (edited)"
        assert (await Address.get(id=address["id"])).deleted_at is not None
        assert (await Order.get(id=NEW_ORDER)).display_id == top + 1
        assert report.money_differences == []
        # having read only what changed since the first run
        assert (report.entity("orders").copied, report.entity("orders").unchanged) == (1, 223)
        assert report.entity("products").copied == 1 and report.entity("addresses").copied == 1
        assert report.entity("customers").copied == 0 and report.entity("variants").copied == 0
        # and the money check covered only the new order
        assert report.money_orders_checked == 1
        channels = await (await Product.get(id=link["product_id"])).sales_channels.all().values_list("id", flat=True)
        assert link["sales_channel_id"] not in channels
        assert not await LineItem.filter(id=line["id"]).exists()
        assert report.entity("line items").removed == 1 and report.entity("product channels").removed == 1
    finally:
        await _insert(conn, "product_sales_channel", link)
        await _insert(conn, "line_item", line)
        await conn.execute('DELETE FROM "order" WHERE id = $1', NEW_ORDER)
        await conn.execute("UPDATE product SET title = $2, updated_at = $3 WHERE id = $1", *product.values())
        await conn.execute("UPDATE address SET deleted_at = NULL, updated_at = $2 WHERE id = $1", *address.values())
        await conn.close()


async def test_a_product_moved_to_another_profile_and_an_address_deleted_by_sql_arrive(imported, medusa_source):
    conn = await asyncpg.connect(medusa_source.replace("postgres://", "postgresql://", 1))
    link = await conn.fetchrow("SELECT psp.* FROM product_shipping_profile psp JOIN shipping_profile sp ON sp.id = psp.profile_id"
                               " WHERE sp.type = 'default' ORDER BY psp.product_id LIMIT 1")
    other = await conn.fetchval("SELECT id FROM shipping_profile WHERE id <> $1 ORDER BY id LIMIT 1", link["profile_id"])
    address = await conn.fetchrow("SELECT id, updated_at FROM address WHERE deleted_at IS NULL AND customer_id IS NOT NULL"
                                  " ORDER BY id DESC LIMIT 1")
    try:
        # Given a product moved to another shipping profile as Medusa 1.20 does it (its link row
        # replaced; the product's own row, and its updated_at, untouched)
        await conn.execute("DELETE FROM product_shipping_profile WHERE product_id = $1", link["product_id"])
        await conn.execute("INSERT INTO product_shipping_profile (profile_id, product_id) VALUES ($1, $2)",
                           other, link["product_id"])
        # and a customer address soft-deleted by a statement that left its updated_at as it was
        await conn.execute("UPDATE address SET deleted_at = now() WHERE id = $1", address["id"])
        # When the move runs again
        report = await move(medusa_source, progress=Progress(io.StringIO()))
        # Then both arrive
        assert (await Product.get(id=link["product_id"])).profile_id == other
        assert (await Address.get(id=address["id"])).deleted_at is not None
        assert report.entity("addresses").copied == 1 and report.money_differences == []
    finally:
        await conn.execute("UPDATE product_shipping_profile SET profile_id = $1 WHERE product_id = $2",
                           link["profile_id"], link["product_id"])
        await conn.execute("UPDATE address SET deleted_at = NULL, updated_at = $2 WHERE id = $1", *address.values())
        await conn.close()


async def test_a_second_run_reads_only_what_changed(imported, medusa_source):
    # Given the shop moved once and nothing changed in Medusa since, when the move runs again
    report = await move(medusa_source, progress=Progress(io.StringIO()))
    # then every table that dates its changes had none to copy, and says so
    dated = [e for e in report.entities if e.since is not None]
    assert {"products", "orders", "customers", "line items", "payments"} <= {e.name for e in dated}
    assert [(e.name, e.copied) for e in dated if e.copied] == []
    assert report.entity("orders").unchanged == 223 and report.money_differences == []
    assert report.money_orders_checked == 0  # no order's figures could have changed
    assert any("unchanged since the last run" in line for line in report.lines())
    # and the store holds what it held
    assert await Order.all().count() == 223 and await LineItem.all().count() == 954


@pytest.mark.parametrize("entity,rows", [("carts", 1000), ("line items", 300)])
async def test_an_interrupted_run_run_again_finishes_with_nothing_missing_or_doubled(medusa_source, entity, rows):
    with pytest.raises(_Interrupt):
        await move(medusa_source, batch_rows=100, progress=_StopAt(entity, rows))
    assert 0 < await Cart.all().count() < 2825 or await LineItem.all().count() < 954

    report = await move(medusa_source, batch_rows=100, progress=Progress(io.StringIO()))
    assert await Cart.all().count() == 2825 and await LineItem.all().count() == 954
    # the entity cut short is copied again whole; one that finished before the cut is not
    assert report.entity(entity).copied == {"carts": 2825, "line items": 954}[entity]
    if entity == "line items":
        assert report.entity("carts").copied == 0 and report.entity("carts").unchanged == 2825
    assert await Order.all().count() == 223 and report.money_differences == []


async def _insert(conn, table: str, row) -> None:
    columns = ", ".join(f'"{k}"' for k in row.keys())
    values = ", ".join(f"${i + 1}" for i in range(len(row)))
    await conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({values}) ON CONFLICT DO NOTHING', *row.values())
