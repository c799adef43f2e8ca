"""The admin customers list's version: what GET /admin/customers shows changes only when it does.

Triggers (models/migrations/0027_customer_list_version.py) move one of three scopes in the same
transaction as every write to what the list can show: `customers` (customers, their groups, the
group links), `addresses` and `orders` (what `expand` can add). So every writer (the admin API,
checkout's guest customers, imports, the move from Medusa, raw SQL) changes it, and one cheap
statement reads it. A list that expands neither addresses nor orders depends on `customers` only,
so the orders a shop takes do not move it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise import connections

__all__ = ["CustomerListVersions", "read_customer_list_versions"]

# The shards are summed: a committed bump of any of them changes the sum (random values).
_READ = ('SELECT sum("customers") AS "customers", sum("addresses") AS "addresses", sum("orders") AS "orders"'
         ' FROM "customer_list_version"')


@dataclass(frozen=True)
class CustomerListVersions:
    customers: str
    addresses: str
    orders: str

    def of(self, *, addresses: bool = True, orders: bool = True) -> str:
        """The version of a customers list that may show addresses and orders (as asked)."""
        return f"{self.customers}.{self.addresses if addresses else '-'}.{self.orders if orders else '-'}"


async def read_customer_list_versions() -> CustomerListVersions:
    """The three scopes, in one statement."""
    r = (await connections.get("default").execute_query_dict(_READ))[0]
    return CustomerListVersions(str(r["customers"]), str(r["addresses"]), str(r["orders"]))
