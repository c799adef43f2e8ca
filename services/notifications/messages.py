"""The messages the shop sends, by kind: Medusa v1's event name and payload, the one-time token
each carries, and the link it asks its reader to open; the words are templates
(services/notifications/rendering.py).

A token is made by the worker that sends the message, never by the request that asks for it,
so its only clear copy is the message itself: the notification row and the log keep the body
with the token masked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from services.customers.password_reset import RESET_TOKEN
from services.events import names as ev
from services.notifications.rendering import context, render
from services.orders.claims import CLAIM_REQUESTED, CLAIM_TOKEN
from services.users.password_reset import USER_RESET_TOKEN

__all__ = [
    "PASSWORD_RESET", "ORDER_CLAIM", "ORDER_EDIT_REQUESTED", "RESET_TOKEN", "CLAIM_TOKEN", "MASK", "Composed",
    "TokenRequest", "token_request", "compose", "link", "resource_type", "INVITE_CREATED", "USER_PASSWORD_RESET",
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
    html: str


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


# Medusa's payload keys per event; anything else in `data` is ours.
_PAYLOAD_KEYS = {
    PASSWORD_RESET: ("id", "email", "first_name", "last_name"),
    ORDER_CLAIM: ("old_email", "new_customer_id", "orders"),
    ORDER_EDIT_REQUESTED: ("id",),
    INVITE_CREATED: ("id", "user_email"),
    USER_PASSWORD_RESET: ("email",),
}


def link(
    event_name: str, data: dict, token: str | None, storefront_url: str, *, admin_url: str = "",
    invite_link_template: str | None = None,
) -> str:
    """The link the message asks its reader to open. `invite_link_template`: the store's, with
    `{invite_token}` (else the dashboard's own invite page)."""
    storefront, admin = storefront_url.rstrip("/"), admin_url.rstrip("/")
    if event_name == PASSWORD_RESET:
        return f"{storefront}/reset-password?{urlencode({'email': data['email'], 'token': token})}"
    if event_name == ORDER_CLAIM:
        return f"{storefront}/claim-orders?{urlencode({'token': token})}"
    if event_name == ORDER_EDIT_REQUESTED:
        return f"{storefront}/order-edits/{data['id']}"
    if event_name == INVITE_CREATED:
        return (invite_link_template or f"{admin}/invite?token={{invite_token}}").replace("{invite_token}", token or "")
    if event_name == USER_PASSWORD_RESET:
        return f"{admin}/reset-password?{urlencode({'token': token})}"
    raise KeyError(f"no message of kind {event_name}")


def compose(
    event_name: str, data: dict, token: str | None, storefront_url: str, *, admin_url: str = "",
    invite_link_template: str | None = None, store_name: str = "Our shop", customer: dict | None = None,
) -> Composed:
    """The message rendered from its templates (services/notifications/rendering.py). `admin_url`:
    where the dashboard lives (the team's links); `customer`: the row's customer, if any."""
    own = link(event_name, data, token, storefront_url, admin_url=admin_url, invite_link_template=invite_link_template)
    values = context(data, store_name=store_name, storefront_url=storefront_url, admin_url=admin_url, link=own,
                     token=token, customer=customer)
    rendered = render(event_name, values)
    payload = {k: data.get(k) for k in _PAYLOAD_KEYS[event_name]}
    return Composed(rendered.subject, rendered.text, {**payload, "token": token} if token is not None else payload,
                    rendered.html)
