"""Publishable API keys: what a storefront sends in `x-publishable-api-key` to be served the
products and carts of the key's sales channels (services/sales_channels/scopes.py). The key's id is
the key; it is public by design, and revoking it is how a merchant stops its use. Keys are deleted
for good, with their channel links."""

from __future__ import annotations

from tortoise.expressions import Q

from models import PublishableApiKey, SalesChannel
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.updates import apply_changes, save_changes
from services.sales_channels.channels import not_found as channel_not_found

__all__ = [
    "MAX_LISTED_CHANNELS", "list_keys", "get_key", "create_key", "update_key", "delete_key", "revoke_key",
    "list_key_channels", "add_key_channels", "remove_key_channels",
]

# A key's channels are listed whole (Medusa's route has no paging): this bounds the answer.
MAX_LISTED_CHANNELS = 1000


def _not_found(key_id: str) -> NotFound:
    return NotFound(f"Publishable key with id: {key_id} was not found")


async def list_keys(
    config: FindConfig, *, q: str | None = None, created_at: dict | None = None, updated_at: dict | None = None,
    revoked_at: dict | None = None,
) -> tuple[list[PublishableApiKey], int]:
    """One page of keys, revoked ones too; `q` finds a part of the title (any case)."""
    qs = PublishableApiKey.filter(**date_filters(created_at=created_at, updated_at=updated_at, revoked_at=revoked_at))
    if q:
        qs = qs.filter(title__icontains=q)
    return await find_page(qs, config)


async def get_key(key_id: str, relations: tuple[str, ...] = ()) -> PublishableApiKey:
    found = fits(PublishableApiKey, key_id) and await find_one(PublishableApiKey.filter(id=key_id), relations)
    if not found:
        raise _not_found(key_id)
    return found


async def create_key(*, title: str, created_by: str | None) -> PublishableApiKey:
    """A new key, in use at once; `created_by` is the signed-in user's id."""
    return await PublishableApiKey.create(title=title, created_by=created_by)


async def update_key(key_id: str, *, title: str | None = None) -> PublishableApiKey:
    async with atomic():
        key = await _locked(key_id)
        await save_changes(key, apply_changes(key, {"title": title}))
    return key


async def delete_key(key_id: str) -> None:
    """Deletes the key and its channel links: a storefront sending it is refused from then on.
    Deleting a key that is not there is no error (Medusa answers 404)."""
    if not fits(PublishableApiKey, key_id):
        return
    async with atomic():
        key = await PublishableApiKey.select_for_update().get_or_none(id=key_id)
        if key is not None:
            await key.sales_channels.clear()
            await key.delete()


async def revoke_key(key_id: str, *, revoked_by: str | None) -> PublishableApiKey:
    """Stops the key for good: storefronts sending it are refused. A key is revoked once."""
    async with atomic():
        key = await _locked(key_id)
        if key.revoked_at is not None:
            raise NotAllowed("PublishableApiKey has already been revoked.")
        key.revoked_at, key.revoked_by = now(), revoked_by
        await key.save(update_fields=["revoked_at", "revoked_by", "updated_at"])
    return key


async def list_key_channels(key_id: str, *, q: str | None = None) -> list[SalesChannel]:
    """The key's live channels, oldest first (at most MAX_LISTED_CHANNELS); `q` finds a part of
    the name or description. An unknown key is a NotFound (Medusa answers an empty list)."""
    key = await get_key(key_id)
    qs = key.sales_channels.filter(deleted_at=None)
    if q:
        qs = qs.filter(Q(name__icontains=q) | Q(description__icontains=q))
    return await qs.order_by("created_at", "id").limit(MAX_LISTED_CHANNELS)


async def add_key_channels(key_id: str, channel_ids: list[str]) -> PublishableApiKey:
    """Scope the key to these channels too. All or nothing: an id that names no live channel adds
    none. Channels already linked stay (idempotent)."""
    wanted = list(dict.fromkeys(channel_ids))
    async with atomic():
        # The row lock makes concurrent batches on one key take turns (PostgreSQL).
        key = await _locked(key_id)
        channels = await SalesChannel.filter(id__in=fitting(SalesChannel, wanted), deleted_at=None) if wanted else []
        found = {c.id for c in channels}
        for channel_id in wanted:
            if channel_id not in found:
                raise channel_not_found(channel_id)
        if channels:
            await key.sales_channels.add(*channels)
    return key


async def remove_key_channels(key_id: str, channel_ids: list[str]) -> PublishableApiKey:
    """Take these channels out of the key's scope; ids not linked to it are ignored."""
    wanted = fitting(SalesChannel, channel_ids)
    async with atomic():
        key = await _locked(key_id)
        channels = await SalesChannel.filter(id__in=wanted) if wanted else []
        if channels:
            await key.sales_channels.remove(*channels)
    return key


async def _locked(key_id: str) -> PublishableApiKey:
    key = fits(PublishableApiKey, key_id) and await PublishableApiKey.select_for_update().get_or_none(id=key_id)
    if not key:
        raise _not_found(key_id)
    return key
