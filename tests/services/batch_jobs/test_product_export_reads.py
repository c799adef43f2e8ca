"""The product export's own reader (services/batch_jobs/product_export_reads.py) against the
prefetched products it replaced: the same rows and, byte for byte, the same file, over the seeded
catalogue varied with what a real one holds (tags and images, soft-deleted variants, prices,
option values, links and collections, price-list and tiered prices, a product without variants,
cells that must be quoted)."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone

import pytest

from tortoise.expressions import Q
from tortoise.functions import Count

from models import (
    Image, MoneyAmount, PriceList, Product, ProductCollection, ProductOption, ProductOptionValue, ProductTag,
    ProductType, ProductVariant, Region,
)
from services.batch_jobs import product_export
from services.batch_jobs.lifecycle import create_batch_job
from services.batch_jobs.product_export_reads import (
    PRODUCT_COLUMNS, VARIANT_COLUMNS, ProductRows, VariantRows, read_page, read_shape,
)
from services.batch_jobs.product_import.columns import STATIC_COLUMNS, csv_line, from_minor
from services.core.listing import prefetches
from services.files import storage
from tests.conftest import count_queries
from tests.services.batch_jobs.test_product_import import files, run_to_the_end  # noqa: F401 (fixture)

RELATIONS = (
    "variants", "variants.prices", "variants.options", "options", "images", "tags", "type", "collection",
    "sales_channels", "profile",
)


async def prefetched(ids: list[str]) -> list[Product]:
    """The products as the export read them before it had its reader."""
    found = {p.id: p for p in await Product.filter(id__in=ids).prefetch_related(*prefetches(Product, RELATIONS))}
    return [found[i] for i in ids]


KEYS = ("collection_id", "type_id", "profile_id")  # printed through the rows they name


def as_rows(product: Product) -> ProductRows:
    """A prefetched product in the reader's shape (without the keys of its collection, type and
    profile: the prefetch clears a key whose row is soft-deleted)."""
    variants = []
    for v in product.variants.related_objects:
        prices = {}
        for p in v.prices.related_objects:
            if p.price_list_id is None and p.min_quantity is None and p.max_quantity is None:
                prices[(p.currency_code, p.region_id)] = p.amount
        variants.append(VariantRows({a: getattr(v, a) for a in VARIANT_COLUMNS}, prices,
                                    {o.option_id: o.value for o in v.options.related_objects}))
    collection, profile = product.collection, product.profile
    return ProductRows(
        {c: getattr(product, c) for c in PRODUCT_COLUMNS if c not in KEYS},
        {"id": collection.id, "title": collection.title, "handle": collection.handle} if collection else None,
        product.type.value if product.type else None,
        {"id": profile.id, "name": profile.name, "type": profile.type} if profile else None,
        [t.value for t in product.tags.related_objects], [i.url for i in product.images.related_objects],
        [{"id": c.id, "name": c.name, "description": c.description} for c in product.sales_channels.related_objects],
        [{"id": o.id, "title": o.title} for o in product.options.related_objects], variants,
    )


def _text(value) -> str:
    return "" if value is None else ("true" if value else "false") if isinstance(value, bool) else str(value)


def old_lines(product: Product, shape: product_export.Shape) -> list[str]:
    """The export's lines as they were built from the prefetched product."""
    def static(column, variant):
        attribute = column.attribute
        if column.entity is None:
            profile = product.profile
            return _text(profile and (profile.name if column.header.endswith("Name") else profile.type))
        if column.entity == "variant":
            return _text(getattr(variant, attribute)) if variant is not None else ""
        if attribute in ("collection_title", "collection_handle"):
            return _text(product.collection and getattr(product.collection, attribute.split("_")[1]))
        if attribute == "type":
            return _text(product.type and product.type.value)
        if attribute == "tags":
            return ",".join(t.value for t in product.tags.related_objects)
        return _text(getattr(product, attribute))

    options = list(product.options.related_objects)
    images = [i.url for i in product.images.related_objects]
    channels = list(product.sales_channels.related_objects)
    out = []
    for variant in list(product.variants.related_objects) or [None]:
        cells = [static(c, variant) for c in STATIC_COLUMNS]
        prices = {}
        for p in variant.prices.related_objects if variant else ():
            if p.price_list_id is None and p.min_quantity is None and p.max_quantity is None:
                prices[(p.currency_code, p.region_id)] = p.amount
        for currency, region in shape.prices:
            amount = prices.get((currency, region.id if region else None))
            cells.append("" if amount is None else from_minor(amount, currency))
        values = {v.option_id: v.value for v in variant.options.related_objects} if variant else {}
        for i in range(shape.options):
            cells += [options[i].title, values.get(options[i].id, "")] if i < len(options) else ["", ""]
        cells += [images[i] if i < len(images) else "" for i in range(shape.images)]
        for i in range(shape.channels):
            c = channels[i] if i < len(channels) else None
            cells += [c.id, c.name, c.description or ""] if c else ["", "", ""]
        out.append(csv_line(cells))
    return out


async def vary() -> None:
    """What the seed lacks: tags and images (one of each soft-deleted), a second price of the same
    kind added later, price-list, tiered and soft-deleted prices, a soft-deleted variant and option
    value, a product without variants, a deleted collection and type, cells that must be quoted."""
    shirt = await Product.get(id="prod_t_shirt")
    later = datetime.now(timezone.utc) + timedelta(seconds=1)
    await shirt.tags.add(*[await ProductTag.create(value=v) for v in ("cotton", "sum;mer")])
    await shirt.tags.add(await ProductTag.create(value="gone", deleted_at=later))
    await shirt.images.add(*[await Image.create(url=f"https://img.test/shirt-{n}.png") for n in ("front", "back")])
    await shirt.images.add(await Image.create(url="https://img.test/gone.png", deleted_at=later))
    small, medium, large = await ProductVariant.filter(product_id=shirt.id).order_by("variant_rank")
    eu = await Region.get(name="EU")
    sale = await PriceList.create(name="Sale", description="Sale", type="sale")
    await MoneyAmount.create(variant_id=small.id, currency_code="usd", amount=1999)  # later: it wins
    await MoneyAmount.create(variant_id=small.id, currency_code="usd", amount=5, price_list_id=sale.id)
    await MoneyAmount.create(variant_id=small.id, currency_code="usd", amount=7, min_quantity=10)
    await MoneyAmount.create(variant_id=small.id, currency_code="eur", region_id=eu.id, amount=1234)
    await MoneyAmount.create(variant_id=medium.id, currency_code="eur", region_id=eu.id, amount=1, deleted_at=later)
    await ProductVariant.filter(id=large.id).update(deleted_at=later)
    await ProductOptionValue.filter(variant_id=medium.id).update(deleted_at=later)
    await Product.filter(id="prod_mug").update(description='Holds "coffee";\nor tea, hot', subtitle="a, b")
    kind = await ProductType.create(value="Gone")
    gone = await ProductCollection.create(title="Gone", handle="gone", deleted_at=later)
    await Product.create(title="Bare", handle="bare", status="draft", collection_id=gone.id, type_id=kind.id)
    await ProductType.filter(id=kind.id).update(deleted_at=later)


class Quiet:
    """A run that is never stopped, for reading the export's shape outside a job."""

    async def beat(self) -> None:
        pass


async def newest_first() -> list[str]:
    return await Product.filter(deleted_at=None).order_by("-created_at", "-id").values_list("id", flat=True)


async def test_the_reader_finds_what_the_prefetch_found(seeded):
    await vary()
    ids = await newest_first()
    products = await Product.filter(id__in=ids).values(*PRODUCT_COLUMNS)
    by_id = {p["id"]: p for p in products}
    read = await read_page([by_id[i] for i in ids])
    for rows in read:
        rows.product = {c: v for c, v in rows.product.items() if c not in KEYS}
    assert read == [as_rows(p) for p in await prefetched(ids)]
    shirt = next(r for r in read if r.product["id"] == "prod_t_shirt")
    assert shirt.tags == ["cotton", "sum;mer"] and len(shirt.images) == 2 and len(shirt.variants) == 2
    bare = next(r for r in read if r.product["handle"] == "bare")
    assert (bare.variants, bare.collection, bare.type) == ([], None, None)


@pytest.mark.parametrize("page_size", [1000, 3])
async def test_the_export_is_byte_for_byte_the_file_the_prefetched_products_made(
    seeded, files, admin, monkeypatch, page_size,
):
    # Given the varied catalogue, exported in pages of `page_size`
    await vary()
    monkeypatch.setattr(product_export, "PAGE_SIZE", page_size)
    job = await run_to_the_end((await create_batch_job(admin.id, "product-export", {})).id)
    assert job.status == "completed"
    with storage().open_read(job.result["file_key"]) as f:
        data = f.read()
    # I expect the header, then each product's lines as they were built from the prefetch
    header = data.split(b"\r\n", 1)[0].decode()
    shape = await product_export._shape(job.context, Quiet())
    assert header == csv_line(product_export._header(shape))[:-2]
    expected = "".join(line for p in await prefetched(await newest_first()) for line in old_lines(p, shape))
    assert data.decode() == csv_line(product_export._header(shape)) + expected
    # and a spreadsheet reads the quoted cells back as they are
    rows = list(csv.reader(io.StringIO(data.decode(), newline=""), delimiter=";"))
    mug = dict(zip(rows[0], next(r for r in rows if r[1] == "mug")))
    assert (mug["Product Description"], mug["Product Subtitle"]) == ('Holds "coffee";\nor tea, hot', "a, b")


async def test_a_page_costs_the_same_statements_whatever_its_products(seeded):
    await vary()
    ids = await newest_first()
    products = await Product.filter(id__in=ids).values(*PRODUCT_COLUMNS)
    counts = []
    products = [p for p in products if p["handle"] != "bare"]  # variants and a profile in every page
    for n in (1, 3, len(products)):
        async with count_queries() as ran:
            assert len(await read_page(products[:n])) == n
        counts.append(len(ran))
    # one a relation: ten at most (none for a kind of row no product of the page has: types here)
    assert counts == [9, 9, 9]


async def orm_shape(ids: list[str]) -> tuple[tuple[int, int, int], set]:
    """The header's needs as the export read them through the ORM before it had its reader."""
    most = [0, 0, 0]
    for counts in await Product.filter(id__in=ids).annotate(
        o=Count("options", distinct=True, _filter=Q(options__deleted_at=None)),
        i=Count("images", distinct=True, _filter=Q(images__deleted_at=None)),
        c=Count("sales_channels", distinct=True, _filter=Q(sales_channels__deleted_at=None)),
    ).values("o", "i", "c"):
        most = [max(most[0], counts["o"]), max(most[1], counts["i"]), max(most[2], counts["c"])]
    prices = set(await MoneyAmount.filter(
        variant__product_id__in=ids, variant__deleted_at=None, price_list_id=None, min_quantity=None,
        max_quantity=None, deleted_at=None,
    ).distinct().values_list("currency_code", "region_id"))
    return tuple(most), prices


async def test_the_header_needs_what_the_orm_counted(seeded):
    await vary()
    ids = await newest_first()
    await ProductOption.create(product_id="prod_t_shirt", title="Fit")  # the most options: 2
    await ProductOption.create(product_id="prod_t_shirt", title="Gone", deleted_at=datetime.now(timezone.utc))
    for some in (ids, ids[:1], ["prod_t_shirt"], ["prod_none"]):
        assert await read_shape(some) == await orm_shape(some)
    (options, images, channels), prices = await read_shape(ids)
    assert (options, images, channels) == (2, 2, 1) and len(prices) == 3  # usd, eur, and the EU region's
