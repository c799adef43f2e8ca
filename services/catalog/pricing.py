"""Which price a shopper sees for a variant: Medusa v1.20's price-selection strategy with its
tax-inclusive pricing.

Context: a region (its currency wins) or a bare currency, the customer's groups, and the price
lists that apply now (`price_context` loads both). A variant's candidate prices are its plain
prices and the prices of the lists that apply, for the region or its currency. The calculated
price is the lowest candidate whose quantity bounds admit the quantity; a list of type
`override` is not special (Medusa v1 compares it like a sale). The original price is the plain
price of the region, else of the currency. Without a region or a currency no price is chosen.

A price includes its tax when its currency, its price list or its region says so
(`includes_tax`, as Medusa's price selection reads them). Comparing an inclusive with an
exclusive candidate, Medusa weighs the exclusive one with the product's tax rate; where the rate
is not known (no region with automatic taxes) we compare the amounts as they are, where Medusa
would keep whichever row came first. The tax keys of a variant (`calculated_tax`,
`calculated_price_incl_tax` …) take the tax out of an inclusive price instead of adding it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import NamedTuple

from tortoise.expressions import Q, Subquery

from models import CustomerGroup, MoneyAmount, PriceList, ProductVariant, Region, TaxRate
from services.core.clock import now
from services.regions.parts import region_parts
from services.regions.taxes import product_lines, rate_sum, tax_in_price

__all__ = [
    "PriceContext", "price_context", "customer_group_ids", "decorate_variants", "tax_on",
    "tax_rates_for_products", "unit_price", "Price", "product_rate", "variant_price",
]


class Price(NamedTuple):
    amount: int  # minor units
    includes_tax: bool  # the amount already holds the product's tax


@dataclass(frozen=True)
class PriceContext:
    region: Region | None = None
    currency_code: str | None = None
    customer_group_ids: frozenset[str] = frozenset()
    # The price lists that apply to this shopper now, by id: only their prices are candidates.
    price_lists: Mapping[str, PriceList] = field(default_factory=dict)
    currency_includes_tax: bool = False  # the region's currency prices with tax included
    overrides: object | None = None  # the region's tax-rate attachments (services.regions.taxes.Overrides)

    @property
    def currency(self) -> str | None:
        return self.region.currency_code if self.region else self.currency_code


async def customer_group_ids(customer_id: str | None) -> frozenset[str]:
    """The live groups the customer belongs to (one query; none for a guest)."""
    if not customer_id:
        return frozenset()
    return frozenset(await CustomerGroup.filter(customers__id=customer_id, deleted_at=None).values_list("id", flat=True))


async def price_context(
    variants: Iterable[ProductVariant], *, region: Region | None = None, currency_code: str | None = None,
    customer_id: str | None = None, group_ids: frozenset[str] | None = None,
) -> PriceContext:
    """The context pricing `variants` (their `prices` prefetched) for a customer (or a guest): one
    query for the customer's groups, one for the lists their prices name, whatever the number
    of variants; none when no price belongs to a list."""
    list_ids = {p.price_list_id for v in variants for p in v.prices.related_objects if p.price_list_id}
    groups = group_ids if group_ids is not None else (await customer_group_ids(customer_id) if list_ids else frozenset())
    ctx = PriceContext(region=region, currency_code=currency_code, customer_group_ids=groups)
    if region is not None:  # no statement while the region's parts are remembered
        parts = await region_parts(region)
        ctx = replace(ctx, currency_includes_tax=parts.currency_includes_tax, overrides=parts.overrides)
    if not list_ids:
        return ctx
    return replace(ctx, price_lists=await _applicable_lists(list_ids, groups))


async def _applicable_lists(list_ids: set[str], group_ids: frozenset[str]) -> dict[str, PriceList]:
    """The lists among `list_ids` that are active, inside their window and either for everyone
    (no customer group) or for one of `group_ids`. A list tied only to deleted groups stays
    closed (Medusa would open it to everyone)."""
    moment = now()
    tied = PriceList.filter(customer_groups__id__isnull=False).values_list("id", flat=True)
    open_to = ~Q(id__in=Subquery(tied))
    if group_ids:
        mine = PriceList.filter(customer_groups__id__in=list(group_ids)).values_list("id", flat=True)
        open_to = open_to | Q(id__in=Subquery(mine))
    qs = PriceList.filter(
        Q(starts_at=None) | Q(starts_at__lt=moment), Q(ends_at=None) | Q(ends_at__gt=moment), open_to,
        id__in=list_ids, deleted_at=None, status="active",
    )
    return {pl.id: pl for pl in await qs}


def tax_on(amount: int, rates: list[dict], includes_tax: bool = False) -> int:
    """Tax in minor units on `amount` for percentage `rates`, rounded half up like Medusa v1; with
    `includes_tax`, the tax `amount` already holds."""
    if includes_tax:
        return tax_in_price(amount, rate_sum(r["rate"] for r in rates))
    total = sum(Decimal(str(r["rate"] or 0)) for r in rates)
    return int((Decimal(amount) * total / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def product_rate(ctx: PriceContext, product) -> Fraction | None:
    """The product's tax rate in the context's region (percent, its tax lines summed), or None
    when the region does not compute taxes by itself (Medusa's price selection then has none)."""
    region = ctx.region
    if region is None or not region.automatic_taxes or ctx.overrides is None or product is None:
        return None
    return rate_sum(t.rate for t in product_lines(region, ctx.overrides, product.id, product.type_id))


async def tax_rates_for_products(region: Region, product_ids: list[str]) -> dict[str, list[dict]]:
    """Per product, its tax-rate overrides in the region (one query for all products)."""
    rows = await TaxRate.filter(region_id=region.id, products__id__in=product_ids).values(
        "rate", "name", "code", product_id="products__id"
    )
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r.pop("product_id"), []).append(r)
    return out


def _plain(p: MoneyAmount) -> bool:
    return p.price_list_id is None and p.min_quantity is None and p.max_quantity is None


def _candidates(prices: list[MoneyAmount], ctx: PriceContext) -> list[MoneyAmount]:
    """The variant's plain prices and those of the lists that apply, for the context's region or
    currency (all of them without either)."""
    prices = [p for p in prices if p.price_list_id is None or p.price_list_id in ctx.price_lists]
    region_id, currency = (ctx.region.id if ctx.region else None), ctx.currency
    if not (region_id or currency):
        return prices
    return [p for p in prices if (region_id and p.region_id == region_id) or p.currency_code == currency]


def _fits(p: MoneyAmount, quantity: int | None) -> bool:
    # Without a quantity only rows with no minimum fit, with or without a maximum (as Medusa v1).
    if quantity is None:
        return not p.min_quantity
    return (not p.min_quantity or p.min_quantity <= quantity) and (not p.max_quantity or p.max_quantity >= quantity)


def _includes_tax(p: MoneyAmount, ctx: PriceContext) -> bool:
    listed = ctx.price_lists.get(p.price_list_id) if p.price_list_id else None
    in_region = ctx.region is not None and p.region_id == ctx.region.id and ctx.region.includes_tax
    return bool(ctx.currency_includes_tax or (listed is not None and listed.includes_tax) or in_region)


def _lowest(prices: list[MoneyAmount], quantity: int | None, ctx: PriceContext,
            rate: Fraction | None = None) -> tuple[MoneyAmount, Price] | None:
    """The cheapest fitting row; on a tie the first one (Medusa keeps the first strictly lower).
    An inclusive row is weighed against an exclusive one by `rate` (percent; 0 when unknown)."""
    best = None
    grow = 1 + (rate or 0) / 100
    for p in prices:
        if not _fits(p, quantity):
            continue
        candidate = Price(p.amount, _includes_tax(p, ctx))
        if best is not None:
            held = best[1]
            if candidate.includes_tax == held.includes_tax:
                lower = candidate.amount < held.amount
            elif candidate.includes_tax:
                lower = candidate.amount < grow * held.amount
            else:
                lower = grow * candidate.amount < held.amount
            if not lower:
                continue
        best = (p, candidate)
    return best


def unit_price(
    prices: list[MoneyAmount], ctx: PriceContext, quantity: int, rate: Fraction | None = None,
) -> Price | None:
    """The price of one unit (minor units, and whether it holds its tax) when `quantity` units are
    bought: the lowest candidate whose quantity bounds admit `quantity`; None when there is none
    (or no region nor currency). `rate`: the product's (`product_rate`), for mixed candidates."""
    if not (ctx.region or ctx.currency):
        return None
    best = _lowest(_candidates(prices, ctx), quantity, ctx, rate)
    return best[1] if best else None


def variant_price(variant: ProductVariant, quantity: int, ctx: PriceContext) -> Price | None:
    """`unit_price` of a variant (its `prices` and `product` loaded) weighed with its product's rate:
    what a line of it costs, and whether that holds its tax (Medusa's line item takes both from the
    variant's calculated price)."""
    return unit_price(list(variant.prices.related_objects), ctx, quantity, product_rate(ctx, variant.product))


def _choose(
    variant: ProductVariant, ctx: PriceContext, rate: Fraction | None,
) -> tuple[list[MoneyAmount], Price | None, tuple[MoneyAmount, Price] | None]:
    prices = _candidates(list(variant.prices.related_objects), ctx)
    region_id, currency = (ctx.region.id if ctx.region else None), ctx.currency
    if not (region_id or currency):
        return prices, None, None
    original = next((p for p in prices if region_id and p.region_id == region_id and _plain(p)), None)
    original = original or next(
        (p for p in prices if p.currency_code == currency and p.region_id is None and _plain(p)), None
    )
    return prices, (Price(original.amount, _includes_tax(original, ctx)) if original else None), _lowest(
        prices, None, ctx, rate)


def _with_lists(prices: list[MoneyAmount], ctx: PriceContext) -> list[MoneyAmount]:
    for p in prices:  # the joined list each row shows (`price_list`)
        p.price_list = ctx.price_lists.get(p.price_list_id) if p.price_list_id else None
    return prices


def _taxed(price: Price, rates: list[dict]) -> tuple[int, int]:
    """(the price's tax, the price with its tax), as Medusa's PricingService.calculateTaxes."""
    tax = tax_on(price.amount, rates, price.includes_tax)
    return tax, price.amount if price.includes_tax else price.amount + tax


def decorate_variants(variants: list[ProductVariant], ctx: PriceContext, rates: list[dict] | None) -> dict[str, dict]:
    """The price keys of each variant (by id): `prices` rows (each with its `price_list`) and the
    chosen prices with taxes; `calculated_price_type` names where the calculated price comes from."""
    out = {}
    rate = rate_sum(r["rate"] for r in rates) if rates is not None else None
    for variant in variants:
        prices, original, chosen = _choose(variant, ctx, rate)
        calculated = chosen[1] if chosen else None
        keys: dict = {
            "prices": _with_lists(prices, ctx), "original_price": original and original.amount,
            "calculated_price": calculated and calculated.amount,
            "original_price_incl_tax": None, "calculated_price_incl_tax": None,
            "original_tax": None, "calculated_tax": None, "tax_rates": None,
        }
        if chosen is not None:
            listed = ctx.price_lists.get(chosen[0].price_list_id) if chosen[0].price_list_id else None
            keys["calculated_price_type"] = listed.type if listed else "default"
        if rates is not None:
            keys["tax_rates"] = rates
            if original is not None:
                keys["original_tax"], keys["original_price_incl_tax"] = _taxed(original, rates)
            if calculated is not None:
                keys["calculated_tax"], keys["calculated_price_incl_tax"] = _taxed(calculated, rates)
        out[variant.id] = keys
    return out
