"""Factories for catalogue tests: a catalogue of many full products, to show that a read runs as
many SQL statements for one product as for fifty."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from models import (
    Image, MoneyAmount, Product, ProductCategory, ProductOption, ProductOptionValue, ProductTag, ProductType,
    ProductVariant, Region, SalesChannel,
)
from services.store.defaults import get_store

__all__ = ["hide_seeded_products", "full_products", "statements", "without_counts"]


async def hide_seeded_products() -> None:
    await Product.all().update(deleted_at=datetime.now(timezone.utc))


async def full_products(count: int, *, first: int = 0, variants: int = 10) -> list[Product]:
    """`count` published products in the default sales channel, each with a type, two tags, two
    images, a category, two options and `variants` variants priced in usd and eur and for the EU
    region. Rows are written in bulk: a few statements per product."""
    store = await get_store()
    channel = await SalesChannel.get(id=store.default_sales_channel_id)
    eu = await Region.get(name="EU")
    kind = await ProductType.create(value="apparel")
    category = await ProductCategory.create(name=f"Range {first}", handle=f"range-{first}", is_active=True)
    products = [
        Product(title=f"Product {i}", handle=f"product-{i}", status="published", type_id=kind.id)
        for i in range(first, first + count)
    ]
    await Product.bulk_create(products)
    options, rows, prices, values = [], [], [], []
    for product in products:
        size = ProductOption(title="Size", product_id=product.id)
        colour = ProductOption(title="Colour", product_id=product.id)
        options += [size, colour]
        for n in range(variants):
            variant = ProductVariant(
                title=f"{product.title} {n}", product_id=product.id, sku=f"{product.handle}-{n}",
                inventory_quantity=10, variant_rank=n,
            )
            rows.append(variant)
            prices += [
                MoneyAmount(variant_id=variant.id, currency_code="usd", amount=1000 + n),
                MoneyAmount(variant_id=variant.id, currency_code="eur", amount=900 + n),
                MoneyAmount(variant_id=variant.id, currency_code="eur", amount=800 + n, region_id=eu.id),
            ]
            values += [
                ProductOptionValue(value=f"S{n}", option_id=size.id, variant_id=variant.id),
                ProductOptionValue(value="Black", option_id=colour.id, variant_id=variant.id),
            ]
    for model, batch in ((ProductOption, options), (ProductVariant, rows), (MoneyAmount, prices),
                         (ProductOptionValue, values)):
        await model.bulk_create(batch, batch_size=500)
    products = await Product.filter(id__in=[p.id for p in products]).order_by("handle")
    for product in products:
        tags = [await ProductTag.create(value=f"{product.handle} {t}") for t in ("new", "sale")]
        await product.tags.add(*tags)
        await product.images.add(*[await Image.create(url=f"https://example.com/{product.handle}-{i}.png")
                                   for i in range(2)])
        await product.sales_channels.add(channel)
        await category.products.add(product)
    return products


def statements(queries: list[str]) -> list[str]:
    """The SQL text of each logged statement, without its parameters or IN-list width (a
    one-element IN list is written `"id"=?`)."""
    out = []
    for q in queries:
        sql = re.sub(r"\$\d+", "?", q.split(": [")[0])
        out.append(re.sub(r'"=\?', '" IN (?)', re.sub(r"\(\?(,\?)*\)", "(?)", sql)))
    return sorted(out)


def without_counts(queries: list[str]) -> list[str]:
    """`statements`, less the page's count: a page shorter than its limit needs none."""
    return [q for q in statements(queries) if not q.startswith("SELECT COUNT(")]
