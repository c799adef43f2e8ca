"""The store's settings: its name, link templates, currencies, default
currency and default sales channel, and the providers installed in it.

The link templates shape links that carry credentials (an invitation's token, a swap's cart id):
only an admin changes them, and an invitation's link stays on the dashboard's origins."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from models import Currency, FulfillmentProvider, PaymentProvider, Region, SalesChannel, Store, TaxProvider, User
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotAllowed, NotFound
from services.core.metadata import merge_metadata
from services.regions.tax_providers import SYSTEM
from services.store.defaults import forget_default_channel, get_store
from services.users.invite_links import check_invite_link_template
from services.users.roles import require_admin

__all__ = [
    "StoreDetails", "load_store", "update_store", "add_store_currency", "remove_store_currency",
    "list_payment_providers", "list_fulfillment_providers", "list_tax_providers",
]

_DEFAULT_REMOVED = "You are not allowed to remove default currency from store currencies without replacing it as well"
_KEEP: Any = object()


@dataclass(frozen=True)
class StoreDetails:
    """The store with what every answer about it shows."""

    store: Store
    currencies: list[Currency]  # by code
    default_currency: Currency | None
    default_sales_channel: SalesChannel | None
    # Only when asked for (`GET /admin/store`): every provider row, installed or not.
    payment_providers: list[PaymentProvider] | None = None
    fulfillment_providers: list[FulfillmentProvider] | None = None


async def load_store(*, with_providers: bool = False) -> StoreDetails:
    details = await _details(await get_store())
    if not with_providers:
        return details
    return replace(
        details, payment_providers=await list_payment_providers(),
        fulfillment_providers=await list_fulfillment_providers(),
    )


async def _details(store: Store) -> StoreDetails:
    currencies = await Currency.filter(stores__id=store.id).order_by("code")
    code = store.default_currency_code
    default = next((c for c in currencies if c.code == code), None) or await Currency.get_or_none(code=code)
    channel_id = store.default_sales_channel_id
    channel = await SalesChannel.get_or_none(id=channel_id, deleted_at=None) if channel_id else None
    return StoreDetails(store, currencies, default, channel)


async def _locked_store() -> Store:
    await get_store()  # creates the defaults on a database that has none yet
    return await Store.select_for_update().order_by("created_at").first()


async def update_store(
    actor: User, *, invite_origins: tuple[str, ...] = (), name: str = _KEEP,
    swap_link_template: str | None = _KEEP, payment_link_template: str | None = _KEEP,
    invite_link_template: str | None = _KEEP, default_currency_code: str = _KEEP, currencies: list[str] = _KEEP,
    default_sales_channel_id: str = _KEEP, metadata: dict | None = None,
) -> StoreDetails:
    """Change the arguments given. `currencies` replaces the store's whole list and must keep the
    (new) default currency; a currency a live region sells in cannot leave it. Codes in any case.
    A link template that changes needs an admin; an invitation's, one of `invite_origins`."""
    async with atomic():
        store = await _locked_store()
        templates = {"swap_link_template": swap_link_template, "payment_link_template": payment_link_template,
                     "invite_link_template": invite_link_template}
        # An empty template (a form's blank field) clears it, as null does.
        templates = {k: None if isinstance(v, str) and not v.strip() else v for k, v in templates.items()}
        changed = {k: v for k, v in templates.items() if v is not _KEEP and v != getattr(store, k)}
        if changed:  # the dashboard's form sends them all: one sent as it is changes nothing
            require_admin(actor, "change the store's link templates")
        if changed.get("invite_link_template") is not None:
            check_invite_link_template(invite_link_template, invite_origins)
        await store.fetch_related("currencies")
        current = {c.code for c in store.currencies}
        default = store.default_currency_code if default_currency_code is _KEEP else default_currency_code.lower()
        if currencies is not _KEEP:
            codes = list(dict.fromkeys(c.lower() for c in currencies))
            if default not in codes:
                raise InvalidData(_DEFAULT_REMOVED)
            known = {c.code: c for c in await Currency.filter(code__in=codes)}
            missing = [c for c in currencies if c.lower() not in known]
            if missing:
                raise InvalidData(f"Currency with code {missing[0]} does not exist")
            await _refuse_removing_region_currencies(current - set(codes))
            if set(codes) != current:
                await store.currencies.clear()
                await store.currencies.add(*(known[c] for c in codes))
            current = set(codes)
        if default_currency_code is not _KEEP and default not in current:
            raise InvalidData(f"Store does not have currency: {default_currency_code}")
        if default_sales_channel_id is not _KEEP:
            if not await SalesChannel.filter(id=default_sales_channel_id, deleted_at=None).exists():
                raise NotFound(f"Sales channel with id: {default_sales_channel_id} was not found")
            store.default_sales_channel_id = default_sales_channel_id
        store.default_currency_code = default
        if name is not _KEEP:
            store.name = name
        for key, value in changed.items():
            setattr(store, key, value)
        store.metadata = merge_metadata(store.metadata, metadata)
        await store.save()
    forget_default_channel()
    return await _details(store)


async def add_store_currency(code: str) -> StoreDetails:
    async with atomic():
        store = await _locked_store()
        currency = await Currency.get_or_none(code=code.lower())
        if currency is None:
            raise InvalidData(f"Currency {code} not found")
        if await store.currencies.filter(code=currency.code).exists():
            raise Duplicate("Currency already added")
        await store.currencies.add(currency)
    return await _details(store)


async def remove_store_currency(code: str) -> StoreDetails:
    """Remove a currency from the store; one it does not have changes nothing. Unlike Medusa v1,
    the default currency and a currency a live region sells in stay (400)."""
    code = code.lower()
    async with atomic():
        store = await _locked_store()
        if code == store.default_currency_code:
            raise NotAllowed(_DEFAULT_REMOVED)
        currency = await store.currencies.filter(code=code).first()
        if currency is not None:
            await _refuse_removing_region_currencies({code})
            await store.currencies.remove(currency)
    return await _details(store)


async def _refuse_removing_region_currencies(codes: set[str]) -> None:
    # Regions may only sell in the store's currencies: keep that true.
    if not codes:
        return
    region = await Region.filter(currency_code__in=codes, deleted_at=None).order_by("name").first()
    if region is not None:
        raise NotAllowed(
            f"Currency {region.currency_code} is used by the region {region.name}: change the region's currency first"
        )


async def list_payment_providers() -> list[PaymentProvider]:
    return await PaymentProvider.all().order_by("id")


async def list_fulfillment_providers() -> list[FulfillmentProvider]:
    return await FulfillmentProvider.all().order_by("id")


async def list_tax_providers() -> list[TaxProvider]:
    """The tax providers a region may name. The built-in `system` provider is not among them: a
    region without a provider uses it (Medusa v1's dashboard offers it as "System Tax Provider")."""
    return await TaxProvider.exclude(id=SYSTEM).order_by("id")
