"""Stripe payments, as Medusa v1's medusa-payment-stripe 6.x offers them: cards (`stripe`) and its
providers for one European method each (`stripe-ideal` …, see provider.py), plus the webhook
(webhooks.py) and the reconciliation sweep (sweep.py).

Enabled by STRIPE_API_KEY: the built-in stripe plugin (services/builtin_plugins.py) offers every
one of them to the process (a region offers those it chooses), sharing one API client."""

from __future__ import annotations

from services.payments.stripe.client import StripeApi
from services.payments.stripe.provider import PROVIDER_ID, PROVIDER_IDS, StripeProvider

__all__ = ["build_providers", "PROVIDER_ID", "PROVIDER_IDS", "StripeProvider"]


def build_providers(settings) -> list[StripeProvider]:
    """The card provider first, then one per European method, over one API client."""
    api = StripeApi(settings.stripe_api_key, settings.stripe_api_base)
    return [StripeProvider(
        api, provider_id=provider_id, capture=settings.stripe_capture,
        automatic_payment_methods=settings.stripe_automatic_payment_methods,
        payment_description=settings.stripe_payment_description, webhook_secret=settings.stripe_webhook_secret,
    ) for provider_id in PROVIDER_IDS]
