"""Notification providers: how a message reaches a person. One small interface
(services/notifications/outgoing.py); the provider is a plugin's (services/core/plugins.py
`Providers.notification`: the built-in SMTP plugin's when SMTP_HOST is set, an e-mail API's or an
SMS service's), else the recording provider (the embedded default, which needs no mail server).
Messages are jobs: see services/notifications/delivery.py; their
words are templates the shop or a plugin may override: services/notifications/rendering.py.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

from services.notifications.outgoing import NotificationProvider, OutgoingMessage
from services.notifications.rendering import use_templates

__all__ = [
    "OutgoingMessage", "NotificationProvider", "configure", "is_configured", "provider",
    "storefront_url", "admin_url", "invite_origins", "signing_secret",
]


log = logging.getLogger("commerce.notifications")

_provider: NotificationProvider | None = None
_storefront_url = "http://localhost:8000"
_admin_url = "http://localhost:7001"
_invite_origins: tuple[str, ...] = (_admin_url,)  # where an invitation's link may go (Settings.invite_origins)
_signing_secret: str | None = None  # JWT_SECRET: the team's messages carry JWTs the dashboard reads
_warn_unsent = False  # production without SMTP_HOST: said once, by the first message sent


def configure(settings, offered: NotificationProvider | None = None, *,
              template_dirs: Sequence[str | Path] = ()) -> NotificationProvider:
    """Set the process's provider (the one a plugin offers, else the recording one), link base and
    templates from its settings (every process at start-up: services/setup.py). `template_dirs`:
    folders of templates searched after the shop's (NOTIFICATION_TEMPLATES) and before the built-in
    ones (the plugins'); a template there or in the shop's folder that does not compile stops
    start-up (ValueError naming the file)."""
    global _provider, _storefront_url, _admin_url, _invite_origins, _signing_secret, _warn_unsent
    use_templates(getattr(settings, "notification_templates", None), template_dirs)
    if offered is None:
        from services.notifications.record import RecordProvider

        offered = RecordProvider()
    _provider = offered
    _storefront_url = settings.storefront_url.rstrip("/")
    _admin_url = settings.admin_url.rstrip("/")
    _invite_origins = settings.invite_origins
    _signing_secret = settings.jwt_secret
    # Said where messages are sent, not by every process that starts (a `commerce migrate`).
    _warn_unsent = bool(getattr(settings, "production", False)) and _provider.id == "record"
    return _provider


def is_configured() -> bool:
    return _provider is not None


def provider() -> NotificationProvider:
    global _warn_unsent
    if _provider is None:
        raise RuntimeError("notifications are not configured: call services.setup.configure(settings)")
    if _warn_unsent:
        _warn_unsent = False
        log.warning("no SMTP_HOST nor a plugin's notification provider: messages (password reset, order claim) "
                    "are recorded but reach nobody")
    return _provider


def storefront_url() -> str:
    return _storefront_url


def admin_url() -> str:
    return _admin_url


def invite_origins() -> tuple[str, ...]:
    return _invite_origins


def signing_secret() -> str:
    if _signing_secret is None:
        raise RuntimeError("notifications are not configured: call services.setup.configure(settings)")
    return _signing_secret
