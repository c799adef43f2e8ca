"""The event dispatcher's hand-written read (services/events/reads.py: an event with the
subscribers that handled it, in one statement) builds what the ORM reads, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

from models import Event, EventReceipt
from services.events.reads import event_and_receipts
from tests.row_values import column_values


def _columns(obj) -> dict:
    return column_values(obj, loaded=False)


async def test_an_event_and_its_receipts_read_by_hand_are_the_orms():
    # Given a dispatched event with two receipts, and one with none
    event = await Event.create(name="order.placed", data={"id": "order_1", "no_notification": False},
                               dispatched_at=datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=timezone.utc))
    for subscriber in ("notifications", "webhooks"):
        await EventReceipt.create(event_id=event.id, subscriber_id=subscriber)
    bare = await Event.create(name="customer.created", data={"id": "cus_1"})
    # When each is read in one statement
    for one, receipts in ((event, {"notifications", "webhooks"}), (bare, set())):
        mine, handled = await event_and_receipts(one.id)
        # I expect the ORM's event, loaded whole, and its receipts' subscribers
        theirs = await Event.get(id=one.id)
        assert _columns(mine) == _columns(theirs) and not mine._partial
        assert handled == {r.subscriber_id for r in await EventReceipt.filter(event_id=one.id)} == receipts
    assert await event_and_receipts("evt_nope") == (None, set())
