"""The notification sender's hand-written read (services/notifications/reads.py: a notification with
the shop's name and swap link and its customer, in one statement) builds what the ORM reads, on
both backends."""

from __future__ import annotations

from datetime import datetime, timezone

from models import Customer, Notification, Store
from services.notifications.reads import Sending, note_and_shop
from tests.row_values import column_values


def _columns(obj) -> dict:
    return column_values(obj, loaded=False)


async def test_a_notification_read_by_hand_is_the_orms_with_the_shops_name():
    # Given a notification that was tried once, and the shop's store row
    note = await Notification.create(
        event_name="order.placed", resource_type="order", resource_id="order_1", to="jane@example.com",
        data={"order_id": "order_1"}, attempts=1, last_error="timed out", metadata={"k": "v"},
        sent_at=datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc),
    )
    store = await Store.first()
    # When it is read in one statement with the shop
    mine, shop_name, swap_link, customer = await note_and_shop(note.id)
    # I expect the ORM's notification, loaded whole, and the store's name and swap link
    assert _columns(mine) == _columns(await Notification.get(id=note.id)) and not mine._partial
    if store is None:
        assert (shop_name, swap_link) == ("Our shop", None)
    else:
        assert (shop_name, swap_link) == (store.name, store.swap_link_template)
    assert customer is None
    assert await note_and_shop("noti_nope") == Sending(None, "Our shop", None, None)


async def test_a_notification_read_by_hand_carries_the_orms_customer():
    # Given a notification about a customer, and one naming a customer that does not exist
    jane = await Customer.create(email="jane@example.com", first_name="Jane", last_name=None)
    note = await Notification.create(event_name="order.placed", to=jane.email, customer_id=jane.id, data={})
    gone = await Notification.create(event_name="order.placed", to=jane.email, customer_id="cus_gone", data={})
    # When each is read
    _, _, _, customer = await note_and_shop(note.id)
    _, _, _, nobody = await note_and_shop(gone.id)
    # I expect the ORM's customer's names and email, and nobody for the missing one
    orm = await Customer.get(id=note.customer_id)
    assert customer == {"first_name": orm.first_name, "last_name": orm.last_name, "email": orm.email}
    assert nobody is None
