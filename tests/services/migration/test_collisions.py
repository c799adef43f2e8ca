"""A store written to between runs (a smoke test, a storefront switched early) never breaks the
next run: its rows that collide with the shop's are settled and reported by id."""

import io

from models import Cart, Customer, Order
from services.migration.medusa_v1 import Progress, move
from tests.account_factories import guest_order
from tests.services.migration.conftest import source_fetch

EMAIL = "early-shopper@example.com"
MEDUSA_GUEST, MEDUSA_ORDER = "cus_01MEDUSAGUEST0000000000000", "order_01MEDUSALATER0000000000000"


async def test_a_guest_and_an_order_made_here_before_the_last_run_are_merged_and_kept(medusa_copy):
    url, run = medusa_copy
    await move(url, progress=Progress(io.StringIO()))
    top = (await source_fetch(url, 'SELECT max(display_id) AS top FROM "order"'))[0]["top"]
    # Given a guest's order placed here after the first run (it takes the next number, top + 1)
    ours = await guest_order(EMAIL)
    assert ours.display_id == top + 1
    cart = await Cart.create(email=EMAIL, customer_id=ours.customer_id, region_id=ours.region_id)
    # and, in Medusa meanwhile, a guest with that e-mail placing an order that took the same number
    await run(
        "INSERT INTO customer (id, email, has_account, created_at, updated_at)"
        f" VALUES ('{MEDUSA_GUEST}', '{EMAIL}', false, now(), now());"
        'INSERT INTO "order" (id, status, fulfillment_status, payment_status, display_id, customer_id, email,'
        " region_id, currency_code, created_at, updated_at)"
        f" SELECT '{MEDUSA_ORDER}', status, fulfillment_status, payment_status, {top + 1}, '{MEDUSA_GUEST}', '{EMAIL}',"
        ' region_id, currency_code, now(), now() FROM "order" ORDER BY display_id LIMIT 1'
    )
    # When the move runs again
    report = await move(url, progress=Progress(io.StringIO()))
    # Then our guest is merged into Medusa's, its order and cart now that customer's
    assert not await Customer.filter(id=ours.customer_id).exists()
    assert (await Order.get(id=ours.id)).customer_id == MEDUSA_GUEST
    assert (await Cart.get(id=cart.id)).customer_id == MEDUSA_GUEST
    assert await Customer.filter(email=EMAIL).values_list("id", flat=True) == [MEDUSA_GUEST]
    # our order keeps its number, Medusa's takes the next free one
    assert (await Order.get(id=ours.id)).display_id == top + 1
    assert (await Order.get(id=MEDUSA_ORDER)).display_id == top + 2
    # and each is reported by id with what was done
    notes = "\n".join(report.collisions)
    assert f"customer {ours.customer_id} (guest {EMAIL}, made here) merged into Medusa's {MEDUSA_GUEST}" in notes
    assert f"order {MEDUSA_ORDER} (Medusa's #{top + 1}) is #{top + 2} here: order {ours.id}" in notes
    assert any(line.startswith("made here, met the shop's: customer ") for line in report.lines())
    # A run after that keeps each as it is
    await move(url, progress=Progress(io.StringIO()))
    assert (await Order.get(id=MEDUSA_ORDER)).display_id == top + 2 and (await Order.get(id=ours.id)).display_id == top + 1
    assert (await Order.get(id=ours.id)).customer_id == MEDUSA_GUEST


async def test_any_other_row_made_here_that_blocks_the_shops_stops_the_move_with_one_line(medusa_copy):
    import pytest

    from models import CustomerGroup
    from services.migration.medusa_v1 import SourceError

    url, run = medusa_copy
    await move(url, progress=Progress(io.StringIO()))
    # Given a customer group made here, and one of the same name made in Medusa since
    await CustomerGroup.create(name="Early birds")
    await run("INSERT INTO customer_group (id, name, created_at, updated_at)"
              " VALUES ('cgrp_01MEDUSAEARLY00000000000000', 'Early birds', now(), now())")
    # When the move runs again, it stops with one line naming the table (exit 7), not a traceback
    with pytest.raises(SourceError) as stopped:
        await move(url, progress=Progress(io.StringIO()))
    assert stopped.value.exit_code == 7 and "\n" not in str(stopped.value)
    assert "blocks Medusa's customer_group rows" in str(stopped.value)
    assert await CustomerGroup.filter(name="Early birds").count() == 1
