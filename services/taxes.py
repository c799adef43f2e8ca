"""Tax rates through the system tax provider (reference store §3.7).

A product line is taxed at the region's rates attached to its product or to its product type; a
shipping method at the rates attached to its option; a line with no attached rate at the region's
default rate. Custom lines (no product) and returns are not taxed. Rates are percentages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models import Region, TaxRate

__all__ = ["TaxLine", "Overrides", "load_overrides", "product_lines", "option_lines", "default_line"]


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
    by_id = {r.id: r for r in region_rates}
    if not by_id:
        return Overrides()
    found: dict[str, dict[str, list[TaxLine]]] = {}
    for kind, ids in (("products", product_ids), ("product_types", type_ids), ("shipping_options", option_ids)):
        out: dict[str, list[TaxLine]] = {}
        wanted = {i for i in ids if i}
        if wanted:
            rows = await TaxRate.filter(id__in=list(by_id), **{f"{kind}__id__in": wanted}).values_list(
                "id", f"{kind}__id"
            )
            for rate_id, owner_id in sorted(rows, key=lambda r: (r[1], by_id[r[0]].created_at, r[0])):
                out.setdefault(owner_id, []).append(_line(by_id[rate_id]))
        found[kind] = out
    return Overrides(found["products"], found["product_types"], found["shipping_options"])


def product_lines(region: Region, overrides: Overrides, product_id: str | None, type_id: str | None) -> list[TaxLine]:
    if product_id is None:
        return []
    # A rate attached to both the product and its type counts once.
    lines = overrides.products.get(product_id, []) + overrides.types.get(type_id or "", [])
    return list(dict.fromkeys(lines)) or [default_line(region)]


def option_lines(region: Region, overrides: Overrides, option_id: str) -> list[TaxLine]:
    return list(overrides.options.get(option_id, [])) or [default_line(region)]
