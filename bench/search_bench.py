"""Product search benchmark (not a test): adds N products (two variants each, titles, tags-free
descriptions and SKUs drawn from a small vocabulary) to the configured database, then times the
store's search: the index query alone (services/catalog/search.py) and the whole search as
`POST /store/products/search` runs it (a page of 20 hits loaded and priced), in-process.

    createdb -h 127.0.0.1 -U postgres search_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/search_bench .venv/bin/python -m bench.search_bench --products 10000
    DATABASE_URL=sqlite:///tmp/search_bench.sqlite3 .venv/bin/python -m bench.search_bench --products 10000

The products are written in bulk once (the index triggers run per row, as for any writer); a
second run finds them and only searches. Prints p50/p95 in milliseconds per kind of query.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from app.config import Settings
from bench.in_process import open_store

BULK = 1000
ADJECTIVES = ("classic", "vintage", "organic", "slim", "relaxed", "cozy", "bold", "urban", "coastal", "alpine",
              "midnight", "sunny", "rugged", "soft", "light", "heavy", "striped", "plain", "retro", "modern")
NOUNS = ("shirt", "sweatshirt", "hoodie", "jacket", "trousers", "shorts", "cap", "beanie", "mug", "bottle",
         "socks", "scarf", "tote", "backpack", "notebook", "poster", "sticker", "blanket", "candle", "apron")
MATERIALS = ("cotton", "linen", "wool", "denim", "ceramic", "steel", "canvas", "fleece", "bamboo", "leather")
QUERIES = {
    "word": ("hoodie", "canvas", "retro", "blanket", "steel"),
    "prefix": ("hoo", "sweat", "cer", "back", "mid"),
    "two words": ("cozy hoodie", "organic cotton", "vintage mug", "urban jacket", "alpine wool"),
    "sku": ("SKU-1234", "SKU-77", "SKU-9001"),
    "typo": ("hodie", "blanekt", "sweatshrt"),
}


async def add_products(count: int) -> None:
    from models import Product, ProductVariant, SalesChannel
    from services.store.defaults import default_channel_id

    have = await Product.filter(handle__startswith="bench-").count()
    channel = await SalesChannel.get(id=await default_channel_id())
    rng = random.Random(37)
    for start in range(have, count, BULK):
        size = min(BULK, count - start)
        products = []
        for i in range(start, start + size):
            adjective, noun, material = rng.choice(ADJECTIVES), rng.choice(NOUNS), rng.choice(MATERIALS)
            products.append(Product(
                title=f"{adjective.title()} {material} {noun}", handle=f"bench-{i}", status="published",
                description=f"A {adjective} {noun} made of {material}, number {i} of the bench catalogue."))
        await Product.bulk_create(products)
        await ProductVariant.bulk_create([
            ProductVariant(product_id=p.id, title=size_name, sku=f"SKU-{start + n}-{size_name}", inventory_quantity=10)
            for n, p in enumerate(products) for size_name in ("S", "M")])
        for product in products:
            product._saved_in_db = True  # bulk_create leaves the flag down; the ids are set
        await channel.products.add(*products)
        print(f"  {start + size} products", end="\r", flush=True)
    print()


async def timed(call, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return times


async def run(settings: Settings, products: int, rounds: int) -> dict:
    from models import Product
    from services.catalog.search import search_product_ids, search_store_products, search_terms
    from services.core.listing import FindConfig
    from services.store.defaults import default_channel_id

    async with open_store(settings, broker=False):
        started = time.perf_counter()
        await add_products(products)
        print(f"products in place in {time.perf_counter() - started:.1f}s")
        if Product._meta.db.capabilities.dialect != "sqlite":
            await Product._meta.db.execute_script("ANALYZE")  # as autovacuum would after a bulk load
        channels = [await default_channel_id()]
        config = FindConfig(limit=20, offset=0, order=(), relations=("variants", "variants.prices", "options",
                                                                     "images", "tags", "collection"))
        report = {}
        for kind, queries in QUERIES.items():
            index, whole, hits = [], [], []
            for q in queries:
                index += await timed(lambda: search_product_ids(search_terms(q), channels, 20, 0), rounds)
                whole += await timed(lambda: search_store_products(q, config), rounds)
                hits.append((await search_product_ids(search_terms(q), channels, 20, 0))[1])
            report[kind] = {
                "index_p50_ms": round(statistics.median(index), 2),
                "index_p95_ms": round(statistics.quantiles(index, n=20)[-1], 2),
                "search_p50_ms": round(statistics.median(whole), 2),
                "search_p95_ms": round(statistics.quantiles(whole, n=20)[-1], 2),
                "matches": hits,
            }
        return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    for kind, numbers in asyncio.run(run(Settings.from_env(), args.products, args.rounds)).items():
        print(f"{kind:>10}: {numbers}")


if __name__ == "__main__":
    main()
