"""A product's variants as the admin writes them: new ones with their option values and prices
written in one statement per table, changes
to existing ones, and the routes' own operations (add, update, delete one variant).

A variant gives one value for each option of its product, and no two live variants of a product
have the same values (checked within the request too, and only when the product has options:
Medusa v1 misses duplicates inside one request and refuses a second variant of a product without
options). Unlike Medusa, a variant updated or deleted under another product's path is not found
(Medusa moves or deletes it), and adding a variant to an unknown product is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import count

from models import MoneyAmount, Product, ProductOption, ProductOptionValue, ProductVariant
from services.catalog.product_prices import check_prices, new_price_rows, replace_prices
from services.catalog.product_rules import VARIANT_DEFAULTS, clashes_refused, ensure_codes_free
from services.catalog.products import PricedProducts, get_admin_product
from services.core.db import atomic
from services import inventory
from services.inventory.items import variants_deleted
from services.inventory.switch_on import variants_changed
from services.core.errors import Duplicate, InvalidData, NotFound
from services.core.ids import fits
from services.core.metadata import merge_metadata

__all__ = [
    "Stamps", "NewVariants", "VARIANT_COLUMNS", "locked_product", "product_options", "values_by_position",
    "values_by_option_id", "variant_combos", "plan_new_variants", "update_variants", "soft_delete_variants",
    "add_variant", "update_variant", "delete_variant",
]

VARIANT_COLUMNS = (
    "title", "sku", "barcode", "ean", "upc", "inventory_quantity", "allow_backorder", "manage_inventory",
    "hs_code", "origin_country", "mid_code", "material", "weight", "length", "height", "width",
)


class Stamps:
    """Creation times a microsecond apart, so rows written in one statement keep the request's
    order (options, values and prices are read in created order)."""

    def __init__(self) -> None:
        self._start, self._tick = datetime.now(timezone.utc), count()

    def __call__(self) -> datetime:
        return self._start + timedelta(microseconds=next(self._tick))


@dataclass
class NewVariants:
    """Unsaved rows of new variants, written with one statement per table."""

    variants: list[ProductVariant] = field(default_factory=list)
    values: list[ProductOptionValue] = field(default_factory=list)
    prices: list[MoneyAmount] = field(default_factory=list)

    async def insert(self) -> None:
        for rows in (self.variants, self.values, self.prices):
            if rows:
                await type(rows[0]).bulk_create(rows)
        await variants_changed([v.id for v in self.variants])  # INVENTORY_LOCATIONS: each gets its item


async def locked_product(product_id: str) -> Product:
    """The live product, its row locked until the transaction ends (writes to one product queue)."""
    product = None
    if fits(Product, product_id):
        product = await Product.filter(id=product_id, deleted_at=None).select_for_update().first()
    if product is None:
        raise NotFound(f"Product with id: {product_id} was not found")
    return product


async def product_options(product_id: str) -> list[ProductOption]:
    return await ProductOption.filter(product_id=product_id, deleted_at=None).order_by("created_at", "id")


def _length_check(options: list[ProductOption], given: list[dict]) -> None:
    if len(given) != len(options):
        raise InvalidData(
            "Product options length does not match variant options length. "
            f"Product has {len(options)} and variant has {len(given)}."
        )


def values_by_position(options: list[ProductOption], given: list[dict]) -> list[str]:
    """The values of a new product's variant: the i-th for the i-th option."""
    _length_check(options, given)
    return [v["value"] for v in given]


def values_by_option_id(options: list[ProductOption], given: list[dict]) -> list[str]:
    """The values of a variant given as `{option_id, value}`, in the product's option order."""
    _length_check(options, given)
    by_option = {v["option_id"]: v["value"] for v in given}
    missing = next((o for o in options if o.id not in by_option), None)
    if missing is not None:
        raise InvalidData(f"Variant options do not contain value for {missing.title}")
    return [by_option[o.id] for o in options]


async def variant_combos(product_id: str, options: list[ProductOption]) -> dict[tuple, tuple[str, str]]:
    """The option values of the product's live variants: values (in option order) -> (variant id,
    title). Empty when the product has no options."""
    if not options:
        return {}
    variants = dict(await ProductVariant.filter(product_id=product_id, deleted_at=None).values_list("id", "title"))
    values: dict[str, dict[str, str]] = {v: {} for v in variants}
    for variant_id, option_id, value in await ProductOptionValue.filter(
        variant_id__in=list(variants), deleted_at=None
    ).values_list("variant_id", "option_id", "value") if variants else ():
        values[variant_id][option_id] = value
    return {tuple(vals.get(o.id) for o in options): (v, variants[v]) for v, vals in values.items()}


def _claim(combos: dict[tuple, tuple[str, str]], combo: tuple, variant_id: str, title: str) -> None:
    holder = combos.get(combo)
    if combo and holder is not None and holder[0] != variant_id:
        raise Duplicate(f"Variant with title {holder[1]} with provided options already exists")
    if combo:
        combos[combo] = (variant_id, title)


def _columns(data: dict) -> dict:
    return {c: data[c] for c in VARIANT_COLUMNS if c in data}


def plan_new_variants(
    product_id: str, options: list[ProductOption], variants: list[tuple[int, dict, list[str]]],
    combos: dict[tuple, tuple[str, str]], regions: dict[str, str], stamps: Stamps,
) -> NewVariants:
    """Rows for new variants, each given as (rank, fields, option values in option order)."""
    rows = NewVariants()
    for rank, data, values in variants:
        if not data.get("title"):
            raise InvalidData("Can't insert null value in field title on insert in table product_variant")
        given = {k: v for k, v in _columns(data).items() if v is not None or k not in VARIANT_DEFAULTS}
        variant = ProductVariant(
            product_id=product_id, variant_rank=rank, metadata=data.get("metadata"), created_at=stamps(),
            **{**VARIANT_DEFAULTS, **given},
        )
        _claim(combos, tuple(values), variant.id, variant.title)
        rows.variants.append(variant)
        rows.values.extend(
            ProductOptionValue(option_id=o.id, variant_id=variant.id, value=v, created_at=stamps())
            for o, v in zip(options, values)
        )
        rows.prices.extend(new_price_rows(variant.id, data.get("prices") or [], regions, stamps))
    return rows


async def update_variants(
    product_id: str, options: list[ProductOption], changes: list[tuple[int | None, dict]],
    regions: dict[str, str], stamps: Stamps,
) -> None:
    """Apply (rank or None, fields given with `id`) to the product's variants: columns set,
    metadata merged, option values changed (`{option_id, value}`), prices replaced when given."""
    if not changes:
        return
    ids = [data["id"] for _, data in changes]
    variants = {v.id: v for v in await ProductVariant.filter(id__in=ids, product_id=product_id, deleted_at=None)}
    values = {
        (v.variant_id, v.option_id): v
        for v in await ProductOptionValue.filter(variant_id__in=ids, deleted_at=None)
    }
    combos = await variant_combos(product_id, options)
    touched_values: list[ProductOptionValue] = []
    for rank, data in changes:
        variant = variants[data["id"]]
        variant.update_from_dict({k: v for k, v in _columns(data).items() if v is not None or k not in VARIANT_DEFAULTS})
        if "metadata" in data:
            variant.metadata = merge_metadata(variant.metadata, data["metadata"])
        if rank is not None:
            variant.variant_rank = rank
        for given in data.get("options") or ():
            row = values.get((variant.id, given["option_id"]))
            if row is None:
                raise NotFound("Product option value not found")
            row.value = given["value"]
            touched_values.append(row)
    if touched_values:  # the new values may not repeat another variant's
        by_variant = {v.id: {} for v in variants.values()}
        for (variant_id, option_id), row in values.items():
            by_variant[variant_id][option_id] = row.value
        mine = {variant_id for variant_id, _ in values}
        for combo, holder in list(combos.items()):
            if holder[0] in mine:
                del combos[combo]
        for variant_id, vals in by_variant.items():
            _claim(combos, tuple(vals.get(o.id) for o in options), variant_id, variants[variant_id].title)
        await ProductOptionValue.bulk_update(touched_values, fields=["value", "updated_at"])
    await ProductVariant.bulk_update(
        list(variants.values()), fields=[*VARIANT_COLUMNS, "metadata", "variant_rank", "updated_at"]
    )
    await variants_changed(ids)  # INVENTORY_LOCATIONS: a new quantity is stocked at the default location
    await replace_prices(
        {data["id"]: data["prices"] for _, data in changes if data.get("prices") is not None}, regions, stamps
    )


async def soft_delete_variants(variant_ids: list[str]) -> None:
    """The variants, their option values and their prices (price-list ones too) are soft-deleted."""
    if not variant_ids:
        return
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(id__in=variant_ids).update(deleted_at=now, updated_at=now)
    await ProductOptionValue.filter(variant_id__in=variant_ids, deleted_at=None).update(deleted_at=now, updated_at=now)
    await MoneyAmount.filter(variant_id__in=variant_ids, deleted_at=None).update(deleted_at=now, updated_at=now)
    if inventory.enabled():  # their inventory items go too, unless units of them are reserved
        await variants_deleted(variant_ids)


# ---------------------------------------------------------------- the variant routes


async def add_variant(product_id: str, data: dict, relations: tuple[str, ...]) -> PricedProducts:
    """A new variant ranked last; its options as `{option_id, value}`."""
    async with clashes_refused(variants=[data]):
        async with atomic():
            await locked_product(product_id)
            options = await product_options(product_id)
            values = values_by_option_id(options, data.get("options") or [])
            await ensure_codes_free([data])
            regions = await check_prices(data.get("prices") or [])
            rank = await ProductVariant.filter(product_id=product_id, deleted_at=None).count()
            combos = await variant_combos(product_id, options)
            await plan_new_variants(product_id, options, [(rank, data, values)], combos, regions, Stamps()).insert()
    return await get_admin_product(product_id, relations)


async def update_variant(product_id: str, variant_id: str, data: dict, relations: tuple[str, ...]) -> PricedProducts:
    """The variant's given columns set, metadata merged, option values changed, prices replaced."""
    async with clashes_refused(variants=[data]):
        async with atomic():
            await locked_product(product_id)
            if not fits(ProductVariant, variant_id) or not await ProductVariant.exists(
                id=variant_id, product_id=product_id, deleted_at=None
            ):
                raise NotFound(f"Variant with id: {variant_id} was not found")
            await ensure_codes_free([{**data, "id": variant_id}])
            regions = await check_prices(data.get("prices") or [])
            options = await product_options(product_id)
            await update_variants(product_id, options, [(None, {**data, "id": variant_id})], regions, Stamps())
    return await get_admin_product(product_id, relations)


async def delete_variant(product_id: str, variant_id: str, relations: tuple[str, ...]) -> PricedProducts:
    """The product's variant soft-deleted; one that is not the product's (or is gone) changes
    nothing, as Medusa's delete is idempotent."""
    async with atomic():
        await locked_product(product_id)
        if fits(ProductVariant, variant_id) and await ProductVariant.exists(
            id=variant_id, product_id=product_id, deleted_at=None
        ):
            await soft_delete_variants([variant_id])
    return await get_admin_product(product_id, relations)
