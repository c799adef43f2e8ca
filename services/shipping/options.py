"""Shipping for the storefront: the options a shopper may choose and the
shipping method a cart gets from one.

Prices are minor units. An option's price comes from its fulfillment provider: a flat rate is
the option's `amount`; a calculated price needs a provider able to compute it, and the only
provider this store has (`manual`) cannot, so such options are left out for carts and refused.
A cart the merchant set shipping prices for (a swap's) offers those options at those prices, and
only them. A new shipping method re-syncs the cart's payment sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tortoise.query_utils import Prefetch

from models import (
    Cart, CustomShippingOption, LineItem, Product, Region, ShippingMethod, ShippingOption, ShippingOptionRequirement,
    ShippingProfile, TaxRate,
)
from services.carts.locks import lock_cart_rows
from services.carts.reads import has_free_shipping, read_cart_lines
from services.carts.totals import ItemInput, item_totals
from services.carts.view import CartView, check_amounts, stored_tax_lines, view_of
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.core.sql import RowBuilder, aliased_columns, placeholders
from services.payments.sessions import resync_view
from services.catalog.pricing import tax_on
from services.regions.parts import region_parts
from services.regions.taxes import TaxLine, load_overrides, option_lines, system_lines

__all__ = [
    "PricedOption", "list_shipping_options", "cart_shipping_options", "add_shipping_method", "option_price",
    "meets_requirements", "requirement_base", "price_options",
]


@dataclass
class PricedOption:
    option: ShippingOption  # with requirements (and profile, for a cart)
    amount: int | None
    tax_rates: list[TaxLine]
    tax_amount: int
    price_incl_tax: int


def _priceable(option: ShippingOption) -> bool:
    return option.price_type == "flat_rate"


def option_price(option: ShippingOption) -> int:
    """The price of shipping with `option` (minor units)."""
    if not _priceable(option):
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


async def requirement_base(region: Region, items: list[LineItem]) -> tuple[int, int]:
    """(subtotal, item tax) of the lines (with variant and product) that requirements compare:
    each line's subtotal as services.carts.totals computes it, and its tax at the region's rates
    when the region computes taxes by itself; no statement while the region's parts are remembered."""
    if not region.automatic_taxes:
        return sum(i.unit_price * i.quantity for i in items), 0
    rates, _ = system_lines(region, (await region_parts(region)).overrides, items, [])
    totals = [item_totals(ItemInput(i.id, i.unit_price, i.quantity, tuple(t.rate for t in rates[i.id]),
                                    includes_tax=i.includes_tax)) for i in items]
    return sum(t.subtotal for t in totals), sum(t.tax_total for t in totals)


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


async def cart_shipping_options(cart_id: str) -> list[PricedOption]:
    """The options a cart can be shipped with: outbound, in its region, for the shipping profile
    of one of its products, whose requirements its subtotal meets and whose price is known. The
    cart and its lines are one statement, the region's tax rates come from its remembered parts."""
    found = await read_cart_lines(cart_id) if fits(Cart, cart_id) else None
    if found is None:
        raise NotFound(f"Cart with {cart_id} was not found")
    cart, items, has_custom = found
    custom = await _custom_options(cart.id) if has_custom else []
    if custom:
        return await _priced_custom(custom)
    profiles = {i.variant.product.profile_id for i in items if i.variant is not None and i.variant.product.profile_id}
    if not profiles:
        return []
    base = await requirement_base(cart.region, items)
    options = await _read_options("outbound", [False, False, cart.region_id, *sorted(profiles)])
    fitting = [o for o in options if _priceable(o) and meets_requirements(o, *base)]
    return await _priced_in_region(fitting, cart.region)


async def _priced_in_region(options: list[ShippingOption], region: Region) -> list[PricedOption]:
    """`price_options` for options of one region, its row at hand: the tax rates and their
    overrides are the region's parts (services/regions/parts.py), no statement while remembered."""
    overrides = (await region_parts(region)).overrides if region.automatic_taxes else None
    out = []
    for option in options:
        amount = option.amount
        lines = option_lines(region, overrides, option.id) if overrides is not None else []
        out.append(_priced(option, amount, lines))
    return out


async def add_shipping_method(cart_id: str, option_id: str, data: dict) -> CartView:
    """Ship the cart with this option: at most one method per shipping profile, so a method of
    the same profile is replaced. Free shipping on the cart stores a price of 0.

    The option is read before the cart is locked (it is not the cart's to change); under the
    lock the cart is read once (its own offers too, only when it has some: a swap's), and the
    answer is built from that read and what was written: a constant number of statements
    whatever the number of lines."""
    option = None
    if fits(ShippingOption, option_id):
        option = next(iter(await _read_options("by id", [option_id])), None)
    async with atomic():
        rows = await lock_cart_rows(cart_id, stored_tax_lines=stored_tax_lines())
        if option is None:  # refused after the cart's own refusals (none, completed), as before
            raise NotFound(f"Shipping Option with {option_id} was not found")
        cart, items = rows.cart, rows.items
        custom = await _custom_options(cart.id) if rows.has_custom_options else []
        if custom:
            # The merchant set this cart's shipping and its prices (a swap's): only those.
            offered = next((c for c in custom if c.shipping_option_id == option.id), None)
            if offered is None:
                raise InvalidData("Wrong shipping option")
            price = offered.price
        else:
            _check_available(option, cart.region_id)
            if not meets_requirements(option, *await requirement_base(cart.region, items)):
                raise NotAllowed("The Cart does not satisfy the shipping option's requirements")
            price = option_price(option)
        if has_free_shipping(rows.discounts):
            price = 0
        same_profile = [m.id for m in rows.shipping_methods if m.shipping_option.profile_id == option.profile_id]
        if same_profile:
            await ShippingMethod.filter(id__in=same_profile).delete()
        method = await ShippingMethod.create(
            cart_id=cart.id, shipping_option_id=option.id, price=price, data=data or {},
            includes_tax=option.includes_tax)
        object.__setattr__(method, "_shipping_option", option)
        rows.shipping_methods = [m for m in rows.shipping_methods if m.id not in same_profile] + [method]
        rows.method_tax_lines = {m.id: rows.method_tax_lines.get(m.id, []) for m in rows.shipping_methods}
        shipped = {m.shipping_option.profile_id for m in rows.shipping_methods}
        await _mark_shipping(items, shipped)
        return check_amounts(await resync_view(await view_of(rows)))


async def _mark_shipping(items: list[LineItem], shipped: set[str]) -> None:
    """Each line's `has_shipping`: whether a method ships its product's profile; at most one
    UPDATE for each value that changes, whatever the number of lines."""
    flips: dict[bool, list[LineItem]] = {True: [], False: []}
    for item in items:
        has_shipping = item.variant is not None and item.variant.product.profile_id in shipped
        if item.has_shipping != has_shipping:
            flips[has_shipping].append(item)
    now = clock.now()
    for value, changed in flips.items():
        if changed:
            await LineItem.filter(id__in=[i.id for i in changed]).update(has_shipping=value, updated_at=now)
            for item in changed:
                item.has_shipping, item.updated_at = value, now


async def _read_options(shape: str, params: list) -> list[ShippingOption]:
    """Live shipping options with their live requirements (by id), in one statement instead of the
    ORM's two (the options, then a prefetch of the requirements): "by id" [option id], or
    "outbound" [False, False, region id, *profile ids]: a region's outbound options for a
    storefront (not admin-only, not returns) of those profiles, with their profile. In the ORM's
    order (options by creation then id, requirements by id); each text is built once per process."""
    db = ShippingOption._meta.db
    sql = _options_statement(db.capabilities.dialect, shape, len(params))
    _, rows = await db.execute_query(sql, params)
    o, q, pf = _builders()
    options: dict[str, ShippingOption] = {}
    requirements: dict[str, list[ShippingOptionRequirement]] = {}
    for row in rows:
        option_id = row["o.id"]
        if option_id not in options:
            option = options[option_id] = o.build(row)
            requirements[option_id] = []
            if shape == "outbound":
                object.__setattr__(option, "_profile", pf.build(row))
        requirement = q.build(row)
        if requirement is not None:
            requirements[option_id].append(requirement)
    for option_id, option in options.items():
        option.requirements._set_result_for_query(requirements[option_id])
    return list(options.values())


@lru_cache(maxsize=None)
def _builders() -> tuple[RowBuilder, RowBuilder, RowBuilder]:
    return tuple(RowBuilder(model, lambda column, alias=alias: f"{alias}.{column}")
                 for model, alias in ((ShippingOption, "o"), (ShippingOptionRequirement, "q"), (ShippingProfile, "pf")))


@lru_cache(maxsize=256)
def _options_statement(dialect: str, shape: str, n_params: int) -> str:
    marks = placeholders(dialect, 1, n_params)
    sources = [(ShippingOption, "o"), (ShippingOptionRequirement, "q")]
    joins = ('LEFT JOIN "shipping_option_requirement" "q" ON "q"."shipping_option_id" = "o"."id" '
             'AND "q"."deleted_at" IS NULL')
    if shape == "by id":
        where = f'"o"."id" = {marks[0]}'
    else:
        sources.append((ShippingProfile, "pf"))
        joins += ' LEFT JOIN "shipping_profile" "pf" ON "pf"."id" = "o"."profile_id"'
        where = (f'"o"."admin_only" = {marks[0]} AND "o"."is_return" = {marks[1]} AND "o"."region_id" = {marks[2]} '
                 f'AND "o"."profile_id" IN ({", ".join(marks[3:])})')
    columns = ", ".join(aliased_columns(model, alias) for model, alias in sources)
    return (f'SELECT {columns} FROM "shipping_option" "o" {joins} WHERE {where} AND "o"."deleted_at" IS NULL '
            f'ORDER BY "o"."created_at", "o"."id", "q"."id"')


async def _custom_options(cart_id: str) -> list[CustomShippingOption]:
    return list(await CustomShippingOption.filter(cart_id=cart_id, deleted_at=None).order_by("created_at", "id"))


async def _priced_custom(custom: list[CustomShippingOption]) -> list[PricedOption]:
    """The cart's own shipping offers: each option at the price set for the cart (Medusa v1
    answers these instead of the region's options)."""
    options = {o.id: o for o in await _with_requirements(ShippingOption.filter(
        id__in=[c.shipping_option_id for c in custom]).select_related("profile"))}
    priced = []
    for offer in custom:
        option = options[offer.shipping_option_id]
        option.amount = offer.price
        priced.append(option)
    return await price_options(priced)


def _check_available(option: ShippingOption, region_id: str) -> None:
    if option.region_id != region_id:
        raise InvalidData("The shipping option is not available in the cart's region")
    # Medusa v1 lets a storefront pick these; they are the back office's and the returns'.
    if option.admin_only or option.is_return:
        raise NotAllowed("The shipping option is not available for this cart")
