"""The admin customers list's version: what GET /admin/customers shows changes only when it does.

Triggers (models/migrations/0027_customer_list_version.py) move one of three scopes in the same
transaction as every write to what the list can show: `customers` (customers, their groups, the
group links), `addresses` and `orders` (what `expand` can add). So every writer (the admin API,
checkout's guest customers, imports, the move from Medusa, raw SQL) changes it, and one cheap
statement reads it. A list that expands neither addresses nor orders depends on `customers` only,
so the orders a shop takes do not move it.
"""

from __future__ import annotations

from tortoise import connections

__all__ = ["customer_list_version"]

# The shards are summed: a committed bump of any of them changes the sum (random values).
_READ = ('SELECT sum("customers") AS "customers", sum("addresses") AS "addresses", sum("orders") AS "orders"'
         ' FROM "customer_list_version"')


async def customer_list_version(*, addresses: bool = True, orders: bool = True) -> str:
    """The version of a customers list that may show addresses and orders (as asked)."""
    rows = await connections.get("default").execute_query_dict(_READ)
    r = rows[0]
    return f"{r['customers']}.{r['addresses'] if addresses else '-'}.{r['orders'] if orders else '-'}"
