"""Messages as jobs. Asking for one (the notifications' subscriber does, for the event that calls
for it) writes a `notification` row (pending) and its job in the caller's transaction (the
outbox); the worker then makes the message's token, sends it through the configured provider and
records the outcome on the row. A failed delivery is raised so the job is retried with backoff;
the row keeps the error, and ends `failed` when retries run out.
"""

from __future__ import annotations

from datetime import datetime, timezone

from services.core import outbox
from models import Customer, Invite, Notification, OneTimeToken, OrderEdit, Store, User
from services.core import clock, one_time_tokens
from services.core.db import atomic
from services.core.sql import db_value, insert, write
from services.notifications.messages import (
    INVITE_CREATED, MASK, ORDER_CLAIM, ORDER_EDIT_REQUESTED, PASSWORD_RESET, USER_PASSWORD_RESET, compose,
    resource_type, token_request,
)
from services.notifications.order_messages import ORDER_KINDS, compose_order, with_secrets
from services.notifications.reads import Sending, note_and_shop
from services.notifications import OutgoingMessage, admin_url, invite_origins, provider, signing_secret, storefront_url
from services.users.invite_links import safe_invite_link_template
from services.users.team_tokens import invite_token, reset_token

__all__ = ["SEND_ACTOR", "queue_message", "deliver"]

SEND_ACTOR = "send_notification"


async def queue_message(
    event_name: str, *, to: str, data: dict, customer_id: str | None = None, resource_id: str | None = None,
) -> Notification:
    """Ask for a message; it leaves once the caller's transaction commits."""
    async with atomic():
        note = Notification(
            event_name=event_name, resource_type=resource_type(event_name), resource_id=resource_id,
            customer_id=customer_id, to=to, data=data, status="pending",
        )
        await insert(note, at_end=True)  # with its job, at the transaction's end (services/core/db.py)
        await outbox.enqueue_at_end(SEND_ACTOR, note.id)
    return note


async def _reason_not_to_send(note: Notification) -> str | None:
    """A message asked for a while ago may no longer make sense (the account was deleted)."""
    if note.event_name in ORDER_KINDS:
        return None  # what happened to an order stays true
    if note.event_name == PASSWORD_RESET:
        live = Customer.filter(id=note.data.get("id"), email=note.to, has_account=True, deleted_at=None)
    elif note.event_name == ORDER_CLAIM:
        live = Customer.filter(id=note.data.get("new_customer_id"), has_account=True, deleted_at=None)
    elif note.event_name == USER_PASSWORD_RESET:
        live = User.filter(id=note.data.get("id"), email=note.to, deleted_at=None)
        return None if await live.exists() else "the user no longer exists"
    elif note.event_name == INVITE_CREATED:
        live = Invite.filter(id=note.data.get("id"), deleted_at=None, accepted=False, expires_at__gt=clock.now())
        return None if await live.exists() else "the invite was accepted, deleted or has expired"
    elif note.event_name == ORDER_EDIT_REQUESTED:
        still_asked = OrderEdit.filter(
            id=note.data.get("id"), requested_at__not_isnull=True, confirmed_at=None, declined_at=None,
            canceled_at=None,
        )
        return None if await still_asked.exists() else "the order edit is no longer awaiting the shopper"
    else:
        return f"unknown message kind {note.event_name}"
    return None if await live.exists() else "the customer account no longer exists"


async def _make_token(note: Notification) -> tuple[str | None, OneTimeToken | None]:
    """The message's token, and its row when it is a one-time token (dropped if sending fails)."""
    if note.event_name == INVITE_CREATED:  # from the invite's current row: a resend's nonce wins
        invite = await Invite.get(id=note.data["id"])
        return invite_token(signing_secret(), invite), None
    if note.event_name in ORDER_KINDS:
        return None, None
    wanted = token_request(note.event_name, note.data)
    if wanted is None:
        return None, None
    return await one_time_tokens.issue(
        wanted.kind, customer_id=wanted.customer_id, email=wanted.email, data=wanted.data,
        token=reset_token(signing_secret(), wanted.email) if wanted.signed else None,
    )


async def _message(note: Notification, sending: Sending, data: dict, secrets: tuple[str, ...],
                   token: str | None) -> OutgoingMessage:
    """The message rendered from its templates; raises what a broken template raises."""
    if note.event_name in ORDER_KINDS:
        subject, body, html = compose_order(note.event_name, data, storefront_url(), sending.shop_name,
                                            sending.swap_link, admin_url=admin_url(), customer=sending.customer)
        return OutgoingMessage(note.event_name, note.to, subject, body, data, secrets, message_id=note.id, html=html)
    store = await Store.first() if note.event_name == INVITE_CREATED else None
    template = safe_invite_link_template(store.invite_link_template, invite_origins()) if store else None
    composed = compose(note.event_name, data, token, storefront_url(), admin_url=admin_url(),
                       invite_link_template=template, store_name=sending.shop_name, customer=sending.customer)
    return OutgoingMessage(note.event_name, note.to, composed.subject, composed.body, composed.payload,
                           secrets, message_id=note.id, html=composed.html)


# A message sent: `Notification.filter(id=…).update(status="sent", …)`, written once (every order placed
# sends one).
_SENT = ('UPDATE "notification" SET "status" = \'sent\', "attempts" = ?, "sent_at" = ?, "subject" = ?, "body" = ?, '
         '"provider_id" = ?, "last_error" = NULL WHERE "id" = ?')


async def deliver(notification_id: str, *, max_attempts: int) -> dict:
    """Send the notification once; safe to run again (a sent one is skipped). A message that
    cannot be rendered (a shop's template fails) fails like a send: the row keeps the error."""
    sending = await note_and_shop(notification_id)
    note = sending.note
    if note is None or note.status == "sent":
        return {"skipped": notification_id}
    attempts = note.attempts + 1
    reason = await _reason_not_to_send(note)
    if reason:
        await Notification.filter(id=note.id).update(status="failed", attempts=attempts, last_error=reason)
        return {"dropped": notification_id, "reason": reason}
    token, row = await _make_token(note)
    data, secrets = await with_secrets(note.event_name, note.data)
    secrets = (*secrets, token) if token else secrets
    chosen = provider()
    try:
        message = await _message(note, sending, data, secrets, token)
        await chosen.send(message)
    except Exception as e:
        if row is not None:
            await row.delete()  # never delivered (or not known to be): it must not stay usable
        error = f"{type(e).__name__}: {e}"
        for secret in secrets:  # a template's error may quote what it was given
            error = error.replace(secret, MASK)
        await Notification.filter(id=note.id).update(
            status="failed" if attempts >= max_attempts else "pending", attempts=attempts,
            last_error=error[:4000], provider_id=chosen.id,
        )
        raise
    kept = message.masked()
    await write(Notification, _SENT, [
        attempts, db_value(Notification, "sent_at", datetime.now(timezone.utc)), kept.subject[:500], kept.body,
        chosen.id, note.id,
    ])
    return {"sent": notification_id, "provider_id": chosen.id}
