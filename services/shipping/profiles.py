"""Shipping profiles: groups of products shipped with the same options.

The store has exactly one `default` profile (new products and options go to it) and one
`gift_card` profile, made at start-up (services/store/defaults.py). Unlike Medusa v1, they stay
unique and cannot be deleted or retyped, and a profile that still holds products or options cannot
be deleted: its products would be left with no way to ship.
"""

from __future__ import annotations

from datetime import datetime, timezone

from tortoise.queryset import QuerySet

from models import Product, ShippingOption, ShippingProfile
from services.catalog.products import PRODUCT_ALIASES
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData, NotAllowed, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, find_one, find_page
from services.core.updates import apply_changes, save_changes

__all__ = [
    "PROFILE_TYPES", "list_profiles", "get_profile", "create_profile", "update_profile",
    "delete_profile",
]

PROFILE_TYPES = ("default", "gift_card", "custom")
_SYSTEM = {"default": "default", "gift_card": "gift card"}  # the one-per-store types, as a sentence names them


def _live() -> QuerySet:
    return ShippingProfile.filter(deleted_at=None)


def _not_found(profile_id: str) -> NotFound:
    return NotFound(f"Profile with id: {profile_id} was not found")


def _checked_type(kind: str) -> str:
    if kind not in PROFILE_TYPES:
        raise InvalidData("type must be one of 'default', 'custom', 'gift_card'")
    return kind


async def _ensure_no_other(kind: str, profile_id: str | None = None) -> None:
    """A second profile of a one-per-store type is refused."""
    if kind in _SYSTEM and await _live().filter(type=kind).exclude(id=profile_id or "").exists():
        raise Duplicate(f"Shipping_profile with type {kind} already exists.")


async def _locked(profile_id: str) -> ShippingProfile | None:
    if not fits(ShippingProfile, profile_id):
        return None
    return await _live().select_for_update().get_or_none(id=profile_id)


async def list_profiles(config: FindConfig) -> tuple[list[ShippingProfile], int]:
    return await find_page(_live(), config, PRODUCT_ALIASES)


async def get_profile(profile_id: str, relations: tuple[str, ...] = ()) -> ShippingProfile:
    profile = None
    if fits(ShippingProfile, profile_id):
        profile = await find_one(_live().filter(id=profile_id), relations, PRODUCT_ALIASES)
    if profile is None:
        raise _not_found(profile_id)
    return profile


async def create_profile(*, name: str, type: str, metadata: dict | None = None) -> ShippingProfile:
    _checked_type(type)
    async with atomic():
        await _ensure_no_other(type)
        return await ShippingProfile.create(name=name, type=type, metadata=metadata)


async def update_profile(
    profile_id: str, relations: tuple[str, ...] = (), *, name: str | None = None, type: str | None = None,
    metadata: dict | None = None, products: list[str] | None = None, shipping_options: list[str] | None = None,
) -> ShippingProfile:
    """Rename, retype (never a default or gift-card profile, nor into one), merge metadata, and
    move products (out of any other profile) and shipping options into the profile. All or
    nothing: an unknown product or option changes nothing."""
    async with atomic():
        profile = await _locked(profile_id)
        if profile is None:
            raise _not_found(profile_id)
        if type is not None and _checked_type(type) != profile.type:
            if profile.type in _SYSTEM:
                raise NotAllowed(f"The type of the {_SYSTEM[profile.type]} shipping profile cannot be changed")
            await _ensure_no_other(type, profile.id)
        updated = apply_changes(profile, {"name": name, "type": type}, metadata=metadata)
        now = datetime.now(timezone.utc)
        if products:
            ids = await _existing(Product, products, "Product with id: {} was not found")
            await Product.filter(id__in=ids).update(profile_id=profile.id, updated_at=now)
        if shipping_options:
            ids = await _existing(ShippingOption, shipping_options, "Shipping Option with {} was not found")
            await ShippingOption.filter(id__in=ids).update(profile_id=profile.id, updated_at=now)
        await save_changes(profile, updated)
    return await get_profile(profile_id, relations)


async def _existing(model, ids: list[str], message: str) -> list[str]:
    """The ids, each once, all of live rows; the first unknown one is a 404."""
    wanted = list(dict.fromkeys(ids))
    found = set(await model.filter(id__in=fitting(model, wanted), deleted_at=None).values_list("id", flat=True))
    missing = [i for i in wanted if i not in found]
    if missing:
        raise NotFound(message.format(missing[0]))
    return wanted


async def delete_profile(profile_id: str) -> None:
    """A soft delete; an unknown or deleted profile succeeds too, as in Medusa. The default and
    gift-card profiles, and a profile still holding live products or options, are refused."""
    async with atomic():
        profile = await _locked(profile_id)
        if profile is None:
            return
        if profile.type in _SYSTEM:
            raise NotAllowed(f"The {_SYSTEM[profile.type]} shipping profile cannot be deleted")
        if await Product.exists(profile_id=profile.id, deleted_at=None) or await ShippingOption.exists(
            profile_id=profile.id, deleted_at=None
        ):
            raise NotAllowed(
                "The shipping profile still has products or shipping options: move them to another profile first"
            )
        now = datetime.now(timezone.utc)
        await ShippingProfile.filter(id=profile.id).update(deleted_at=now, updated_at=now)
