"""The rows below a page of products, as a storefront asks for them by default (variants with
their prices and option values, options with their values, images and tags, and the region's
tax-rate overrides of each product), in one statement whatever the page size: a UNION ALL with
one branch per kind of row, each branch filling its own columns and leaving the others NULL.
The generic loader (services/core/listing.py) reads one statement per relation instead.

What it builds is what the generic loader builds: live rows only, each relation in its model's
RELATION_ORDER (else creation order), set on the instances as the ORM's prefetch sets them, so
the products serialize the same way (a test compares the two answers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tortoise.models import Model

from models import (
    Image, MoneyAmount, Product, ProductCategory, ProductOption, ProductOptionValue, ProductTag, ProductVariant,
    SalesChannel, TaxRate,
)
from services.core.rows import RowBuilder, placeholders

__all__ = ["ROW_RELATIONS", "load_product_rows"]

# The relations this loader reads (the storefront's defaults but the one-row ones, which the
# page query joins).
ROW_RELATIONS = frozenset({
    "variants", "variants.prices", "variants.options", "options", "options.values", "images", "tags",
    "sales_channels", "categories",
})


@dataclass(frozen=True)
class _Kind:
    name: str
    model: type[Model]
    parent: str  # the column naming the row's parent (product, variant or option)
    joins: str  # FROM … WHERE …, with {ids} for the products' marks; the kind's table is "t"


def _live(model: type[Model], alias: str) -> str:
    return f' AND "{alias}"."deleted_at" IS NULL' if "deleted_at" in model._meta.fields_map else ""


_KINDS = (
    _Kind("variant", ProductVariant, '"t"."product_id"',
          'FROM "product_variant" "t" WHERE "t"."product_id" IN ({ids})' + _live(ProductVariant, "t")),
    _Kind("price", MoneyAmount, '"t"."variant_id"',
          'FROM "money_amount" "t" JOIN "product_variant" "v" ON "v"."id" = "t"."variant_id" '
          'WHERE "v"."product_id" IN ({ids})' + _live(ProductVariant, "v") + _live(MoneyAmount, "t")),
    _Kind("variant_value", ProductOptionValue, '"t"."variant_id"',
          'FROM "product_option_value" "t" JOIN "product_variant" "v" ON "v"."id" = "t"."variant_id" '
          'WHERE "v"."product_id" IN ({ids})' + _live(ProductVariant, "v") + _live(ProductOptionValue, "t")),
    _Kind("option", ProductOption, '"t"."product_id"',
          'FROM "product_option" "t" WHERE "t"."product_id" IN ({ids})' + _live(ProductOption, "t")),
    _Kind("option_value", ProductOptionValue, '"t"."option_id"',
          'FROM "product_option_value" "t" JOIN "product_option" "o" ON "o"."id" = "t"."option_id" '
          'WHERE "o"."product_id" IN ({ids})' + _live(ProductOption, "o") + _live(ProductOptionValue, "t")),
    _Kind("image", Image, '"j"."product_id"',
          'FROM "image" "t" JOIN "product_images" "j" ON "j"."image_id" = "t"."id" '
          'WHERE "j"."product_id" IN ({ids})' + _live(Image, "t")),
    _Kind("tag", ProductTag, '"j"."product_id"',
          'FROM "product_tag" "t" JOIN "product_tags" "j" ON "j"."product_tag_id" = "t"."id" '
          'WHERE "j"."product_id" IN ({ids})' + _live(ProductTag, "t")),
)
# Read only when asked for: a product's sales channels and categories (the back office shows
# them), and the region's tax-rate overrides (the last branch: its region mark follows the ids').
_CHANNEL = _Kind("sales_channel", SalesChannel, '"j"."product_id"',
                 'FROM "sales_channel" "t" JOIN "product_sales_channel" "j" ON "j"."sales_channel_id" = "t"."id" '
                 'WHERE "j"."product_id" IN ({ids})' + _live(SalesChannel, "t"))
_CATEGORY = _Kind("category", ProductCategory, '"j"."product_id"',
                  'FROM "product_category" "t" JOIN "product_category_product" "j" '
                  'ON "j"."product_category_id" = "t"."id" WHERE "j"."product_id" IN ({ids})'
                  + _live(ProductCategory, "t"))
_TAX = _Kind("tax_rate", TaxRate, '"j"."product_id"',
             'FROM "tax_rate" "t" JOIN "product_tax_rate" "j" ON "j"."rate_id" = "t"."id" '
             'WHERE "t"."region_id" = {region} AND "j"."product_id" IN ({ids})')
_ALL = (*_KINDS, _CHANNEL, _CATEGORY, _TAX)

_STATEMENTS: dict[tuple, str] = {}
_BUILDERS: dict[str, dict[str, RowBuilder]] = {}


def _sql_type(model: type[Model], column: str) -> str:
    meta = model._meta
    return meta.fields_map[meta.fields_db_projection_reverse[column]].get_for_dialect("postgres", "SQL_TYPE")


def _slot(kind: _Kind, column: str) -> str:
    """The result column a kind's column goes to: kinds share a column of the same name and
    type (`id`, `created_at`, `metadata`…), which keeps the union's rows narrow."""
    first = next(k for k in _ALL if column in k.model._meta.db_fields)
    same = _sql_type(first.model, column) == _sql_type(kind.model, column)
    return column if same else f"{kind.name}.{column}"


def _builders(dialect: str) -> dict[str, RowBuilder]:
    """One builder per kind, made once the ORM knows its database (how a column converts
    depends on the driver)."""
    found = _BUILDERS.get(dialect)
    if found is None:
        found = _BUILDERS[dialect] = {
            kind.name: RowBuilder(kind.model, lambda c, k=kind: _slot(k, c)) for kind in _ALL
        }
    return found


def _statement(dialect: str, count: int, kinds: tuple[_Kind, ...]) -> str:
    """The UNION ALL for `count` products (PostgreSQL numbers its marks, so every branch reuses
    the ids' marks and the region's comes after them; SQLite's follow the text). A branch
    leaves the columns of other kinds NULL: typed on PostgreSQL, which settles a union's column
    types branch by branch (an untyped NULL would make the column text)."""
    key = (dialect, count, tuple(kind.name for kind in kinds))
    sql = _STATEMENTS.get(key)
    if sql is not None:
        return sql
    slots: dict[str, str] = {}  # result column -> its type
    for kind in kinds:
        for column in sorted(kind.model._meta.db_fields):
            slots.setdefault(_slot(kind, column), _sql_type(kind.model, column))
    ids = ",".join(placeholders(dialect, 1, count))
    region = placeholders(dialect, count + 1, 1)[0]
    branches = []
    for kind in kinds:
        number = _ALL.index(kind)
        mine = {_slot(kind, c): c for c in kind.model._meta.db_fields}
        columns = ", ".join(
            (f'"t"."{mine[slot]}"' if slot in mine else "NULL" if dialect == "sqlite" else f"CAST(NULL AS {sql_type})")
            + f' AS "{slot}"' for slot, sql_type in slots.items()
        )
        branches.append(f'SELECT {number} AS "kind", {kind.parent} AS "parent", {columns} '
                        + kind.joins.format(ids=ids, region=region))
    sql = _STATEMENTS[key] = " UNION ALL ".join(branches)
    return sql


def _params(dialect: str, product_ids: list[str], kinds: tuple[_Kind, ...], tax_region_id: str | None) -> list:
    if dialect != "sqlite":
        return product_ids + ([tax_region_id] if tax_region_id else [])
    params = []
    for kind in kinds:
        params += ([tax_region_id] if kind is _TAX else []) + product_ids
    return params


def _order(model: type[Model]):
    names = getattr(model, "RELATION_ORDER", None) or ("created_at", "id")
    return lambda obj: tuple((getattr(obj, n) is None, getattr(obj, n)) for n in names)


async def load_product_rows(
    products: list[Product], relations: tuple[str, ...] = (), *, tax_region_id: str | None = None,
) -> dict[str, list[dict]]:
    """Set each product's variants (with prices and option values), options (with values),
    images and tags, and its sales channels and categories when `relations` names them; with
    `tax_region_id`, answer the region's tax-rate overrides by product id (as
    services.catalog.pricing.tax_rates_for_products answers them)."""
    if not products:
        return {}
    db = Product._meta.db
    dialect = db.capabilities.dialect
    ids = [p.id for p in products]
    kinds = _KINDS + tuple(kind for kind, relation in ((_CHANNEL, "sales_channels"), (_CATEGORY, "categories"))
                           if relation in relations) + ((_TAX,) if tax_region_id else ())
    _, rows = await db.execute_query(_statement(dialect, len(ids), kinds),
                                     _params(dialect, ids, kinds, tax_region_id))
    builders = _builders(dialect)
    found: dict[str, dict[str, list]] = {kind.name: {} for kind in _ALL}
    for row in rows:
        name = _ALL[row["kind"]].name
        found[name].setdefault(row["parent"], []).append(builders[name].build(row))
    for kind in kinds:
        order = _order(kind.model)
        for children in found[kind.name].values():
            children.sort(key=order)

    def attach(owner: Any, relation: str, kind: str) -> list:
        children = found[kind].get(owner.id, [])
        getattr(owner, relation)._set_result_for_query(children)
        return children

    for product in products:
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
