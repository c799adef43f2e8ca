"""Who hears events: a registry of subscribers, each with a stable id, the event names it wants
(or every event Medusa names: an internal one, services/events/names.py, reaches only those that
name it) and an async handler given the event. The areas' subscribers are registered by the
composition root (services/setup.py: the notifications and the webhooks, which sit above the areas
whose events they hear, and checkout's and orders' of what a gateway said) and by the plugins
(services/core/plugins.py `Plugin.subscribers`, docs/plugins.md): each a function called once per
process with `subscribe`.

A handler runs inside a transaction together with its receipt (services/events/dispatch.py): its
writes and the fact that it handled the event commit together. It may be run again for the same
event only if it failed, so it should reload what it needs by id and may raise to be retried."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable, Iterable

from models import Event
from services.events.names import INTERNAL_EVENT_NAMES

__all__ = ["Subscriber", "subscribe", "subscribers_for", "load_subscribers", "unsubscribe"]

Handler = Callable[[Event], Awaitable[None]]


@dataclass(frozen=True)
class Subscriber:
    id: str
    events: frozenset[str] | None  # None: every event
    handle: Handler
    # Its handler only reads and writes this database in the dispatch's transaction (no call out):
    # its receipt may then be written at the transaction's end with its rows (services/events/dispatch.py).
    rows_only: bool = False


_registry: dict[str, Subscriber] = {}
_loaded = False


def subscribe(subscriber_id: str, events: list[str] | str, handle: Handler, *, rows_only: bool = False) -> None:
    """Register `handle` for `events` (a list of names, or "*"); the id must stay the same across
    deploys: receipts name it. `rows_only`: the handler does nothing but read and write this
    database (see `Subscriber`)."""
    names = None if events == "*" else frozenset([events] if isinstance(events, str) else events)
    _registry[subscriber_id] = Subscriber(subscriber_id, names, handle, rows_only)


def unsubscribe(subscriber_id: str) -> None:
    _registry.pop(subscriber_id, None)


def load_subscribers(registrations: Iterable[Callable[[Callable], None]]) -> None:
    """The subscribers of `registrations` (each a function given `subscribe`: the composition
    root's list, the areas' then the plugins'); once per process."""
    global _loaded
    if _loaded:
        return
    for register in registrations:
        register(subscribe)
    _loaded = True


def subscribers_for(name: str) -> list[Subscriber]:
    if not _loaded:  # dispatching now would mark the event handled with its subscribers unheard
        raise RuntimeError("event subscribers are not registered: call services.setup.configure(settings)")
    every = name not in INTERNAL_EVENT_NAMES  # an internal event is heard only by who names it
    return [s for s in _registry.values() if (s.events is None and every) or (s.events and name in s.events)]
