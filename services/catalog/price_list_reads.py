"""The prices of price lists, each with its variant, as the price-list page shows them: one statement
whose rows become instances by `RowBuilder` (services/core/sql.py) instead of the ORM's
`select_related`, which spent most of the page's time building them (a list of 10,000 prices:
about 270 ms of CPU through the ORM, 60 this way).

What it builds is what `MoneyAmount.filter(price_list_id__in=ids, deleted_at=None)
.select_related("variant").order_by("created_at", "id")` builds: the live prices, each with its
variant (soft-deleted or not, as the ORM's join finds it) set where the ORM sets it
(tests/services/catalog/test_price_list_reads.py compares them on both backends)."""

from __future__ import annotations

from models import MoneyAmount, ProductVariant
from services.core.sql import RowBuilder, aliased_columns, placeholders

__all__ = ["prices_by_list"]

_BUILDERS: dict[str, tuple[RowBuilder, RowBuilder]] = {}


def _builders(dialect: str) -> tuple[RowBuilder, RowBuilder]:
    """The price's and the variant's builders, made once the ORM knows its database."""
    found = _BUILDERS.get(dialect)
    if found is None:
        found = _BUILDERS[dialect] = (RowBuilder(MoneyAmount, lambda c: f"m.{c}"),
                                      RowBuilder(ProductVariant, lambda c: f"v.{c}"))
    return found


def _statement(dialect: str, count: int) -> str:
    marks = ", ".join(placeholders(dialect, 1, count))
    return (f'SELECT {aliased_columns(MoneyAmount, "m")}, {aliased_columns(ProductVariant, "v")}'
            ' FROM "money_amount" "m" LEFT OUTER JOIN "product_variant" "v" ON "v"."id" = "m"."variant_id"'
            f' WHERE "m"."price_list_id" IN ({marks}) AND "m"."deleted_at" IS NULL'
            ' ORDER BY "m"."created_at", "m"."id"')


async def prices_by_list(price_list_ids: list[str]) -> dict[str, list[MoneyAmount]]:
    """The live prices of each list (in creation order, each with its `variant`), by list id; a
    list without prices is absent."""
    if not price_list_ids:
        return {}
    db = MoneyAmount._meta.db  # the current transaction's connection, if any
    dialect = db.capabilities.dialect
    _, rows = await db.execute_query(_statement(dialect, len(price_list_ids)), list(price_list_ids))
    price_of, variant_of = (builder.build for builder in _builders(dialect))
    out: dict[str, list[MoneyAmount]] = {}
    for row in rows:
        price = price_of(row)
        object.__setattr__(price, "_variant", variant_of(row))
        out.setdefault(price.price_list_id, []).append(price)
    return out
