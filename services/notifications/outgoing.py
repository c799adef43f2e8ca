"""What a notification provider is given and what it must do: kept apart from the package's
set-up so that providers (smtp, record) import it without importing the package back."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from html import escape
from typing import Protocol

__all__ = ["OutgoingMessage", "NotificationProvider"]


@dataclass(frozen=True)
class OutgoingMessage:
    kind: str  # the event name, e.g. customer.password_reset
    to: str
    subject: str
    body: str  # plain text
    data: dict  # Medusa's event payload, for providers that fill templates of their own
    secrets: tuple[str, ...] = field(default=(), repr=False)  # values never to record or log
    # The same for every send of one notification (its id): a message sent again because the
    # outcome of an earlier send is unknown (the worker died mid-send) is recognisably the same.
    message_id: str | None = None
    html: str | None = None  # the same message as HTML, for providers that send both

    def masked(self, mask: str = "[token]") -> "OutgoingMessage":
        """The message as it may be kept: every secret replaced by `mask`, in the subject, the text,
        the HTML (as written there too: autoescaped) and the data, since a shop's template may put
        a secret anywhere."""
        subject, body, data, html = self.subject, self.body, dict(self.data), self.html
        for secret in self.secrets:
            subject, body = subject.replace(secret, mask), body.replace(secret, mask)
            if html:
                html = html.replace(secret, mask).replace(escape(secret), mask)
            data = {k: mask if v == secret else v for k, v in data.items()}
        return replace(self, subject=subject, body=body, data=data, html=html, secrets=())

    def __repr__(self) -> str:  # a stray log of the object shows no token
        return f"OutgoingMessage(kind={self.kind!r}, to={self.to!r}, subject={self.subject!r})"


class NotificationProvider(Protocol):
    id: str  # recorded on the notification row (`provider_id`)

    async def send(self, message: OutgoingMessage) -> None:
        """Deliver the message, or raise: the job is then retried with backoff."""
