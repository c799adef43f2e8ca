"""The store's start-up defaults: reference data, the store row, providers, profiles, channel.

Idempotent, like Medusa v1's loader: run by `commerce migrate` and before seeding. The counter
that numbers orders is the orders area's, ensured by the same start-up paths next to these
(services/orders/display_ids.py `ensure_sequence`): the store sits below orders and calls none of it.
"""

from __future__ import annotations

import time

from models import (
    Country, Currency, FulfillmentProvider, PaymentProvider, SalesChannel, ShippingProfile, Store,
    TaxProvider,
)
from models.data.countries import COUNTRIES
from models.data.currencies import CURRENCIES
from services.core.db import atomic

__all__ = [
    "ensure_defaults", "get_store", "default_channel_id", "forget_default_channel", "DEFAULT_CHANNEL_SECONDS",
    "BUILTIN_PAYMENT_PROVIDERS", "BUILTIN_FULFILLMENT_PROVIDERS",
]

BUILTIN_PAYMENT_PROVIDERS = ("system", "manual")
BUILTIN_FULFILLMENT_PROVIDERS = ("manual",)
BUILTIN_TAX_PROVIDERS = ("system",)


async def ensure_defaults() -> Store:
    async with atomic():
        have = set(await Currency.all().values_list("code", flat=True))
        await Currency.bulk_create(
            [Currency(code=c, symbol=s, symbol_native=n, name=name) for c, s, n, name in CURRENCIES if c not in have]
        )
        have = set(await Country.all().values_list("iso_2", flat=True))
        await Country.bulk_create(
            [
                Country(iso_2=i2, iso_3=i3, num_code=num, name=name, display_name=display)
                for i2, i3, num, name, display in COUNTRIES
                if i2 not in have
            ]
        )
        for model, ids in (
            (PaymentProvider, BUILTIN_PAYMENT_PROVIDERS),
            (FulfillmentProvider, BUILTIN_FULFILLMENT_PROVIDERS),
            (TaxProvider, BUILTIN_TAX_PROVIDERS),
        ):
            for provider_id in ids:
                await model.get_or_create(id=provider_id, defaults={"is_installed": True})
        for name, kind in (("Default Shipping Profile", "default"), ("Gift Card Profile", "gift_card")):
            if not await ShippingProfile.filter(type=kind, deleted_at=None).exists():
                await ShippingProfile.create(name=name, type=kind)
        store = await Store.first()
        if store is None:
            store = await Store.create(name="Medusa Store", default_currency_code="usd")
            await store.currencies.add(await Currency.get(code="usd"))
        if store.default_sales_channel_id is None:
            channel = await SalesChannel.create(
                name="Default Sales Channel", description="Created by Medusa", is_disabled=False
            )
            store.default_sales_channel_id = channel.id
            await store.save(update_fields=["default_sales_channel_id", "updated_at"])
            forget_default_channel()
        return store


async def get_store() -> Store:
    store = await Store.first()
    if store is None:
        store = await ensure_defaults()
    return store


DEFAULT_CHANNEL_SECONDS = 5.0
_default_channel: tuple[float, str | None] | None = None  # (valid until, channel id)


async def default_channel_id() -> str | None:
    """The store's default sales channel, remembered by this process for DEFAULT_CHANNEL_SECONDS:
    every storefront product list needs it, and it changes only when the merchant picks another
    (seen at once in the process that made the change, within the bound in the others)."""
    global _default_channel
    if _default_channel is not None and _default_channel[0] > time.monotonic():
        return _default_channel[1]
    channel = (await get_store()).default_sales_channel_id
    _default_channel = (time.monotonic() + DEFAULT_CHANNEL_SECONDS, channel)
    return channel


def forget_default_channel() -> None:
    global _default_channel
    _default_channel = None
