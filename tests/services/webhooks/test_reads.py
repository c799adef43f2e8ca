"""The webhooks' hand-written read (services/webhooks/reads.py: the enabled endpoints' ids and event
names) answers what the ORM reads, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

from models import WebhookEndpoint
from services.webhooks.reads import enabled_endpoints


async def test_the_enabled_endpoints_read_by_hand_are_the_orms():
    # Given endpoints enabled, disabled and deleted, for some events or every one
    for n, (events, status, deleted) in enumerate((
            (["order.placed"], "enabled", None), (["*"], "enabled", None),
            (["order.placed", "customer.created"], "disabled", None),
            (["*"], "enabled", datetime(2024, 5, 1, tzinfo=timezone.utc)))):
        await WebhookEndpoint.create(url=f"https://example.com/{n}", events=events, secret=f"whsec_{n}", status=status,
                                     deleted_at=deleted)
    # When they are read by hand
    mine = sorted(await enabled_endpoints())
    # I expect the ORM's read of them
    theirs = sorted((e.id, e.events) for e in await WebhookEndpoint.filter(deleted_at=None, status="enabled")
                    .only("id", "events"))
    assert mine == theirs and len(mine) == 2 and {tuple(names) for _, names in mine} == {("order.placed",), ("*",)}
