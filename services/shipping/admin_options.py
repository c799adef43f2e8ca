"""Shipping options as the back office manages them: list, read, create,
change and delete, with their subtotal requirements.

Prices are minor units. How an option's price and requirements are read at checkout lives in
services/shipping/options.py; this module only keeps what it reads valid: a `flat_rate` option has
an amount, a `calculated` one a provider able to compute it, at most one requirement of each type
and a maximum subtotal not below the minimum.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from tortoise.queryset import QuerySet

from models import FulfillmentProvider, Region, ShippingOption, ShippingOptionRequirement, ShippingProfile
from services import fulfillment
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits, fitting
from services.core.listing import FindConfig, date_filters, find_one, find_page
from services.core.updates import apply_changes
from services.shipping.options import PricedOption, price_options

__all__ = [
    "PRICE_TYPES", "REQUIREMENT_TYPES", "OptionFilter", "RequirementInput", "list_options", "get_option",
    "create_option", "update_option", "delete_option",
]

PRICE_TYPES = ("flat_rate", "calculated")
REQUIREMENT_TYPES = ("min_subtotal", "max_subtotal")


@dataclass
class OptionFilter:
    id: list[str] = field(default_factory=list)  # any of these
    name: str | None = None  # exact
    q: str | None = None  # case-insensitive, in the name
    region_id: str | None = None
    is_return: bool | None = None
    admin_only: bool | None = None
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None
    deleted_at: dict[str, datetime | None] | None = None  # given: soft-deleted ones can match, as in Medusa


@dataclass(frozen=True)
class RequirementInput:
    type: str  # min_subtotal | max_subtotal
    amount: int  # minor units
    id: str | None = None  # an existing requirement of the option (update only)


def _live() -> QuerySet:
    return ShippingOption.filter(deleted_at=None)


def _not_found(option_id: str) -> NotFound:
    return NotFound(f"Shipping Option with {option_id} was not found")


def _filtered(f: OptionFilter) -> QuerySet:
    dates = date_filters(created_at=f.created_at, updated_at=f.updated_at, deleted_at=f.deleted_at)
    qs = ShippingOption.filter(**dates)
    if not any(key.startswith("deleted_at") for key in dates):
        qs = qs.filter(deleted_at=None)
    if f.id:
        qs = qs.filter(id__in=fitting(ShippingOption, f.id))
    if f.name is not None:
        qs = qs.filter(name=f.name)
    if f.q:
        qs = qs.filter(name__icontains=f.q)
    if f.region_id is not None:
        qs = qs.filter(region_id=f.region_id)
    if f.is_return is not None:
        qs = qs.filter(is_return=f.is_return)
    if f.admin_only is not None:
        qs = qs.filter(admin_only=f.admin_only)
    return qs


async def list_options(f: OptionFilter, config: FindConfig) -> tuple[list[PricedOption], int]:
    """One page of options, each priced with its taxes as a shopper of its region would see it."""
    options, count = await find_page(_filtered(f), config)
    return await price_options(options), count


async def get_option(option_id: str, relations: tuple[str, ...] = ()) -> ShippingOption:
    option = await find_one(_live().filter(id=option_id), relations) if fits(ShippingOption, option_id) else None
    if option is None:
        raise _not_found(option_id)
    return option


async def _checked_amount(price_type: str, amount: int | None, provider_id: str, data: dict | None) -> int | None:
    """The amount an option of this price type stores: its own for a flat rate, none when the
    provider calculates it."""
    if price_type not in PRICE_TYPES:
        raise InvalidData('Invalid price type, must be one of "flat_rate" or "calculated"')
    if price_type == "calculated":
        # The provider says whether it prices the option (manual cannot); one unknown here cannot
        if not fulfillment.is_registered(provider_id) or not await fulfillment.get_provider(
            provider_id
        ).can_calculate(data or {}):
            raise InvalidData("The fulfillment provider cannot calculate prices for this option")
        return None
    if amount is None or amount < 0:
        raise InvalidData("Shipping options of type `flat_rate` must have an `amount`")
    return amount


def _check_requirements(requirements: list[RequirementInput], type_message: str) -> None:
    amounts: dict[str, int] = {}
    for requirement in requirements:
        if requirement.type not in REQUIREMENT_TYPES:
            raise InvalidData(type_message)
        if requirement.type in amounts:
            raise InvalidData("Only one requirement of each type is allowed")
        amounts[requirement.type] = requirement.amount
    if len(amounts) == 2 and amounts["max_subtotal"] < amounts["min_subtotal"]:
        raise InvalidData("Max. subtotal must be greater than Min. subtotal")


async def _profile_id(profile_id: str | None) -> str:
    """The profile given, or the store's default one."""
    if profile_id is None:
        profile = await ShippingProfile.filter(type="default", deleted_at=None).order_by("created_at").first()
        if profile is None:
            raise NotFound("Shipping_profile with type default does not exist.")
        return profile.id
    if not fits(ShippingProfile, profile_id) or not await ShippingProfile.exists(id=profile_id, deleted_at=None):
        raise NotFound(f"Shipping_profile with profile_id {profile_id} does not exist.")
    return profile_id


async def create_option(
    *, name: str, region_id: str, provider_id: str, data: dict, price_type: str, amount: int | None = None,
    profile_id: str | None = None, requirements: list[RequirementInput] | None = None, is_return: bool = False,
    admin_only: bool = False, metadata: dict | None = None, relations: tuple[str, ...] = (), includes_tax: bool = False,
) -> ShippingOption:
    """A new option in a region, shipped by one of the region's fulfillment providers, in the
    given shipping profile (the default one when none is given)."""
    requirements = requirements or []
    async with atomic():
        region = await Region.filter(id=region_id, deleted_at=None).first() if fits(Region, region_id) else None
        if region is None:
            raise NotFound(f"Region with {region_id} was not found")
        if not fits(FulfillmentProvider, provider_id) or not await region.fulfillment_providers.filter(
            id=provider_id
        ).exists():
            raise InvalidData("The fulfillment provider is not available in the provided region")
        amount = await _checked_amount(price_type, amount, provider_id, data)
        _check_requirements(requirements, 'Invalid option type, must be one of "min_subtotal" or "max_subtotal"')
        option = await ShippingOption.create(
            name=name, region_id=region.id, profile_id=await _profile_id(profile_id), provider_id=provider_id,
            price_type=price_type, amount=amount, is_return=is_return, admin_only=admin_only, data=data,
            metadata=metadata, includes_tax=includes_tax,
        )
        if requirements:
            await ShippingOptionRequirement.bulk_create([
                ShippingOptionRequirement(shipping_option_id=option.id, type=r.type, amount=r.amount)
                for r in requirements
            ])
    return await get_option(option.id, relations)


async def update_option(
    option_id: str, relations: tuple[str, ...] = (), *, name: str | None = None, amount: int | None = None,
    price_type: str | None = None, admin_only: bool | None = None, metadata: dict | None = None,
    requirements: list[RequirementInput] | None = None, includes_tax: bool | None = None,
) -> ShippingOption:
    """Change an option (absent values are kept; metadata is merged). `requirements`, when given,
    is the whole new set: listed ids are kept and changed, the others soft-deleted, items without
    an id created. A `calculated` option keeps no amount."""
    async with atomic():
        option = None
        if fits(ShippingOption, option_id):
            option = await _live().select_for_update().get_or_none(id=option_id)
        if option is None:
            raise _not_found(option_id)
        changed = apply_changes(option, {"name": name})
        kind = price_type or option.price_type
        # An amount sent for a `calculated` option is ignored, as in Medusa: the provider prices it.
        if kind != option.price_type or (kind == "flat_rate" and amount is not None):
            option.amount = await _checked_amount(
                kind, amount if amount is not None else option.amount, option.provider_id, option.data
            )
            option.price_type = kind
            changed += ["price_type", "amount"]
        changed += apply_changes(option, {"admin_only": admin_only, "includes_tax": includes_tax}, metadata=metadata)
        if requirements is not None:
            await _replace_requirements(option.id, requirements)
        if changed or requirements is not None:
            await option.save(update_fields=[*changed, "updated_at"])
    return await get_option(option_id, relations)


async def _replace_requirements(option_id: str, requirements: list[RequirementInput]) -> None:
    _check_requirements(requirements, "Requirement type must be one of min_subtotal, max_subtotal")
    current = {
        r.id: r for r in await ShippingOptionRequirement.filter(shipping_option_id=option_id, deleted_at=None)
    }
    listed = [r.id for r in requirements if r.id is not None]
    # Medusa v1 looks the id up among every option's requirements and moves it to this one.
    unknown = [i for i in listed if i not in current]
    if unknown:
        raise InvalidData(f"Shipping option requirement with id {unknown[0]} does not exist")
    repeated = [i for i in listed if listed.count(i) > 1]
    if repeated:
        raise InvalidData(f"Shipping option requirement with id {repeated[0]} is listed more than once")
    dropped = [i for i in current if i not in listed]
    if dropped:
        await ShippingOptionRequirement.filter(id__in=dropped).update(deleted_at=datetime.now(timezone.utc))
    for requirement in requirements:
        row = current.get(requirement.id) if requirement.id is not None else None
        if row is not None and (row.type, row.amount) != (requirement.type, requirement.amount):
            await ShippingOptionRequirement.filter(id=row.id).update(type=requirement.type, amount=requirement.amount)
    new = [r for r in requirements if r.id is None]
    if new:
        await ShippingOptionRequirement.bulk_create([
            ShippingOptionRequirement(shipping_option_id=option_id, type=r.type, amount=r.amount) for r in new
        ])


async def delete_option(option_id: str) -> None:
    """A soft delete; deleting an unknown or deleted option succeeds too, as in Medusa. Carts that
    already ship with it keep their shipping method."""
    if fits(ShippingOption, option_id):
        now = datetime.now(timezone.utc)
        await _live().filter(id=option_id).update(deleted_at=now, updated_at=now)
