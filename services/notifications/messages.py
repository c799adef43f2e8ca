"""The messages the shop sends, by kind: Medusa v1's event name and payload, the one-time token
each carries, and the subject and plain-text body a person reads.

A token is made by the worker that sends the message, never by the request that asks for it,
so its only clear copy is the message itself: the notification row and the log keep the body
with the token masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlencode

from services.customers.password_reset import RESET_TOKEN
from services.events import names as ev
from services.orders.claims import CLAIM_REQUESTED, CLAIM_TOKEN
from services.users.password_reset import USER_RESET_TOKEN

__all__ = [
    "PASSWORD_RESET", "ORDER_CLAIM", "ORDER_EDIT_REQUESTED", "RESET_TOKEN", "CLAIM_TOKEN", "MASK", "Composed",
    "TokenRequest", "token_request", "compose", "resource_type", "INVITE_CREATED", "USER_PASSWORD_RESET",
    "USER_RESET_TOKEN",
]

# Each kind is the event that asks for it (services/notifications/subscriber.py); the one-time
# token kinds are the areas' that spend the tokens (customers, orders, users).
PASSWORD_RESET = ev.CUSTOMER_PASSWORD_RESET  # data: id, email, first_name, last_name
# data: old_email, new_customer_id, orders (Medusa's); display_ids, account_email, signed_in_only (ours)
ORDER_CLAIM = CLAIM_REQUESTED
# data: id (the edit), order_id, display_id, difference_due, currency_code, payment_collection_id.
# No token: the edit's id is what lets the shopper open it (as in Medusa v1).
ORDER_EDIT_REQUESTED = ev.ORDER_EDIT_REQUESTED
# data: id, user_email, role. The token is made from the invite's row when the message leaves
# (services/users/team_tokens.py), not a one-time token: the admin can copy the same link.
INVITE_CREATED = ev.INVITE_CREATED
USER_PASSWORD_RESET = ev.USER_PASSWORD_RESET  # data: id, email, first_name, last_name (a back-office user)
MASK = "[token]"


@dataclass(frozen=True)
class TokenRequest:
    kind: str
    customer_id: str | None
    email: str | None
    data: dict = field(default_factory=dict)
    signed: bool = False  # the token is a JWT carrying `email`, which the dashboard reads


@dataclass(frozen=True)
class Composed:
    subject: str
    body: str
    payload: dict  # Medusa's event payload, token included: what a template-based provider needs


def resource_type(event_name: str) -> str:
    """Medusa's rule: the event name up to its first dot (`customer`, `order-update-token`)."""
    return event_name.split(".", 1)[0]


def token_request(event_name: str, data: dict) -> TokenRequest | None:
    """The one-time token the message carries; None for a message without one."""
    if event_name in (ORDER_EDIT_REQUESTED, INVITE_CREATED):
        return None
    if event_name == USER_PASSWORD_RESET:
        return TokenRequest(USER_RESET_TOKEN, None, data["email"], {"user_id": data["id"]}, signed=True)
    if event_name == PASSWORD_RESET:
        return TokenRequest(RESET_TOKEN, data["id"], data["email"])
    if event_name == ORDER_CLAIM:
        return TokenRequest(CLAIM_TOKEN, data["new_customer_id"], data["old_email"],
                            {"orders": data["orders"], "signed_in_only": bool(data.get("signed_in_only"))})
    raise KeyError(f"no message of kind {event_name}")


def _greeting(data: dict) -> str:
    name = " ".join(p for p in (data.get("first_name"), data.get("last_name")) if p)
    return f"Hello {name}," if name else "Hello,"


def _password_reset(data: dict, token: str, storefront: str) -> tuple[str, str]:
    link = f"{storefront}/reset-password?{urlencode({'email': data['email'], 'token': token})}"
    return "Reset your password", (
        f"{_greeting(data)}\n\n"
        f"Someone asked to reset the password of the account {data['email']}. To choose a new password, "
        f"open this link within 15 minutes (it works once):\n\n{link}\n\n"
        "If it was not you, ignore this message: your password stays as it is.\n"
    )


def _order_claim(data: dict, token: str, storefront: str) -> tuple[str, str]:
    link = f"{storefront}/claim-orders?{urlencode({'token': token})}"
    numbers = ", ".join(f"#{n}" for n in data.get("display_ids") or []) or f"{len(data['orders'])} order(s)"
    account = data.get("account_email") or "a customer account"
    how = ("sign in to that account, then open this link" if data.get("signed_in_only") else "open this link")
    return "Add your orders to your account", (
        "Hello,\n\n"
        f"The account {account} asked to add orders placed with {data['old_email']} to it: {numbers}. "
        f"If that was you, within 15 minutes {how} (it works once):\n\n{link}\n\n"
        "If it was not you, ignore this message: the orders stay as they are.\n"
    )


def _order_edit_requested(data: dict, token: str | None, storefront: str) -> tuple[str, str]:
    link = f"{storefront}/order-edits/{data['id']}"
    due = data.get("difference_due") or 0
    money = f"{abs(due) / 100:.2f} {(data.get('currency_code') or '').upper()}".strip()
    if due > 0:
        amount = f"The changes add {money} to pay; you can pay it on that page."
    elif due < 0:
        amount = f"The changes lower your order's total by {money}."
    else:
        amount = "The changes do not change your order's total."
    return f"Changes to your order #{data.get('display_id')}", (
        "Hello,\n\n"
        f"We propose changes to your order #{data.get('display_id')}. {amount} "
        f"To see them, and to accept or decline them, open:\n\n{link}\n"
    )


def _invite(data: dict, token: str, link_template: str) -> tuple[str, str]:
    link = link_template.replace("{invite_token}", token)
    return "You are invited to join the team", (
        "Hello,\n\n"
        f"You are invited to join the shop's team as {data.get('role') or 'member'}, with the email "
        f"{data['user_email']}. To accept, open this link within 7 days and choose your password:\n\n{link}\n\n"
        "If you did not expect this invitation, ignore this message.\n"
    )


def _user_password_reset(data: dict, token: str, admin: str) -> tuple[str, str]:
    link = f"{admin}/reset-password?{urlencode({'token': token})}"
    return "Reset your password", (
        f"{_greeting(data)}\n\n"
        f"Someone asked to reset the password of the back-office user {data['email']}. To choose a new "
        f"password, open this link within 15 minutes (it works once):\n\n{link}\n\n"
        "If it was not you, ignore this message: your password stays as it is.\n"
    )


_BODIES: dict[str, Callable[[dict, str | None, str], tuple[str, str]]] = {
    PASSWORD_RESET: _password_reset,
    ORDER_CLAIM: _order_claim,
    ORDER_EDIT_REQUESTED: _order_edit_requested,
    INVITE_CREATED: _invite,
    USER_PASSWORD_RESET: _user_password_reset,
}
# Medusa's payload keys per event; anything else in `data` is ours.
_PAYLOAD_KEYS = {
    PASSWORD_RESET: ("id", "email", "first_name", "last_name"),
    ORDER_CLAIM: ("old_email", "new_customer_id", "orders"),
    ORDER_EDIT_REQUESTED: ("id",),
    INVITE_CREATED: ("id", "user_email"),
    USER_PASSWORD_RESET: ("email",),
}


def compose(
    event_name: str, data: dict, token: str | None, storefront_url: str, *, admin_url: str = "",
    invite_link_template: str | None = None,
) -> Composed:
    """`admin_url`: where the dashboard lives (the team's links); `invite_link_template`: the
    store's, with `{invite_token}` (else the dashboard's own invite page)."""
    if event_name == INVITE_CREATED:
        base = invite_link_template or f"{admin_url.rstrip('/')}/invite?token={{invite_token}}"
    elif event_name == USER_PASSWORD_RESET:
        base = admin_url.rstrip("/")
    else:
        base = storefront_url.rstrip("/")
    subject, body = _BODIES[event_name](data, token, base)
    payload = {k: data.get(k) for k in _PAYLOAD_KEYS[event_name]}
    return Composed(subject, body, {**payload, "token": token} if token is not None else payload)
