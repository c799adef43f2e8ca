"""Which price a shopper sees for a variant (reference extra §3.3, tax-inclusive pricing off).

Context: a region (its currency wins) or a bare currency. Without either, no price is chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from models import MoneyAmount, ProductVariant, Region, TaxRate

__all__ = ["PriceContext", "decorate_variants", "tax_on", "tax_rates_for_products", "unit_price"]


@dataclass(frozen=True)
class PriceContext:
    region: Region | None = None
    currency_code: str | None = None

    @property
    def currency(self) -> str | None:
        return self.region.currency_code if self.region else self.currency_code


def tax_on(amount: int, rates: list[dict]) -> int:
    """Tax in minor units on `amount` for percentage `rates`, rounded half up like Medusa v1."""
    total = sum(Decimal(str(r["rate"] or 0)) for r in rates)
    return int((Decimal(amount) * total / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


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


def _in_context(prices: list[MoneyAmount], ctx: PriceContext) -> list[MoneyAmount]:
    region_id, currency = (ctx.region.id if ctx.region else None), ctx.currency
    return [p for p in prices if (region_id and p.region_id == region_id) or p.currency_code == currency]


def unit_price(prices: list[MoneyAmount], ctx: PriceContext, quantity: int) -> int | None:
    """The price of one unit (minor units) when `quantity` units are bought (reference store §2.0):
    the lowest of the variant's `prices` for the region or its currency whose quantity bounds admit
    `quantity`; None when there is none. The rule the product pages show, with a quantity."""
    fitting = [
        p.amount for p in _in_context(prices, ctx)
        if (p.min_quantity is None or p.min_quantity <= quantity)
        and (p.max_quantity is None or p.max_quantity >= quantity)
    ]
    return min(fitting) if fitting else None


def _choose(variant: ProductVariant, ctx: PriceContext) -> tuple[list[MoneyAmount], int | None, int | None]:
    prices = list(variant.prices.related_objects)
    region_id, currency = (ctx.region.id if ctx.region else None), ctx.currency
    if region_id or currency:
        prices = _in_context(prices, ctx)
    else:
        return prices, None, None
    original = next((p for p in prices if region_id and p.region_id == region_id and _plain(p)), None)
    original = original or next((p for p in prices if p.currency_code == currency and p.region_id is None and _plain(p)), None)
    # Without a quantity only rows with no minimum fit, with or without a maximum (as Medusa v1).
    fitting = [p.amount for p in prices if not p.min_quantity]
    return prices, (original.amount if original else None), (min(fitting) if fitting else None)


def decorate_variants(variants: list[ProductVariant], ctx: PriceContext, rates: list[dict] | None) -> dict[str, dict]:
    """The price keys of each variant (by id): `prices` rows and the chosen prices with taxes."""
    out = {}
    for variant in variants:
        prices, original, calculated = _choose(variant, ctx)
        keys: dict = {
            "prices": prices, "original_price": original, "calculated_price": calculated,
            "original_price_incl_tax": None, "calculated_price_incl_tax": None,
            "original_tax": None, "calculated_tax": None, "tax_rates": None,
        }
        if calculated is not None:
            keys["calculated_price_type"] = "default"
        if rates is not None:
            keys["tax_rates"] = rates
            if original is not None:
                keys["original_tax"] = tax_on(original, rates)
                keys["original_price_incl_tax"] = original + keys["original_tax"]
            if calculated is not None:
                keys["calculated_tax"] = tax_on(calculated, rates)
                keys["calculated_price_incl_tax"] = calculated + keys["calculated_tax"]
        out[variant.id] = keys
    return out
