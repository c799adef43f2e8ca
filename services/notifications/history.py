"""The messages sent, as the back office reads them: a list filtered
by resource, kind and address, each original with its resends, and resending one.

A resend is a new notification row asked for through the outbox like the original
(services/notifications/delivery.py), so its worker composes it again: a message that carries a
credential (a password reset, an order claim, an invitation, a gift card's code) gets a fresh
token, never the masked body that was kept. Such a message goes only to the address its original
was meant for (a reset link or an invitation sent elsewhere would hand over an account), and only
by someone allowed to ask for it anew: an invitation by an admin, as inviting is.

A resend names its original in `parent_id`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from services.core import outbox
from models import Notification, User
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, find_page
from services.notifications.delivery import SEND_ACTOR
from services.notifications.messages import INVITE_CREATED, token_request
from services.notifications.order_messages import ORDER_KINDS
from services.users.roles import require_admin

__all__ = ["NotificationFilter", "list_notifications", "resends_of", "get_notification", "resend_notification"]

_ONLY_ITS_ADDRESS = (
    "A message carrying a credential (a link or code) can only be resent to the address it was first sent to"
)


@dataclass
class NotificationFilter:
    event_name: list[str] = field(default_factory=list)
    resource_type: list[str] = field(default_factory=list)
    resource_id: list[str] = field(default_factory=list)
    to: list[str] = field(default_factory=list)
    include_resends: bool = False


async def list_notifications(f: NotificationFilter, config: FindConfig) -> tuple[list[Notification], int]:
    """One page, newest first; only originals unless `include_resends`."""
    qs = Notification.all()
    for column in ("event_name", "resource_type", "resource_id", "to"):
        values = [v for v in getattr(f, column) if fits(Notification, v, column)]
        if getattr(f, column) and not values:
            return [], 0  # longer than the column: nothing has it
        if values:
            qs = qs.filter(**{f"{column}__in": values})
    if not f.include_resends:
        qs = qs.filter(parent_id=None)
    return await find_page(qs, replace(config, relations=()))  # resends: see resends_of


async def resends_of(notes: list[Notification]) -> dict[str, list[Notification]]:
    """The resends of each notification, oldest first, in one statement."""
    ids = [n.id for n in notes]
    out: dict[str, list[Notification]] = {i: [] for i in ids}
    if ids:
        for row in await Notification.filter(parent_id__in=ids).order_by("created_at", "id"):
            out[row.parent_id].append(row)
    return out


async def get_notification(notification_id: str) -> Notification:
    note = await Notification.get_or_none(id=notification_id) if fits(Notification, notification_id) else None
    if note is None:
        raise NotFound(f"Notification with id: {notification_id} was not found.")
    return note


async def resend_notification(actor: User, notification_id: str, to: str | None = None) -> Notification:
    """Ask for the message again, to `to` or its first address; answers the original."""
    note = await get_notification(notification_id)
    original = await get_notification(note.parent_id) if note.parent_id else note
    if note.event_name == INVITE_CREATED:
        require_admin(actor, "resend invitations")
    address = to.strip() if to else note.to
    # The original's address: a resend sent elsewhere (before this rule) passes on no credential.
    if _carries_credential(note) and address.casefold() != original.to.casefold():
        raise InvalidData(_ONLY_ITS_ADDRESS)
    async with atomic():
        again = await Notification.create(
            event_name=note.event_name, resource_type=note.resource_type, resource_id=note.resource_id,
            customer_id=note.customer_id, to=address, data=note.data, status="pending",
            parent_id=original.id,
        )
        await outbox.enqueue(SEND_ACTOR, again.id)
    return original


def _carries_credential(note: Notification) -> bool:
    if note.event_name in ORDER_KINDS:
        return note.event_name == "gift_card.created"  # its code spends the card, as a token would
    if note.event_name == INVITE_CREATED:
        return True  # not a one-time token, but a link that makes its holder a user with the role
    try:
        return token_request(note.event_name, note.data) is not None
    except KeyError:
        raise InvalidData(f"Notifications of {note.event_name} cannot be resent") from None
