"""The search index's upkeep seen from the services (the index itself: models/migrations/
0022_product_search.py and 0026_product_search_batched.py). Triggers keep it in the writing
transaction without any writer's help; these only make it cheaper or visible sooner:

- `batch(connection)`: a bulk write (an import chunk) in one transaction rebuilds each product's
  document once, at the batch's end, instead of once per row. PostgreSQL does so by itself at
  commit; on SQLite the batch pauses the row triggers (they only note the products) and rebuilds
  the noted products when it ends.
- `catch_up(connection)`: before a search inside a writing transaction, rebuild what PostgreSQL
  has noted so far, so that the search sees the transaction's own writes (outside a transaction
  there is nothing noted, and on SQLite nothing waits outside a batch)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from tortoise.backends.base.client import BaseDBAsyncClient, TransactionalDBClient

__all__ = ["batch", "catch_up"]


def _sqlite(connection: BaseDBAsyncClient) -> bool:
    return connection.capabilities.dialect == "sqlite"


@asynccontextmanager
async def batch(connection: BaseDBAsyncClient) -> AsyncIterator[None]:
    """Within `connection`'s transaction: the products written inside are indexed once, at the
    end. (On an error the transaction rolls back, the pause with it.)"""
    if not _sqlite(connection):
        yield  # the deferred trigger rebuilds at commit
        return
    await connection.execute_query("INSERT INTO product_search_pause (batch) VALUES (1)")
    yield
    await connection.execute_query("DELETE FROM product_search_pause")  # a trigger rebuilds the noted


async def catch_up(connection: BaseDBAsyncClient) -> None:
    if isinstance(connection, TransactionalDBClient) and not _sqlite(connection):
        await connection.execute_query("SELECT product_search_drain()")
