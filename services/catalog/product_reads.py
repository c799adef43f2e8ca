"""The rows below a page of products, as a storefront asks for them by default (variants with
their prices and option values, options with their values, images and tags, the one-row
collection, type and shipping profile, and the region's tax-rate overrides of each product), in
one statement whatever the page size (services/core/union_rows.py). The generic loader
(services/core/listing.py) reads one statement per relation instead. The one-row relations come
as rows of the union rather than as a join of the page query: the ORM's joined read cost the
page three times the CPU of the plain one (0.9 against 0.3 ms for the back office's page).

What it builds is what the generic loader builds: live rows only, each relation in its model's
RELATION_ORDER (else creation order), set on the instances as the ORM's prefetch sets them, so
the products serialize the same way (a test compares the two answers)."""

from __future__ import annotations

from typing import Any

from models import (
    Image, MoneyAmount, Product, ProductCategory, ProductCollection, ProductOption, ProductOptionValue, ProductTag,
    ProductType, ProductVariant, SalesChannel, ShippingProfile, TaxRate,
)
from services.core.union_rows import Kind, UnionRows, live

__all__ = ["ROW_RELATIONS", "load_product_rows"]

# The relations this loader reads.
ROW_RELATIONS = frozenset({
    "variants", "variants.prices", "variants.options", "options", "options.values", "images", "tags",
    "sales_channels", "categories", "collection", "type", "profiles",
})


def _one_row(name: str, model, column: str) -> Kind:
    """The product's row of `model` named by its `column`, a live one only (as the product's
    soft-deleted collection, type or profile is not shown)."""
    return Kind(name, model, '"p"."id"', f'FROM "{model._meta.db_table}" "t" JOIN "product" "p" '
                f'ON "p"."{column}" = "t"."id" WHERE "p"."id" IN ({{ids}})' + live(model, "t"))


# Read for every product, as the page query joined them for every product; each is set where
# the ORM's joined read sets it, `_<kind name>`.
_ONE_ROW = (
    _one_row("collection", ProductCollection, "collection_id"),
    _one_row("type", ProductType, "type_id"),
    _one_row("profile", ShippingProfile, "profile_id"),
)


_KINDS = _ONE_ROW + (
    Kind("variant", ProductVariant, '"t"."product_id"',
         'FROM "product_variant" "t" WHERE "t"."product_id" IN ({ids})' + live(ProductVariant, "t")),
    Kind("price", MoneyAmount, '"t"."variant_id"',
         'FROM "money_amount" "t" JOIN "product_variant" "v" ON "v"."id" = "t"."variant_id" '
         'WHERE "v"."product_id" IN ({ids})' + live(ProductVariant, "v") + live(MoneyAmount, "t")),
    Kind("variant_value", ProductOptionValue, '"t"."variant_id"',
         'FROM "product_option_value" "t" JOIN "product_variant" "v" ON "v"."id" = "t"."variant_id" '
         'WHERE "v"."product_id" IN ({ids})' + live(ProductVariant, "v") + live(ProductOptionValue, "t")),
    Kind("option", ProductOption, '"t"."product_id"',
         'FROM "product_option" "t" WHERE "t"."product_id" IN ({ids})' + live(ProductOption, "t")),
    Kind("option_value", ProductOptionValue, '"t"."option_id"',
         'FROM "product_option_value" "t" JOIN "product_option" "o" ON "o"."id" = "t"."option_id" '
         'WHERE "o"."product_id" IN ({ids})' + live(ProductOption, "o") + live(ProductOptionValue, "t")),
    Kind("image", Image, '"j"."product_id"',
         'FROM "image" "t" JOIN "product_images" "j" ON "j"."image_id" = "t"."id" '
         'WHERE "j"."product_id" IN ({ids})' + live(Image, "t")),
    Kind("tag", ProductTag, '"j"."product_id"',
         'FROM "product_tag" "t" JOIN "product_tags" "j" ON "j"."product_tag_id" = "t"."id" '
         'WHERE "j"."product_id" IN ({ids})' + live(ProductTag, "t")),
)
# Read only when asked for: a product's sales channels and categories (the back office shows
# them), and the region's tax-rate overrides (its region mark comes before its ids).
_CHANNEL = Kind("sales_channel", SalesChannel, '"j"."product_id"',
                'FROM "sales_channel" "t" JOIN "product_sales_channel" "j" ON "j"."sales_channel_id" = "t"."id" '
                'WHERE "j"."product_id" IN ({ids})' + live(SalesChannel, "t"))
_CATEGORY = Kind("category", ProductCategory, '"j"."product_id"',
                 'FROM "product_category" "t" JOIN "product_category_product" "j" '
                 'ON "j"."product_category_id" = "t"."id" WHERE "j"."product_id" IN ({ids})'
                 + live(ProductCategory, "t"))
_TAX = Kind("tax_rate", TaxRate, '"j"."product_id"',
            'FROM "tax_rate" "t" JOIN "product_tax_rate" "j" ON "j"."rate_id" = "t"."id" '
            'WHERE "t"."region_id" = {region} AND "j"."product_id" IN ({ids})')
_ALL = (*_KINDS, _CHANNEL, _CATEGORY, _TAX)

_ROWS = UnionRows(_ALL)


async def load_product_rows(
    products: list[Product], relations: tuple[str, ...] = (), *, tax_region_id: str | None = None,
) -> dict[str, list[dict]]:
    """Set each product's variants (with prices and option values), options (with values),
    images, tags, collection, type and profile, and its sales channels and categories when
    `relations` names them; with `tax_region_id`, answer the region's tax-rate overrides by
    product id (as services.catalog.pricing.tax_rates_for_products answers them)."""
    if not products:
        return {}
    kinds = _KINDS + tuple(kind for kind, relation in ((_CHANNEL, "sales_channels"), (_CATEGORY, "categories"))
                           if relation in relations) + ((_TAX,) if tax_region_id else ())
    found = await _ROWS.read(Product, [p.id for p in products], kinds, region=tax_region_id)

    def attach(owner: Any, relation: str, kind: str) -> list:
        children = found[kind].get(owner.id, [])
        getattr(owner, relation)._set_result_for_query(children)
        return children

    for product in products:
        for kind in _ONE_ROW:
            rows = found[kind.name].get(product.id)
            object.__setattr__(product, f"_{kind.name}", rows[0] if rows else None)
        for variant in attach(product, "variants", "variant"):
            attach(variant, "prices", "price")
            attach(variant, "options", "variant_value")
        for option in attach(product, "options", "option"):
            attach(option, "values", "option_value")
        attach(product, "images", "image")
        attach(product, "tags", "tag")
        for kind, relation in ((_CHANNEL, "sales_channels"), (_CATEGORY, "categories")):
            if kind in kinds:
                attach(product, relation, kind.name)
    return {
        product_id: [{"rate": r.rate, "name": r.name, "code": r.code} for r in rates]
        for product_id, rates in found["tax_rate"].items()
    }
