"""Stripe card payments, as Medusa v1's medusa-payment-stripe 6.x offers them (see provider.py),
plus the webhook (webhooks.py) and the reconciliation sweep (sweep.py).

Enabled by STRIPE_API_KEY: `configure` registers the provider for the process."""

from __future__ import annotations

from services.payments import register, unregister
from services.payments.stripe.client import StripeApi
from services.payments.stripe.provider import PROVIDER_ID, StripeProvider

__all__ = ["configure", "build_provider", "PROVIDER_ID", "StripeProvider"]


def build_provider(settings) -> StripeProvider:
    return StripeProvider(
        StripeApi(settings.stripe_api_key, settings.stripe_api_base), capture=settings.stripe_capture,
        automatic_payment_methods=settings.stripe_automatic_payment_methods,
        payment_description=settings.stripe_payment_description,
    )


def configure(settings) -> StripeProvider | None:
    """Register the provider when the settings name an API key; answers it (None: not configured)."""
    from services.payments.stripe.webhooks import set_secret

    set_secret(settings.stripe_webhook_secret if settings.stripe_api_key else None)
    if not settings.stripe_api_key:
        unregister(PROVIDER_ID)
        return None
    provider = build_provider(settings)
    register(provider)
    return provider
