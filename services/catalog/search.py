"""Product search from the database itself: `POST /store/products/search`'s
hits, ranked by the engine (services/catalog/search_engine.py), loaded and priced as the store's
list loads them."""

from __future__ import annotations

from dataclasses import replace

from services.catalog.products import PricedProducts, StoreProductFilter, list_store_products
from services.catalog.search_engine import search_terms
from services.catalog.search_engines import search_product_ids
from services.core.listing import FindConfig
from services.sales_channels.scopes import KeyScope, listing_channels
from services.store.defaults import default_channel_id

__all__ = ["search_store_products", "search_terms", "search_product_ids"]


async def search_store_products(q: str, config: FindConfig, scope: KeyScope | None = None) -> PricedProducts:
    """The store's search: ranked hits within the key's channels (else the default channel),
    loaded and priced as the list loads them, in rank order."""
    channel_ids = listing_channels(scope, []) or [c for c in [await default_channel_id()] if c]
    ids, count = await search_product_ids(search_terms(q), channel_ids, config.limit, config.offset)
    if not ids:
        return PricedProducts([], count, {})
    page = await list_store_products(StoreProductFilter(id=ids), replace(config, offset=0), scope)
    rank = {product_id: i for i, product_id in enumerate(ids)}
    return PricedProducts(sorted(page.products, key=lambda p: rank[p.id]), count, page.prices)
