"""The catalogue's hand-written read (services/catalog/product_reads.py: the rows below a page of
products in one statement) builds what the generic loader's ORM prefetches read, with the same
values on the same owners, on both backends."""

from __future__ import annotations

from models import Product, Region
from services.catalog.pricing import tax_rates_for_products
from services.catalog.product_reads import load_product_rows
from services.core.listing import prefetches
from tests.row_values import all_column_values as _all, column_values as _values

_MANY = ("variants", "options", "images", "tags", "sales_channels", "categories")
_ONE = ("collection", "type", "profile")


async def test_the_rows_below_products_read_by_hand_are_those_the_orm_prefetches(seeded):
    # Given the demo store's products, and a taxed region
    ids = sorted(await Product.filter(deleted_at=None).values_list("id", flat=True))
    region = await Region.filter(name="EU").first()
    # When the rows below them are read by hand, channels, categories and tax overrides asked for
    mine = list(await Product.filter(id__in=ids).order_by("id"))
    rates = await load_product_rows(mine, ("sales_channels", "categories"), tax_region_id=region.id)
    # I expect what the ORM's prefetches read (live rows, each relation in its model's order)
    relations = (*_MANY, *_ONE, "variants.prices", "variants.options", "options.values")
    theirs = list(await Product.filter(id__in=ids).order_by("id").prefetch_related(*prefetches(Product, relations)))
    assert [p.id for p in mine] == [p.id for p in theirs] and len(ids) >= 2
    for product, orm in zip(mine, theirs):
        for relation in _MANY:
            assert _all(getattr(product, relation)) == _all(getattr(orm, relation)), relation
        for relation in _ONE:
            assert _values(getattr(product, relation)) == _values(getattr(orm, relation)), relation
        for variant, orm_variant in zip(product.variants, orm.variants):
            assert _all(variant.prices) == _all(orm_variant.prices) != []
            assert _all(variant.options) == _all(orm_variant.options)
        for option, orm_option in zip(product.options, orm.options):
            assert _all(option.values) == _all(orm_option.values)
    assert sum(len(p.variants) for p in mine) >= 2
    # and the region's tax-rate overrides as the pricing reads them
    assert rates == await tax_rates_for_products(region, ids)
