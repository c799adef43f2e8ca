"""Shipping options as both interfaces show them when priced: the option's columns and loaded
relations, then `amount`, `price_incl_tax`, `tax_rates` and `tax_amount`."""

from __future__ import annotations

from app.web.serialize import dump_many
from services.shipping.options import PricedOption

__all__ = ["dump_priced_options"]


def dump_priced_options(
    options: list[PricedOption], relations: tuple[str, ...], fields: frozenset[str] | None = None,
) -> list[dict]:
    out = dump_many([p.option for p in options], relations, fields)
    for data, priced in zip(out, options):
        data["amount"] = priced.amount
        data["price_incl_tax"] = priced.price_incl_tax
        data["tax_rates"] = [{"rate": t.rate, "name": t.name, "code": t.code} for t in priced.tax_rates]
        data["tax_amount"] = priced.tax_amount
    return out
