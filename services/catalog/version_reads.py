"""The catalogue's version: what a storefront catalogue read shows changes only when it does.

Triggers (models/migrations/0025_catalogue_version.py) replace `catalogue_version.catalogue` in the
same transaction as every write to products, variants, prices, price lists, collections,
categories, regions, tax rates, shipping options, sales channels, publishable keys and the store,
and `catalogue_version.stock` when a variant's stock moves; so every writer (the admin API,
imports, batch jobs, the move from Medusa, raw SQL) changes it, and one cheap statement reads it.

Prices also change without a write, when a price list's window opens or closes: a product read's
version adds how many list windows have opened and closed by now, which moves exactly then.
"""

from __future__ import annotations

from tortoise import connections

from services.core.clock import now

__all__ = ["catalogue_version", "product_version"]

_CATALOGUE = 'SELECT "catalogue" FROM "catalogue_version" WHERE "id" = 1'
_PRODUCTS = (
    'SELECT "catalogue", "stock",'
    ' (SELECT count(*) FROM "price_list" WHERE "starts_at" < {p}) AS "opened",'
    ' (SELECT count(*) FROM "price_list" WHERE "ends_at" <= {p}) AS "closed"'
    ' FROM "catalogue_version" WHERE "id" = 1'
)


async def catalogue_version() -> str:
    """The version of everything a catalogue read shows but stock and price-list windows."""
    conn = connections.get("default")
    rows = await conn.execute_query_dict(_CATALOGUE)
    return str(rows[0]["catalogue"])


async def product_version() -> str:
    """The version of a product read: the catalogue's, the stock's and the price lists' windows."""
    conn = connections.get("default")
    mark = "$1" if conn.capabilities.dialect == "postgres" else "?1"
    rows = await conn.execute_query_dict(_PRODUCTS.format(p=mark), [now()])
    r = rows[0]
    return f"{r['catalogue']}.{r['stock']}.{r['opened']}.{r['closed']}"
