"""Tax rates through the system tax provider.

A product line is taxed at the region's rates attached to its product or to its product type; a
shipping method at the rates attached to its option; a line with no attached rate at the region's
default rate. Custom lines (no product) and returns are not taxed. Rates are percentages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import floor

from models import Region, TaxRate

__all__ = [
    "TaxLine", "Overrides", "load_overrides", "region_overrides", "product_lines", "option_lines", "default_line",
    "system_lines", "rate_sum", "tax_in_price",
]

_KINDS = (("products", "products"), ("types", "product_types"), ("options", "shipping_options"))


def rate_sum(rates) -> Fraction:
    """The sum of percentage rates, each taken exactly as written (12.5, not the float nearest it)."""
    return sum((Fraction(str(r or 0)) for r in rates), Fraction(0))


def tax_in_price(price: int, rate: Fraction) -> int:
    """The tax a tax-inclusive `price` (minor units) holds at `rate` percent: `price × rate / (100 +
    rate)` rounded half up as JavaScript's `Math.round` (Medusa 1.20's `calculatePriceTaxAmount`
    with `includesTax`)."""
    if not rate or not price:
        return 0
    return floor(price * rate / (100 + rate) + Fraction(1, 2))


@dataclass(frozen=True)
class TaxLine:
    """A tax line as the provider computes it, before anything is stored."""

    rate: float  # percent
    name: str
    code: str | None
    rate_id: str | None = None  # the TaxRate row it comes from; None for the region's default


@dataclass(frozen=True)
class Overrides:
    """The region's rates attached to products, product types and shipping options, by their ids."""

    products: dict[str, list[TaxLine]] = field(default_factory=dict)
    types: dict[str, list[TaxLine]] = field(default_factory=dict)
    options: dict[str, list[TaxLine]] = field(default_factory=dict)


def default_line(region: Region) -> TaxLine:
    return TaxLine(rate=region.tax_rate or 0, name="default", code="default")


def _line(rate: TaxRate) -> TaxLine:
    return TaxLine(rate=rate.rate or 0, name=rate.name, code=rate.code, rate_id=rate.id)


async def load_overrides(
    region_rates: list[TaxRate], product_ids=(), type_ids=(), option_ids=(),
) -> Overrides:
    """The overrides among `region_rates` (the region's TaxRate rows, already loaded) for these
    ids: no query when the region has no rates, else one per kind of id asked for."""
    wanted = dict(zip(("products", "types", "options"), (product_ids, type_ids, option_ids)))
    return await _overrides(region_rates, {kind: {i for i in ids if i} for kind, ids in wanted.items()})


async def region_overrides(region_rates: list[TaxRate]) -> Overrides:
    """Every override among the region's rates, whatever it is attached to: no query when the
    region has no rates, else three (services/regions/parts.py keeps them per region)."""
    return await _overrides(region_rates, None)


async def _overrides(region_rates: list[TaxRate], wanted: dict[str, set[str]] | None) -> Overrides:
    # `wanted`: the owner ids to look for, by kind; None looks for every owner.
    by_id = {r.id: r for r in region_rates}
    if not by_id:
        return Overrides()
    found: dict[str, dict[str, list[TaxLine]]] = {}
    for kind, relation in _KINDS:
        out: dict[str, list[TaxLine]] = {}
        ids = None if wanted is None else wanted[kind]
        if ids is None or ids:
            owner = f"{relation}__id"
            narrowed = {f"{owner}__isnull": False} if ids is None else {f"{owner}__in": ids}
            rows = await TaxRate.filter(id__in=list(by_id), **narrowed).values_list("id", owner)
            for rate_id, owner_id in sorted(rows, key=lambda r: (r[1], by_id[r[0]].created_at, r[0])):
                out.setdefault(owner_id, []).append(_line(by_id[rate_id]))
        found[kind] = out
    return Overrides(found["products"], found["types"], found["options"])


def product_lines(region: Region, overrides: Overrides, product_id: str | None, type_id: str | None) -> list[TaxLine]:
    if product_id is None:
        return []
    # A rate attached to both the product and its type counts once.
    lines = overrides.products.get(product_id, []) + overrides.types.get(type_id or "", [])
    return list(dict.fromkeys(lines)) or [default_line(region)]


def option_lines(region: Region, overrides: Overrides, option_id: str) -> list[TaxLine]:
    return list(overrides.options.get(option_id, [])) or [default_line(region)]


def system_lines(region: Region, overrides: Overrides, items, methods) -> tuple[dict[str, list[TaxLine]], dict]:
    """The system provider's lines for a cart: by line id (`items`: LineItems with variant and
    product loaded) and by shipping method id. The one computation every path uses: a cart
    answer, the tax-calculation job and completion."""
    item_lines: dict[str, list[TaxLine]] = {}
    by_product: dict[tuple, list[TaxLine]] = {}  # the lines of a product, for each of its cart lines
    for item in items:
        # A swap cart's credit line (`is_return`) is taxed as the line it gives back was, at its
        # product's rates: Medusa copies that line's tax lines onto it (line-item.ts
        # `createReturnLines`), so its credit is what the line paid, tax included.
        product = item.variant.product if item.variant is not None else None
        key = (product.id, product.type_id) if product else (None, None)
        lines = by_product.get(key)
        if lines is None:
            lines = by_product[key] = product_lines(region, overrides, *key)
        item_lines[item.id] = list(lines)
    method_lines = {m.id: option_lines(region, overrides, m.shipping_option_id) for m in methods}
    return item_lines, method_lines
