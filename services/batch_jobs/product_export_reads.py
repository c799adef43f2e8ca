"""What the product export prints of a page of products, read without building model instances
and with the same statements whatever the page's size: a page of 1,000 products costs ten.

- seven statements for the rows below the products (variants, their plain prices and option
  values, options, tags, images, sales channels), each joining the page's ids given as one
  parameter (an array on PostgreSQL, a JSON list on SQLite), so its text is the same for every
  page and nothing is built value by value (the ORM's IN lists of 5,000 variant ids cost over a
  quarter of the export's time); two run at a time;
- three ORM queries for the few collections, types and profiles the page names;
- and, for the file's header, before any line is written, two statements a page of what the
  header needs (`read_shape`).

Each relation is read as the API's prefetch reads it (services/core/listing.py's `prefetches`):
live rows only, in the related model's RELATION_ORDER (variants by rank, the rest by creation,
then id), so the file is the one the prefetched products gave;
tests/services/batch_jobs/test_product_export_reads.py holds the two equal on both backends, and
the header's needs equal the ORM's counts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from models import Product, ProductCollection, ProductType, ShippingProfile
from services.batch_jobs.product_import.columns import STATIC_COLUMNS
from services.core.sql import ID_TABLE, ids_value

__all__ = ["PRODUCT_COLUMNS", "VARIANT_COLUMNS", "ProductRows", "VariantRows", "read_page", "read_shape"]

# The product's own columns the file prints, and the keys of what it prints beside them.
PRODUCT_COLUMNS = (
    *(c.attribute for c in STATIC_COLUMNS if c.entity == "product" and c.attribute not in (
        "collection_title", "collection_handle", "type", "tags")),
    "collection_id", "type_id", "profile_id",
)
VARIANT_COLUMNS = tuple(c.attribute for c in STATIC_COLUMNS if c.entity == "variant")
_FLAGS = [VARIANT_COLUMNS.index(c) for c in ("allow_backorder", "manage_inventory")]  # SQLite reads 0 / 1


@dataclass(slots=True)
class VariantRows:
    variant: dict  # VARIANT_COLUMNS
    prices: dict[tuple[str, str | None], int] = field(default_factory=dict)  # (currency, region) -> amount
    values: dict[str, str] = field(default_factory=dict)  # option id -> value


@dataclass(slots=True)
class ProductRows:
    product: dict  # PRODUCT_COLUMNS
    collection: dict | None = None  # id, title, handle
    type: str | None = None  # the type's value
    profile: dict | None = None  # id, name, type
    tags: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)  # urls
    channels: list[dict] = field(default_factory=list)  # id, name, description
    options: list[dict] = field(default_factory=list)  # id, title
    variants: list[VariantRows] = field(default_factory=list)


_LIVE_VARIANTS = 'JOIN "product_variant" "v" ON "v"."product_id" = "k"."id" AND "v"."deleted_at" IS NULL'
_VARIANT_SELECT = ", ".join(f'"v"."{c}"' for c in VARIANT_COLUMNS)
_READS = {
    "variants": (f'SELECT "v"."product_id", {_VARIANT_SELECT} '
                 f'FROM {{keys}} {_LIVE_VARIANTS} ORDER BY "v"."variant_rank", "v"."created_at", "v"."id"'),
    # Later rows win, as the prefetched prices' dict kept the last of a key.
    "prices": ('SELECT "m"."variant_id", "m"."currency_code", "m"."region_id", "m"."amount" '
               f'FROM {{keys}} {_LIVE_VARIANTS} JOIN "money_amount" "m" ON "m"."variant_id" = "v"."id" '
               'WHERE "m"."deleted_at" IS NULL AND "m"."price_list_id" IS NULL AND "m"."min_quantity" IS NULL '
               'AND "m"."max_quantity" IS NULL ORDER BY "m"."created_at", "m"."id"'),
    "values": ('SELECT "ov"."variant_id", "ov"."option_id", "ov"."value" '
               f'FROM {{keys}} {_LIVE_VARIANTS} JOIN "product_option_value" "ov" ON "ov"."variant_id" = "v"."id" '
               'WHERE "ov"."deleted_at" IS NULL ORDER BY "ov"."created_at", "ov"."id"'),
    "options": ('SELECT "o"."product_id", "o"."id", "o"."title" FROM {keys} '
                'JOIN "product_option" "o" ON "o"."product_id" = "k"."id" '
                'WHERE "o"."deleted_at" IS NULL ORDER BY "o"."created_at", "o"."id"'),
    "tags": ('SELECT "j"."product_id", "t"."value" FROM {keys} JOIN "product_tags" "j" ON "j"."product_id" = "k"."id" '
             'JOIN "product_tag" "t" ON "t"."id" = "j"."product_tag_id" '
             'WHERE "t"."deleted_at" IS NULL ORDER BY "t"."created_at", "t"."id"'),
    "images": ('SELECT "j"."product_id", "i"."url" FROM {keys} '
               'JOIN "product_images" "j" ON "j"."product_id" = "k"."id" '
               'JOIN "image" "i" ON "i"."id" = "j"."image_id" '
               'WHERE "i"."deleted_at" IS NULL ORDER BY "i"."created_at", "i"."id"'),
    "channels": ('SELECT "j"."product_id", "c"."id", "c"."name", "c"."description" FROM {keys} '
                 'JOIN "product_sales_channel" "j" ON "j"."product_id" = "k"."id" '
                 'JOIN "sales_channel" "c" ON "c"."id" = "j"."sales_channel_id" '
                 'WHERE "c"."deleted_at" IS NULL ORDER BY "c"."created_at", "c"."id"'),
}
# What the file's header needs of a page: the most live options, images and channels a product
# has, and the kinds of plain price its live variants have.
_SHAPE_READS = {
    "most": ('SELECT MAX((SELECT COUNT(*) FROM "product_option" "o" WHERE "o"."product_id" = "k"."id" '
             'AND "o"."deleted_at" IS NULL)), '
             'MAX((SELECT COUNT(*) FROM "product_images" "j" JOIN "image" "i" ON "i"."id" = "j"."image_id" '
             'WHERE "j"."product_id" = "k"."id" AND "i"."deleted_at" IS NULL)), '
             'MAX((SELECT COUNT(*) FROM "product_sales_channel" "j" JOIN "sales_channel" "c" '
             'ON "c"."id" = "j"."sales_channel_id" WHERE "j"."product_id" = "k"."id" AND "c"."deleted_at" IS NULL)) '
             'FROM {keys}'),
    "price_kinds": ('SELECT DISTINCT "m"."currency_code", "m"."region_id" '
                    f'FROM {{keys}} {_LIVE_VARIANTS} JOIN "money_amount" "m" ON "m"."variant_id" = "v"."id" '
                    'WHERE "m"."deleted_at" IS NULL AND "m"."price_list_id" IS NULL AND "m"."min_quantity" IS NULL '
                    'AND "m"."max_quantity" IS NULL'),
}
_STATEMENTS: dict[str, dict[str, str]] = {}
_SIDE_BY_SIDE = 2  # statements a page reads at once


def _statements(dialect: str) -> dict[str, str]:
    if dialect not in _STATEMENTS:
        _STATEMENTS[dialect] = {name: text.format(keys=ID_TABLE[dialect])
                                for name, text in (*_READS.items(), *_SHAPE_READS.items())}
    return _STATEMENTS[dialect]


async def read_shape(ids: list[str]) -> tuple[tuple[int, int, int], set[tuple[str, str | None]]]:
    """For the products `ids`: the most live options, images and sales channels one of them has,
    and the (currency, region) of their live variants' plain prices. Two statements."""
    if not ids:
        return (0, 0, 0), set()
    db = Product._meta.db
    dialect = db.capabilities.dialect
    statements, value = _statements(dialect), [ids_value(dialect, ids)]
    (_, most), (_, prices) = await asyncio.gather(
        db.execute_query(statements["most"], value), db.execute_query(statements["price_kinds"], value))
    return tuple(n or 0 for n in most[0]), {(currency, region_id) for currency, region_id in prices}


async def read_page(products: list[dict]) -> list[ProductRows]:
    """The rows below `products` (dicts of PRODUCT_COLUMNS), in the page's order."""
    if not products:
        return []
    ids = [p["id"] for p in products]
    out = {p["id"]: ProductRows(p) for p in products}
    db = Product._meta.db
    dialect = db.capabilities.dialect
    value = [ids_value(dialect, ids)]
    statements = _statements(dialect)
    # Two at a time on PostgreSQL, as the order export reads: a worker's small pool keeps
    # connections for its other jobs (and their heartbeats). SQLite's one connection takes them in turn.
    pair = asyncio.Semaphore(_SIDE_BY_SIDE)

    async def read(name: str) -> list:
        async with pair:
            return (await db.execute_query(statements[name], value))[1]

    async def linked() -> None:
        async with pair:
            await _linked(out)

    found = await asyncio.gather(*(read(name) for name in _READS), linked())
    rows = dict(zip(_READS, found))

    variants: dict[str, VariantRows] = {}
    for row in rows["variants"]:
        variant = dict(zip(VARIANT_COLUMNS, row[1:]))
        if dialect == "sqlite":
            for i in _FLAGS:
                name = VARIANT_COLUMNS[i]
                variant[name] = None if variant[name] is None else bool(variant[name])
        variants[variant["id"]] = rows_of = VariantRows(variant)
        out[row[0]].variants.append(rows_of)
    # The statements run side by side, each on its own snapshot: a variant added or deleted in
    # between is in one and not the other, and its rows are left out with it.
    none = VariantRows({})
    for variant_id, currency, region_id, amount in rows["prices"]:
        variants.get(variant_id, none).prices[(currency, region_id)] = amount
    for variant_id, option_id, value_ in rows["values"]:
        variants.get(variant_id, none).values[option_id] = value_
    for product_id, option_id, title in rows["options"]:
        out[product_id].options.append({"id": option_id, "title": title})
    for product_id, tag in rows["tags"]:
        out[product_id].tags.append(tag)
    for product_id, url in rows["images"]:
        out[product_id].images.append(url)
    for product_id, channel_id, name, description in rows["channels"]:
        out[product_id].channels.append({"id": channel_id, "name": name, "description": description})
    return list(out.values())


async def _linked(out: dict[str, ProductRows]) -> None:
    """The collections, types and profiles the page's products name: a few ids, one query each."""
    for model, key, columns, attribute in (
        (ProductCollection, "collection_id", ("title", "handle"), "collection"),
        (ProductType, "type_id", ("value",), "type"),
        (ShippingProfile, "profile_id", ("name", "type"), "profile"),
    ):
        wanted = list({r.product[key] for r in out.values()} - {None})
        found = {row["id"]: row for row in await model.filter(id__in=wanted, deleted_at=None).values(
            "id", *columns)} if wanted else {}
        for rows in out.values():
            row = found.get(rows.product[key])
            setattr(rows, attribute, row["value"] if attribute == "type" and row else row)
