"""Shipping options for the storefront: reading them, their requirements and their prices.

Prices are minor units. An option's price comes from its fulfillment provider: a flat rate is
the option's `amount`; a calculated price needs a provider able to compute it, and the only
provider this store has (`manual`) cannot, so such options are left out for carts and refused.
What a cart offers and the shipping method it gets are the cart's (services/carts/shipping.py),
which prices options here: those of the cart's region, or the ones the merchant set prices for
(a swap's), at those prices and only them. The options a cart reads by hand, with their
requirements in one statement, are services/shipping/reads.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.query_utils import Prefetch

from models import (
    CustomShippingOption, Product, Region, ShippingOption, ShippingOptionRequirement, TaxRate,
)
from services.core.errors import NotAllowed
from services.catalog.pricing import tax_on
from services.regions.parts import region_parts
from services.regions.taxes import TaxLine, load_overrides, option_lines

__all__ = [
    "PricedOption", "list_shipping_options", "option_price", "priceable", "meets_requirements", "price_options",
    "price_in_region", "price_offers",
]


@dataclass
class PricedOption:
    option: ShippingOption  # with requirements (and profile, for a cart)
    amount: int | None
    tax_rates: list[TaxLine]
    tax_amount: int
    price_incl_tax: int


def priceable(option: ShippingOption) -> bool:
    """Whether the option's price is known: a flat rate (see the module's docstring)."""
    return option.price_type == "flat_rate"


def option_price(option: ShippingOption) -> int:
    """The price of shipping with `option` (minor units)."""
    if not priceable(option):
        raise NotAllowed(f"The fulfillment provider {option.provider_id} cannot calculate the price of this option")
    return option.amount or 0


def meets_requirements(option: ShippingOption, subtotal: int, item_tax: int = 0) -> bool:
    """The option's live requirements against the cart's item subtotal (before discounts, without
    the tax an inclusive price holds), with the items' tax added for an option whose amount
    includes tax (Medusa's validateCartOption): at least `min_subtotal`, below `max_subtotal`."""
    amount = subtotal + item_tax if option.includes_tax else subtotal
    for requirement in option.requirements.related_objects:
        if requirement.type == "min_subtotal" and amount < requirement.amount:
            return False
        if requirement.type == "max_subtotal" and amount >= requirement.amount:
            return False
    return True


def _with_requirements(qs):
    return qs.prefetch_related(
        Prefetch("requirements", queryset=ShippingOptionRequirement.filter(deleted_at=None).order_by("id"))
    )


async def price_options(options: list[ShippingOption]) -> list[PricedOption]:
    """Each option with the tax keys Medusa's store shipping options carry: its rates when its region taxes
    automatically (its own overrides, else the region's rate), none otherwise."""
    region_ids = {o.region_id for o in options}
    regions = {r.id: r for r in await Region.filter(id__in=region_ids)} if region_ids else {}
    automatic = [rid for rid, r in regions.items() if r.automatic_taxes]
    rates = list(await TaxRate.filter(region_id__in=automatic)) if automatic else []
    overrides = await load_overrides(rates, option_ids=[o.id for o in options if o.region_id in automatic])
    out = []
    for option in options:
        amount = option.amount
        region = regions.get(option.region_id)
        lines = option_lines(region, overrides, option.id) if region and region.automatic_taxes else []
        out.append(_priced(option, amount, lines))
    return out


def _priced(option: ShippingOption, amount: int | None, lines: list) -> PricedOption:
    """The option with its tax and its price with tax, as Medusa's PricingService prices a
    shipping option: an option whose amount includes tax holds its tax rather than adding it."""
    tax = tax_on(amount or 0, [{"rate": line.rate} for line in lines], option.includes_tax)
    return PricedOption(option, amount, lines, tax, (amount or 0) + (0 if option.includes_tax else tax))


async def list_shipping_options(
    region_id: str | None = None, is_return: bool | None = None, product_ids: list[str] | None = None,
) -> list[PricedOption]:
    """Options a customer may see: never admin-only ones; narrowed to a region, to return or
    outbound options, and to the shipping profiles of some products, when asked."""
    qs = ShippingOption.filter(deleted_at=None, admin_only=False, region__deleted_at=None)
    if region_id is not None:
        qs = qs.filter(region_id=region_id)
    if is_return is not None:
        qs = qs.filter(is_return=is_return)
    if product_ids:
        profiles = await Product.filter(id__in=product_ids, deleted_at=None).values_list("profile_id", flat=True)
        qs = qs.filter(profile_id__in=[p for p in profiles if p])
    options = await _with_requirements(qs.order_by("created_at", "id"))
    return await price_options(list(options))


async def price_in_region(options: list[ShippingOption], region: Region) -> list[PricedOption]:
    """`price_options` for options of one region, its row at hand: the tax rates and their
    overrides are the region's parts (services/regions/parts.py), no statement while remembered."""
    overrides = (await region_parts(region)).overrides if region.automatic_taxes else None
    out = []
    for option in options:
        amount = option.amount
        lines = option_lines(region, overrides, option.id) if overrides is not None else []
        out.append(_priced(option, amount, lines))
    return out


async def price_offers(custom: list[CustomShippingOption]) -> list[PricedOption]:
    """A cart's own shipping offers: each option at the price set for the cart (Medusa v1
    answers these instead of the region's options)."""
    options = {o.id: o for o in await _with_requirements(ShippingOption.filter(
        id__in=[c.shipping_option_id for c in custom]).select_related("profile"))}
    priced = []
    for offer in custom:
        option = options[offer.shipping_option_id]
        option.amount = offer.price
        priced.append(option)
    return await price_options(priced)


