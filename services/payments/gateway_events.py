"""A gateway's recorded event (`GatewayEvent`, one row per event id the gateway sent) and the
end of its handling. The payments area reads what the gateway says; what it means for a cart or an
order is done by the areas above, which hear it as an internal event (services/events/names.py)
and finish the row here with what they did. Until then the row is handed over: its `outcome` says
to whom, its `handled_at` is empty."""

from __future__ import annotations

import logging

from models import GatewayEvent
from services.core import clock

__all__ = ["finish_gateway_event"]

log = logging.getLogger("commerce.stripe")


async def finish_gateway_event(event_id: str, outcome: str) -> None:
    """The event marked handled with what its handling did (once: a repeat changes nothing)."""
    done = await GatewayEvent.filter(id=event_id, handled_at=None).update(
        handled_at=clock.now(), outcome=outcome[:2000])
    if done:
        log.info("gateway event %s: %s", event_id, outcome)
