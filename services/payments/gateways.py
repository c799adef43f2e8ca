"""The process's payment gateways, beyond the built-in ones: Stripe when STRIPE_API_KEY is set,
and those other packages declare in the `commerce.payment_providers` entry-point group (as
`commerce.subscribers` are): each entry a callable taking the Settings and answering a provider
(services/payments/__init__.py's interface), or None to stay off."""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

from tortoise.exceptions import IntegrityError

from models import PaymentProvider as ProviderRow
from services.payments import register, registered_ids
from services.payments import stripe

__all__ = ["configure", "install", "ENTRY_POINT_GROUP"]

log = logging.getLogger("commerce.payments")

ENTRY_POINT_GROUP = "commerce.payment_providers"


def configure(settings) -> None:
    """The process's gateways: Stripe when its key is set, then the `commerce.payment_providers`
    entry points (each a callable of the settings answering a provider, or None to stay off)."""
    stripe.configure(settings)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            provider = entry.load()(settings)
        except Exception:
            log.exception("payment provider %s could not be loaded", entry.name)
            continue
        if provider is not None:
            register(provider)
            log.info("payment provider %s registered (%s)", provider.id, entry.name)


async def install() -> None:
    """Every registered provider has its row, installed, so regions can list it and
    GET /admin/store/payment-providers shows it; a row whose provider this process does not have
    (STRIPE_API_KEY removed, a package uninstalled) shows as not installed, as Medusa v1 does."""
    registered = registered_ids()
    await ProviderRow.filter(is_installed=True).exclude(id__in=registered).update(is_installed=False)
    await ProviderRow.filter(id__in=registered, is_installed=False).update(is_installed=True)
    for provider_id in registered:
        if await ProviderRow.filter(id=provider_id).exists():
            continue
        try:
            await ProviderRow.create(id=provider_id, is_installed=True)
        except IntegrityError:  # another process starting at the same moment wrote it
            pass
