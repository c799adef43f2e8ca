"""Webhooks: endpoints a merchant registers, and deliveries of events to them signed and retried
as the Standard Webhooks specification says. Our extension of
the Medusa v1 API (README "Webhooks")."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["configure", "settings", "WebhookSettings"]


@dataclass(frozen=True)
class WebhookSettings:
    """What the webhooks read of a process's settings (app.config.Settings has these fields)."""

    webhooks_allow_private: bool = False
    webhook_timeout_seconds: float = 10.0
    webhook_disable_after_seconds: float = 5 * 86400.0


_settings: WebhookSettings = WebhookSettings()


def configure(settings) -> None:
    """Every process calls this at start-up (services/setup.py); unconfigured, the defaults
    apply (public addresses only)."""
    global _settings
    _settings = WebhookSettings(
        settings.webhooks_allow_private, settings.webhook_timeout_seconds, settings.webhook_disable_after_seconds,
    )


def settings() -> WebhookSettings:
    return _settings
