"""What the product export prints of a page of products, read without building model instances:
one ORM values query per relation (variants, their plain prices and option values, options,
images, tags, sales channels, collections, types, profiles), whatever the page's size: a page
of 1,000 products costs the same ten statements as a page of one.

Each relation is read as the API's prefetch reads it (services/core/listing.py's `prefetches`):
live rows only, in the related model's RELATION_ORDER (variants by rank, the rest by creation,
then id), so the file is the one the prefetched products gave;
tests/services/batch_jobs/test_product_export_reads.py holds the two equal on both backends."""

from __future__ import annotations

from dataclasses import dataclass, field

from models import (
    Image, MoneyAmount, ProductCollection, ProductOption, ProductOptionValue, ProductTag, ProductType,
    ProductVariant, SalesChannel, ShippingProfile,
)
from services.batch_jobs.product_import.columns import STATIC_COLUMNS

__all__ = ["PRODUCT_COLUMNS", "VARIANT_COLUMNS", "ProductRows", "VariantRows", "read_page"]

# The product's own columns the file prints, and the keys of what it prints beside them.
PRODUCT_COLUMNS = (
    *(c.attribute for c in STATIC_COLUMNS if c.entity == "product" and c.attribute not in (
        "collection_title", "collection_handle", "type", "tags")),
    "collection_id", "type_id", "profile_id",
)
VARIANT_COLUMNS = tuple(c.attribute for c in STATIC_COLUMNS if c.entity == "variant")


@dataclass(slots=True)
class VariantRows:
    variant: dict  # VARIANT_COLUMNS
    prices: dict[tuple[str, str | None], int] = field(default_factory=dict)  # (currency, region) -> amount
    values: dict[str, str] = field(default_factory=dict)  # option id -> value


@dataclass(slots=True)
class ProductRows:
    product: dict  # PRODUCT_COLUMNS
    collection: dict | None = None  # title, handle
    type: str | None = None  # the type's value
    profile: dict | None = None  # name, type
    tags: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)  # urls
    channels: list[dict] = field(default_factory=list)  # id, name, description
    options: list[dict] = field(default_factory=list)  # id, title
    variants: list[VariantRows] = field(default_factory=list)


async def read_page(products: list[dict]) -> list[ProductRows]:
    """The rows below `products` (dicts of PRODUCT_COLUMNS), in the page's order."""
    if not products:
        return []
    ids = [p["id"] for p in products]
    out = {p["id"]: ProductRows(p) for p in products}
    await _linked(out, ids)
    variants: dict[str, VariantRows] = {}
    for v in await ProductVariant.filter(product_id__in=ids, deleted_at=None).order_by(
        *ProductVariant.RELATION_ORDER
    ).values("product_id", *VARIANT_COLUMNS):
        variants[v["id"]] = rows = VariantRows(v)
        out[v.pop("product_id")].variants.append(rows)
    if variants:
        variant_ids = list(variants)
        # Later rows win, as the prefetched prices' dict kept the last of a key.
        for p in await MoneyAmount.filter(
            variant_id__in=variant_ids, deleted_at=None, price_list_id=None, min_quantity=None, max_quantity=None,
        ).order_by("created_at", "id").values_list("variant_id", "currency_code", "region_id", "amount"):
            variants[p[0]].prices[(p[1], p[2])] = p[3]
        for o in await ProductOptionValue.filter(variant_id__in=variant_ids, deleted_at=None).order_by(
            "created_at", "id"
        ).values_list("variant_id", "option_id", "value"):
            variants[o[0]].values[o[1]] = o[2]
    for o in await ProductOption.filter(product_id__in=ids, deleted_at=None).order_by("created_at", "id").values(
        "product_id", "id", "title"
    ):
        out[o.pop("product_id")].options.append(o)
    return list(out.values())


async def _linked(out: dict[str, ProductRows], ids: list[str]) -> None:
    """Collections, types and profiles (one each), then tags, images and channels (the lists)."""
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
    for model, columns, attribute in (
        (ProductTag, ("value",), "tags"), (Image, ("url",), "images"), (SalesChannel, ("id", "name", "description"), "channels"),
    ):
        for row in await model.filter(products__id__in=ids, deleted_at=None).order_by("created_at", "id").values(
            "products__id", *columns
        ):
            target = getattr(out[row["products__id"]], attribute)
            target.append(row[columns[0]] if len(columns) == 1 else {c: row[c] for c in columns})
