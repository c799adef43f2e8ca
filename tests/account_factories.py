"""Factories for account tests: guest orders, a recording notification provider, the messages it
received (tokens in clear, as a person's mailbox would), and counters wiped between tests."""

from __future__ import annotations

from types import SimpleNamespace

from sanic import Sanic

from models import Customer, Event, Notification, Order, Region
from services import notifications
from services.events.dispatch import dispatch
from services.orders.display_ids import next_display_id
from services.notifications.delivery import deliver
from services.notifications.subscriber import ASKED
from services.notifications.record import RecordProvider
from tests.conftest import SETTINGS

__all__ = [
    "region", "guest_order", "recorder", "hear_events", "deliver_pending", "sent_to", "token_sent_to",
    "forget_rate_limits",
]


async def region(name: str = "NA") -> Region:
    return await Region.get_or_none(name=name) or await Region.create(name=name, currency_code="usd")


async def guest_order(email: str, customer: Customer | None = None) -> Order:
    """An order placed without an account (its customer is the email's guest row, made if needed)."""
    if customer is None:
        customer = await Customer.get_or_none(email=email, has_account=False) or await Customer.create(
            email=email, has_account=False
        )
    display_id = await next_display_id()  # outside any transaction, as it asks
    return await Order.create(display_id=display_id, customer=customer, email=email, region=await region(),
                              currency_code="usd")


def recorder() -> RecordProvider:
    """A fresh recording provider as this process's notification provider."""
    provider = notifications.configure(SETTINGS)
    assert isinstance(provider, RecordProvider)
    return provider


async def hear_events() -> int:
    """What a worker would do with the events that ask for a message (a password reset, an invite,
    an order claim, an order edit to confirm): hand each to its subscribers once, so the
    notifications write the message. Answers how many."""
    events = await Event.filter(dispatched_at=None, name__in=sorted(ASKED)).order_by("created_at")
    for event in events:
        await dispatch(event.id)
    return len(events)


async def deliver_pending() -> int:
    """What a worker would do: hear the events that ask for messages, then send every pending
    message once."""
    await hear_events()
    pending = await Notification.filter(status="pending").order_by("created_at")
    for note in pending:
        await deliver(note.id, max_attempts=1)
    return len(pending)


def sent_to(provider: RecordProvider, email: str) -> list:
    return [m for m in provider.delivered if m.to == email]


async def token_sent_to(provider: RecordProvider, email: str) -> str:
    await deliver_pending()
    messages = sent_to(provider, email)
    assert messages, f"no message was sent to {email}"
    return messages[-1].data["token"]


async def forget_rate_limits() -> None:
    """Wipe every rate-limit counter of the test server (memory or Redis)."""
    from app.web.rate_limits import _memory, limiter

    await _memory.clear()
    # limiter() only reads request.app: the session's shared test server
    await limiter(SimpleNamespace(app=Sanic.get_app("commerce_test"))).store.clear()
