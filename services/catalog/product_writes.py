"""Admin product writes: create a product with its
options, variants and prices, update it (its variants reconciled with the list given), delete it,
set one metadata key. Each is one transaction with a number of statements that does not grow with
the number of variants or prices, and answers the product as `GET /admin/products/{id}` shows it.

Medusa v1's rules kept: the handle is the kebab-cased title when none is given and is unique among
live products; a gift card ships under the gift-card profile and is never discountable; images,
tags and the type are found by URL or value and made when new (an `id` given for a tag or type is
not used); a product created with no sales channel goes into the store's default one. Unlike
Medusa, a variant made by an update defaults its stock to 0, an empty handle given to an update is
made from the title again, and two variants of one request with the same options are refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from pypika_tortoise.queries import Table

from models import (
    Image, Product, ProductCategory, ProductCollection, ProductOption, ProductTag, ProductType, ProductVariant,
    SalesChannel,
)
from services.catalog.product_prices import check_prices
from services.catalog.product_rules import (
    PRODUCT_DEFAULTS, clashes_refused, ensure_codes_free, ensure_handle_free, handle_from_title, shipping_profile_id,
)
from services.catalog.product_variants import (
    Stamps, locked_product, plan_new_variants, product_options, soft_delete_variants, update_variants,
    values_by_option_id, values_by_position, variant_combos,
)
from services.catalog.products import PricedProducts, get_admin_product
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits, fitting
from services.core.metadata import merge_metadata
from services.store.defaults import get_store
from services.events import names as ev
from services.events.bus import emit

__all__ = ["create_product", "update_product", "delete_product", "set_product_metadata", "PRODUCT_COLUMNS"]

PRODUCT_COLUMNS = (
    "title", "subtitle", "description", "handle", "status", "thumbnail", "weight", "length", "height", "width",
    "hs_code", "origin_country", "mid_code", "material", "discountable", "collection_id",
)


async def create_product(data: dict, relations: tuple[str, ...]) -> PricedProducts:
    """`data`: the fields of Medusa's AdminPostProductsReq (variants' options by position)."""
    variants = data.get("variants") or []
    handle = data.get("handle") or handle_from_title(data["title"])
    async with clashes_refused(handle, variants):
        async with atomic():
            product_id = await _create(data, handle, variants)
            await emit(ev.PRODUCT_CREATED, id=product_id)
    return await get_admin_product(product_id, relations)


async def _create(data: dict, handle: str | None, variants: list[dict]) -> str:
    channels = await _channels(data.get("sales_channels") or [])
    await ensure_handle_free(handle)
    is_giftcard = bool(data.get("is_giftcard"))
    columns = {k: data[k] for k in PRODUCT_COLUMNS if data.get(k) is not None}
    images = data.get("images") or []
    product = Product(
        **{**PRODUCT_DEFAULTS, **columns, "handle": handle, "is_giftcard": is_giftcard}, metadata=data.get("metadata"),
        profile_id=await shipping_profile_id(is_giftcard),
    )
    if is_giftcard:
        product.discountable = False
    if not product.thumbnail and images:
        product.thumbnail = images[0]
    await _check_collection(product.collection_id)
    product.type_id = await _type_id(data.get("type"))
    categories = await _categories(data.get("categories") or [])
    stamps = Stamps()
    options = [ProductOption(product_id=product.id, title=o["title"], created_at=stamps()) for o in data.get("options") or []]
    planned = [(rank, v, values_by_position(options, v.get("options") or [])) for rank, v in enumerate(variants)]
    await ensure_codes_free(variants)
    regions = await check_prices([p for v in variants for p in v.get("prices") or []])
    new = plan_new_variants(product.id, options, planned, {}, regions, stamps)
    await product.save()
    if options:
        await ProductOption.bulk_create(options)
    await new.insert()
    if not channels:  # none named: the store's default channel, as Medusa does even for `[]`
        default = (await get_store()).default_sales_channel_id
        channels = [default] if default else []
    await _link(product.id, "sales_channels", channels)
    await _link(product.id, "images", [i.id for i in await _found_or_made(Image, "url", images, stamps)])
    await _link(product.id, "tags", [t.id for t in await _found_or_made(ProductTag, "value", _values(data.get("tags")), stamps)])
    await _link(product.id, "categories", categories)
    return product.id


async def update_product(product_id: str, data: dict, relations: tuple[str, ...]) -> PricedProducts:
    """`data`: the fields given of Medusa's AdminPostProductsProductReq; a field given as null is
    cleared, `variants` is the product's whole list of variants."""
    handle = data.get("handle")
    variants = data.get("variants")
    async with clashes_refused(handle, variants or ()):
        async with atomic():
            await _update(product_id, data)
            await emit(ev.PRODUCT_UPDATED, id=product_id, fields=sorted(data))
    return await get_admin_product(product_id, relations)


async def _update(product_id: str, data: dict) -> None:
    product = await locked_product(product_id)
    channels = await _channels(data["sales_channels"] or []) if "sales_channels" in data else None
    product.update_from_dict({k: data[k] for k in PRODUCT_COLUMNS if k in data})
    if "handle" in data and not product.handle:
        product.handle = handle_from_title(product.title)
    await ensure_handle_free(product.handle, product.id)
    if product.is_giftcard:
        product.discountable = False
    if "collection_id" in data:
        await _check_collection(product.collection_id)
    if "type" in data:
        product.type_id = await _type_id(data["type"])
    if "metadata" in data:
        product.metadata = merge_metadata(product.metadata, data["metadata"])
    stamps = Stamps()
    if data.get("images") is not None and not product.thumbnail and data["images"]:
        product.thumbnail = data["images"][0]
    if data.get("variants") is not None:
        await _reconcile_variants(product.id, data["variants"], stamps)
    await product.save()
    if channels is not None:
        await _link(product.id, "sales_channels", channels, replace=True)
    if data.get("images") is not None:
        images = await _found_or_made(Image, "url", data["images"], stamps)
        await _link(product.id, "images", [i.id for i in images], replace=True)
    if data.get("tags") is not None:
        tags = await _found_or_made(ProductTag, "value", _values(data["tags"]), stamps)
        await _link(product.id, "tags", [t.id for t in tags], replace=True)
    if data.get("categories") is not None:
        await _link(product.id, "categories", await _categories(data["categories"]), replace=True)


async def _reconcile_variants(product_id: str, given: list[dict], stamps: Stamps) -> None:
    """The product's variants become `given`: those with an id are changed and re-ranked, those
    without are made, and the product's other variants are deleted."""
    current = set(await ProductVariant.filter(product_id=product_id, deleted_at=None).values_list("id", flat=True))
    foreign = [v["id"] for v in given if v.get("id") and v["id"] not in current]
    if foreign:
        raise NotFound(f"Variants with id: {', '.join(foreign)} are not associated with this product")
    await soft_delete_variants(list(current - {v["id"] for v in given if v.get("id")}))
    await ensure_codes_free(given)
    regions = await check_prices([p for v in given for p in v.get("prices") or []])
    options = await product_options(product_id)
    await update_variants(
        product_id, options, [(rank, v) for rank, v in enumerate(given) if v.get("id")], regions, stamps
    )
    planned = [
        (rank, v, values_by_option_id(options, v.get("options") or []))
        for rank, v in enumerate(given) if not v.get("id")
    ]
    if planned:
        combos = await variant_combos(product_id, options)
        await plan_new_variants(product_id, options, planned, combos, regions, stamps).insert()


async def delete_product(product_id: str) -> None:
    """A soft delete of the product, its options and variants (their values and prices); its
    handle is free again. An unknown or deleted product succeeds too, as in Medusa."""
    async with atomic():
        if not fits(Product, product_id):
            return
        product = await Product.filter(id=product_id, deleted_at=None).select_for_update().first()
        if product is None:
            return
        now = datetime.now(timezone.utc)
        variant_ids = await ProductVariant.filter(product_id=product_id, deleted_at=None).values_list("id", flat=True)
        await soft_delete_variants(list(variant_ids))
        await ProductOption.filter(product_id=product_id, deleted_at=None).update(deleted_at=now, updated_at=now)
        await Product.filter(id=product_id).update(deleted_at=now, updated_at=now)
        await emit(ev.PRODUCT_DELETED, id=product_id)


async def set_product_metadata(product_id: str, key: str, value: str, relations: tuple[str, ...]) -> PricedProducts:
    """One metadata key set (an empty value removes it), as an update with `{key: value}`."""
    async with atomic():
        product = await locked_product(product_id)
        product.metadata = merge_metadata(product.metadata, {key: value})
        await product.save(update_fields=["metadata", "updated_at"])
    return await get_admin_product(product_id, relations)


# ---------------------------------------------------------------- what a product refers to


def _values(items: list[dict] | None) -> list[str]:
    return [i["value"] for i in items or ()]


async def _found_or_made(model, column: str, keys: Iterable[str], stamps: Stamps) -> list:
    """The live rows whose `column` is each key (the oldest when several), the missing ones made
    with one statement; in the keys' order, each once."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return []
    found: dict[str, object] = {}
    for row in await model.filter(**{f"{column}__in": keys}, deleted_at=None).order_by("created_at", "id"):
        found.setdefault(getattr(row, column), row)
    new = [model(**{column: k}, created_at=stamps()) for k in keys if k not in found]
    if new:
        await model.bulk_create(new)
        found.update((getattr(r, column), r) for r in new)
    return [found[k] for k in keys]


async def _type_id(given: dict | None) -> str | None:
    if not given:
        return None
    return (await _found_or_made(ProductType, "value", [given["value"]], Stamps()))[0].id


async def _check_collection(collection_id: str | None) -> None:
    if collection_id and not (
        fits(ProductCollection, collection_id)
        and await ProductCollection.exists(id=collection_id, deleted_at=None)
    ):
        raise NotFound(f"Product_collection with collection_id {collection_id} does not exist.")


async def _categories(given: list[dict]) -> list[str]:
    wanted = list(dict.fromkeys(c["id"] for c in given))
    found = set(await ProductCategory.filter(id__in=fitting(ProductCategory, wanted)).values_list("id", flat=True)) if wanted else set()
    missing = next((c for c in wanted if c not in found), None)
    if missing is not None:
        raise NotFound(f"Product_category with product_category_id {missing} does not exist.")
    return wanted


async def _channels(given: list[dict]) -> list[str]:
    """The ids of the channels named; unknown ones are Medusa's 400 naming them all."""
    wanted = list(dict.fromkeys(c["id"] for c in given))
    found = set(await SalesChannel.filter(
        id__in=fitting(SalesChannel, wanted), deleted_at=None
    ).values_list("id", flat=True)) if wanted else set()
    missing = [c for c in wanted if c not in found]
    if missing:
        raise InvalidData(f"Sales Channels {', '.join(missing)} do not exist")
    return wanted


async def _link(product_id: str, relation: str, ids: list[str], replace: bool = False) -> None:
    """The product's links of a many-to-many relation set to `ids`: one statement to insert them
    (and one to remove the old ones when replacing)."""
    relation_field = Product._meta.fields_map[relation]
    through = Table(relation_field.through)
    db = Product._meta.db
    if replace:
        query = db.query_class.from_(through).where(through[relation_field.backward_key] == product_id).delete()
        await db.execute_query(*query.get_parameterized_sql())
    if ids:
        query = db.query_class.into(through).columns(relation_field.backward_key, relation_field.forward_key)
        for related_id in dict.fromkeys(ids):
            query = query.insert(product_id, related_id)
        await db.execute_query(*query.get_parameterized_sql())
