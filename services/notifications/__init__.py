"""Notification providers: how a message reaches a person. One small interface, chosen by
configuration: SMTP when SMTP_HOST is set, else the recording provider (the embedded default,
which needs no mail server). Messages are jobs: see services/notifications/delivery.py.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Protocol

__all__ = [
    "OutgoingMessage", "NotificationProvider", "provider_for", "configure", "is_configured", "provider",
    "storefront_url",
]


@dataclass(frozen=True)
class OutgoingMessage:
    kind: str  # the event name, e.g. customer.password_reset
    to: str
    subject: str
    body: str  # plain text
    data: dict  # Medusa's event payload, for providers that fill templates of their own
    secrets: tuple[str, ...] = field(default=(), repr=False)  # values never to record or log

    def masked(self, mask: str = "[token]") -> "OutgoingMessage":
        """The message as it may be kept: every secret replaced by `mask`."""
        body, data = self.body, dict(self.data)
        for secret in self.secrets:
            body = body.replace(secret, mask)
            data = {k: mask if v == secret else v for k, v in data.items()}
        return replace(self, body=body, data=data, secrets=())

    def __repr__(self) -> str:  # a stray log of the object shows no token
        return f"OutgoingMessage(kind={self.kind!r}, to={self.to!r}, subject={self.subject!r})"


class NotificationProvider(Protocol):
    id: str  # recorded on the notification row (`provider_id`)

    async def send(self, message: OutgoingMessage) -> None:
        """Deliver the message, or raise: the job is then retried with backoff."""


log = logging.getLogger("commerce.notifications")

_provider: NotificationProvider | None = None
_storefront_url = "http://localhost:8000"


def provider_for(settings) -> NotificationProvider:
    if getattr(settings, "smtp_host", None):
        from services.notifications.smtp import SmtpProvider

        return SmtpProvider.from_settings(settings)
    from services.notifications.record import RecordProvider

    return RecordProvider()


def configure(settings) -> NotificationProvider:
    """Set the process's provider and link base from its settings."""
    global _provider, _storefront_url
    _provider = provider_for(settings)
    _storefront_url = settings.storefront_url.rstrip("/")
    if getattr(settings, "production", False) and _provider.id == "record":
        log.warning("no SMTP_HOST: messages (password reset, order claim) are recorded but reach nobody")
    return _provider


def is_configured() -> bool:
    return _provider is not None


def provider() -> NotificationProvider:
    if _provider is None:
        raise RuntimeError("notifications are not configured: call services.notifications.configure(settings)")
    return _provider


def storefront_url() -> str:
    return _storefront_url
