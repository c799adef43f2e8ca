"""The notification sender's hand-written read (services/notifications/reads.py: a notification with
the shop's name and swap link, in one statement) builds what the ORM reads, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

from models import Notification, Store
from services.notifications.reads import note_and_shop
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
    mine, shop_name, swap_link = await note_and_shop(note.id)
    # I expect the ORM's notification, loaded whole, and the store's name and swap link
    assert _columns(mine) == _columns(await Notification.get(id=note.id)) and not mine._partial
    if store is None:
        assert (shop_name, swap_link) == ("Our shop", None)
    else:
        assert (shop_name, swap_link) == (store.name, store.swap_link_template)
    assert await note_and_shop("noti_nope") == (None, "Our shop", None)
