"""Which search engine finds products: the database's own (services/catalog/search_engine.py),
or one a plugin offers (services/core/plugins.py `Providers.search`: MeiliSearch, Algolia …),
chosen by SEARCH_PROVIDER as Medusa v1's search plugins are. The store's search
(`POST /store/products/search`) and the lists' `q=` ask the engine for product ids; the rows, prices
and the shopper's channel rules stay the core's, so an engine cannot show what a shopper may not see.

An engine keeps its own index current the way Medusa's search plugins do: a subscriber of the
plugin hears `product.created`, `product.updated` and `product.deleted` and indexes the product."""

from __future__ import annotations

from typing import Protocol

from services.catalog import search_engine as database

__all__ = ["SearchEngine", "configure", "outside_engine", "search_product_ids", "matching_ids"]


class SearchEngine(Protocol):
    id: str

    async def search_product_ids(self, terms: list[str], channel_ids: list[str], limit: int, offset: int, *,
                                 published_only: bool = True) -> tuple[list[str], int]:
        """A page of matching product ids, best first, and how many match in all. `terms` are the
        shopper's words (letters and digits, lower-cased); `channel_ids`, when given, the sales
        channels a product must be in."""

    async def matching_ids(self, q: str | None, *, published_only: bool) -> list[str]:
        """Product ids matching `q` (its best few hundred), for a list to add to its own filter."""


_engine: SearchEngine | None = None  # None: the database's own


def configure(engine: SearchEngine | None) -> None:
    global _engine
    _engine = engine


def outside_engine() -> bool:
    """Whether a plugin's engine searches, rather than the database's own index."""
    return _engine is not None


async def search_product_ids(terms: list[str], channel_ids: list[str], limit: int, offset: int, *,
                             published_only: bool = True) -> tuple[list[str], int]:
    if _engine is not None:
        return await _engine.search_product_ids(terms, channel_ids, limit, offset, published_only=published_only)
    return await database.search_product_ids(terms, channel_ids, limit, offset, published_only=published_only)


async def matching_ids(q: str | None, *, published_only: bool) -> list[str]:
    if _engine is not None:
        return await _engine.matching_ids(q, published_only=published_only)
    return await database.matching_ids(q, published_only=published_only)
