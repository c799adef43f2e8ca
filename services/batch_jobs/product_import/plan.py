"""Planning one chunk of import lines against the store: which product and variant each line
creates or updates, and every row that must be written for it. Planning only reads, so the
same plan serves the dry run (counted, not written) and the real run.

A line is matched the way a merchant moving a catalogue expects: a product by its id, else by
its handle; a variant by its id, else its SKU, else its option values. An id that is not in
this store is kept for the new row, so an export imported into an empty store keeps its ids.
A line that cannot be applied (a handle or SKU held by another product, an option the product
lacks) is refused alone, with its reason, and the rest of the chunk goes ahead.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from tortoise.expressions import Q

from models import (
    Image, Product, ProductCollection, ProductOption, ProductOptionValue, ProductTag, ProductType,
    ProductVariant, SalesChannel,
)
from models.ids import PREFIXES, new_ids
from services.batch_jobs.product_import.reads import where_in
from services.batch_jobs.product_import.rows import ImportRow
from services.catalog.product_rules import PRODUCT_DEFAULTS, VARIANT_DEFAULTS

__all__ = ["Plan", "plan_chunk", "PRODUCT_FIELDS", "VARIANT_FIELDS"]

PRODUCT_FIELDS = (
    "title", "subtitle", "description", "handle", "status", "thumbnail", "weight", "length", "width", "height",
    "hs_code", "origin_country", "mid_code", "material", "discountable", "external_id",
)
VARIANT_FIELDS = (
    "title", "sku", "barcode", "inventory_quantity", "allow_backorder", "manage_inventory", "weight", "length",
    "width", "height", "hs_code", "origin_country", "mid_code", "material",
)
_ID_BATCH = 256  # ids made at a time for one kind of row (models.ids.new_ids)
# An empty cell leaves these as they are (or at their default for a new row): they cannot be empty.
_KEPT_WHEN_EMPTY = {"title", "status", "discountable", "inventory_quantity", "allow_backorder", "manage_inventory"}


class RowError(Exception):
    """This line cannot be applied; the message says why."""


@dataclass(eq=False)
class _Product:
    id: str
    handle: str
    new: bool
    options: dict[str, str | None] = field(default_factory=dict)  # title -> option id, in order
    combos: dict[tuple, "_Variant"] = field(default_factory=dict)  # option values -> variant
    next_rank: int = 0


@dataclass(eq=False)
class _Variant:
    id: str
    product_id: str
    sku: str | None
    combo: tuple = ()


@dataclass
class Plan:
    """Everything one chunk writes, in the order it must be written."""

    new_refs: dict[str, list[tuple]] = field(default_factory=dict)  # table -> rows (collections, tags ...)
    product_inserts: list[dict] = field(default_factory=list)
    product_updates: list[tuple[str, dict]] = field(default_factory=list)
    option_inserts: list[tuple[str, str, str]] = field(default_factory=list)  # id, product, title
    variant_inserts: list[dict] = field(default_factory=list)
    variant_updates: list[tuple[str, dict]] = field(default_factory=list)
    values_replaced: list[str] = field(default_factory=list)  # variants whose option values are rewritten
    value_inserts: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, option, variant, value
    prices_replaced: dict[tuple, list[str]] = field(default_factory=dict)  # (currency, region) -> variants
    price_inserts: list[tuple[str, str, str, str | None, int]] = field(default_factory=list)  # id, variant, cur, region, amount
    links: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # through table -> product -> ids
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("PRODUCT_CREATE", "PRODUCT_UPDATE", "VARIANT_CREATE", "VARIANT_UPDATE"), 0))
    errors: list[ImportRow] = field(default_factory=list)
    new_products: dict[str, tuple[str, ...]] = field(default_factory=dict)  # handle -> option titles
    dry: bool = False  # counted, never written: rows need no real ids
    _planned: Iterator[int] = field(default_factory=count)
    _ids: dict[str, list[str]] = field(default_factory=dict)  # prefix -> ids made and not yet given, last first

    def new_id(self, prefix: str) -> str:
        if self.dry:
            return f"{prefix}_planned{next(self._planned)}"
        ids = self._ids.get(prefix)
        if not ids:
            ids = self._ids[prefix] = new_ids(prefix, _ID_BATCH)[::-1]
        return ids.pop()


class _Refs:
    """Collections, types, tags, images and sales channels named by the chunk: found, or made
    (once) when a line that uses them is applied."""

    def __init__(self, plan: Plan, found: dict[str, dict[str, str]], channel_ids: set[str]):
        self.plan, self.found, self.channel_ids = plan, found, channel_ids

    def _get(self, table: str, key: str, prefix: str, *extra: Any) -> str:
        known = self.found.setdefault(table, {})
        if key not in known:
            known[key] = self.plan.new_id(prefix)
            self.plan.new_refs.setdefault(table, []).append((known[key], key, *extra))
        return known[key]

    def collection(self, handle: str, title: str | None) -> str:
        return self._get("product_collection", handle, PREFIXES["product_collection"], title or handle)

    def type(self, value: str) -> str:
        return self._get("product_type", value, PREFIXES["product_type"])

    def tag(self, value: str) -> str:
        return self._get("product_tag", value, PREFIXES["product_tag"])

    def image(self, url: str) -> str:
        return self._get("image", url, PREFIXES["image"])

    def check_channel(self, spec: dict[str, str]) -> None:
        if spec.get("id") in self.channel_ids or spec.get("name") or spec.get("id") in self.found.get("sales_channel", {}):
            return
        raise RowError(f"Sales channel {spec.get('id') or spec.get('description')} was not found")

    def channel(self, spec: dict[str, str]) -> str:
        if spec.get("id") in self.channel_ids:
            return spec["id"]
        # Medusa's own exports write the channel's name in the Id column: a name is looked up too.
        name = spec.get("name") or spec["id"]
        return self._get("sales_channel", name, PREFIXES["sales_channel"], spec.get("description"))


class _Index:
    """The products and variants a chunk touches, as stored, then as planned line by line."""

    def __init__(self) -> None:
        self.product_ids: set[str] = set()  # every id taken, live or deleted
        self.by_handle: dict[str, _Product] = {}
        self.live: dict[str, _Product] = {}
        self.variant_ids: set[str] = set()
        self.variants: dict[str, _Variant] = {}
        self.by_sku: dict[str, _Variant] = {}


async def _load(rows: list[ImportRow], carried: dict[str, tuple[str, ...]]) -> _Index:
    index = _Index()
    handles = list({r.handle for r in rows})
    product_ids = list({r.product["id"] for r in rows if r.product.get("id")})
    # One simple query per key (an OR of them can keep PostgreSQL from its indexes).
    found = await _rows(Product, ("id", "handle", "deleted_at"), handle=handles, id=product_ids)
    for p in found.values():
        index.product_ids.add(p["id"])
        if p["deleted_at"] is None:
            index.live[p["id"]] = index.by_handle[p["handle"]] = _Product(p["id"], p["handle"], new=False)
    for handle in handles:  # planned by an earlier chunk of a dry run
        if handle in carried and handle not in index.by_handle:
            index.by_handle[handle] = _Product(f"planned:{handle}", handle, True, dict.fromkeys(carried[handle]))
    live_ids = list(index.live)
    for option_id, product_id, title in await where_in(
        ProductOption, "product_id", live_ids, ("id", "product_id", "title"), order=("created_at", "id")
    ):
        index.live[product_id].options[title] = option_id
    variant_ids = list({r.variant["id"] for r in rows if r.variant.get("id")})
    skus = list({r.variant["sku"] for r in rows if r.variant.get("sku")})
    found = await _rows(
        ProductVariant, ("id", "product_id", "sku", "deleted_at", "variant_rank"),
        product_id=live_ids, sku=skus, id=variant_ids,
    )
    for v in found.values():
        index.variant_ids.add(v["id"])
        if v["deleted_at"] is not None:
            continue
        variant = index.variants[v["id"]] = _Variant(v["id"], v["product_id"], v["sku"])
        if v["sku"]:
            index.by_sku[v["sku"]] = variant
        owner = index.live.get(v["product_id"])
        if owner is not None:
            owner.next_rank = max(owner.next_rank, v["variant_rank"] + 1)
    await _load_combos(index)
    return index


async def _rows(model, columns: tuple[str, ...], **keys: list[str]) -> dict[str, dict]:
    """Rows (by id) whose column is in the given list, for each column; live ones, except by id
    (an id stays taken after a soft delete)."""
    out: dict[str, dict] = {}
    for column, values in keys.items():
        for row in await where_in(model, column, values, columns, live=column != "id"):
            out[row[0]] = dict(zip(columns, row))
    return out


async def _load_combos(index: _Index) -> None:
    mine = [v.id for v in index.variants.values() if v.product_id in index.live]
    values: dict[str, dict[str, str]] = {}
    for variant_id, option_id, value in await where_in(
        ProductOptionValue, "variant_id", mine, ("variant_id", "option_id", "value")
    ):
        values.setdefault(variant_id, {})[option_id] = value
    for variant_id in mine:
        variant = index.variants[variant_id]
        product = index.live[variant.product_id]
        variant.combo = tuple(values.get(variant_id, {}).get(o) for o in product.options.values())
        if variant.combo and None not in variant.combo:
            product.combos[variant.combo] = variant


async def _load_refs(plan: Plan, rows: list[ImportRow]) -> _Refs:
    defining = [r for r in rows if r.defines_product]
    wanted = {
        "product_collection": {r.product.get("collection_handle") for r in defining},
        "product_type": {r.product.get("type") for r in defining},
        "product_tag": {t for r in defining for t in r.product.get("tags") or ()},
        "image": {u for r in defining for u in r.images or ()},
    }
    found: dict[str, dict[str, str]] = {}
    for (table, keys), (model, column) in zip(wanted.items(), (
        (ProductCollection, "handle"), (ProductType, "value"), (ProductTag, "value"), (Image, "url"),
    )):
        keys.discard(None)
        found[table] = {}
        for key, id_ in await where_in(model, column, keys, (column, "id"), order=("created_at", "id")):
            found[table].setdefault(key, id_)
    specs = [c for r in defining for c in r.channels or ()]
    names = list({s.get("name") or s.get("id") for s in specs} - {None})
    ids = list({s["id"] for s in specs if s.get("id")})
    channel_ids, found["sales_channel"] = set(), {}
    if specs:
        for c in await SalesChannel.filter(Q(id__in=ids) | Q(name__in=names), deleted_at=None).order_by(
            "created_at"
        ).values("id", "name"):
            channel_ids.add(c["id"])
            found["sales_channel"].setdefault(c["name"], c["id"])
    return _Refs(plan, found, channel_ids)


async def plan_chunk(
    rows: list[ImportRow], defaults: dict[str, Any], carried: dict[str, tuple[str, ...]] | None = None
) -> Plan:
    """The plan of `rows` (lines without parse errors). `defaults`: profile_id and the channel
    new products go into when their line names none. A dry run passes `carried`, the products it
    planned in earlier chunks (handle -> option titles), and its plan is never written."""
    plan = Plan(dry=carried is not None)
    index = await _load(rows, carried or {})
    refs = await _load_refs(plan, rows)
    for row in rows:
        try:
            product, product_changes = _product(row, index, refs)
            variant = _variant(row, product, index) if row.has_variant else None
        except RowError as e:
            row.errors.append(str(e))
            plan.errors.append(row)
            continue
        if product_changes is not None:
            _commit_product(plan, index, refs, row, product, product_changes, defaults)
        if variant is not None:
            _commit_variant(plan, index, row, product, *variant)
    return plan


def _product(row: ImportRow, index: _Index, refs: _Refs) -> tuple[_Product, dict | None]:
    handle = row.handle
    if not row.defines_product:
        product = index.by_handle.get(handle)
        if product is None:
            raise RowError(f"Product {handle} was not imported: its first line was refused")
        return product, None
    given_id = row.product.get("id")
    product = index.live.get(given_id) if given_id else None
    product = product or index.by_handle.get(handle)
    if product is not None and product.handle != handle and handle in index.by_handle:
        raise RowError(f"Product handle {handle} is used by another product")
    for spec in row.channels or ():
        refs.check_channel(spec)
    changes = {k: v for k, v in row.product.items() if k in PRODUCT_FIELDS and not (v is None and k in _KEPT_WHEN_EMPTY)}
    if product is None:
        if changes.get("title") is None:
            raise RowError("Product Title is required to create a product")
        new_id_ = given_id if given_id and given_id not in index.product_ids else refs.plan.new_id(PREFIXES["product"])
        product = _Product(new_id_, handle, True, dict.fromkeys(row.option_names))
    else:
        missing = [t for t in row.option_names if t not in product.options]
        if missing:
            raise RowError(f'Product {handle} has no option "{missing[0]}"')
    return product, changes


def _variant(row: ImportRow, product: _Product, index: _Index) -> tuple[_Variant | None, dict, tuple]:
    unknown = [t for t in row.option_values if t not in product.options]
    if unknown:
        raise RowError(f'Product {product.handle} has no option "{unknown[0]}"')
    combo = tuple(row.option_values.get(t) for t in product.options)
    given_id, sku = row.variant.get("id"), row.variant.get("sku")
    variant = index.variants.get(given_id) if given_id else None
    if variant is not None and variant.product_id != product.id:
        raise RowError(f"Variant {given_id} belongs to another product")
    if variant is None and sku in index.by_sku:
        variant = index.by_sku[sku]
        if variant.product_id != product.id:
            raise RowError(f"Variant SKU {sku} is already used by another product")
    if variant is None and combo and None not in combo:
        variant = product.combos.get(combo)
    if sku and sku in index.by_sku and index.by_sku[sku] is not variant:
        raise RowError(f"Variant SKU {sku} is already used by another variant")
    if row.option_values or variant is None:
        missing = [t for t, v in zip(product.options, combo) if v is None]
        if missing:
            raise RowError(f'Variant has no value for option "{missing[0]}"')
        holder = product.combos.get(combo) if combo else None
        if holder is not None and holder is not variant:
            raise RowError(f"A variant of {product.handle} with options {' / '.join(combo)} already exists")
    changes = {k: v for k, v in row.variant.items() if k in VARIANT_FIELDS and not (v is None and k in _KEPT_WHEN_EMPTY)}
    return variant, changes, combo


def _commit_product(plan, index, refs, row, product: _Product, changes: dict, defaults: dict) -> None:
    # An empty cell clears a single value (collection, type); an empty list (tags, images,
    # channels) leaves the product's list as it is.
    if "collection_handle" in row.product:
        handle = row.product["collection_handle"]
        changes["collection_id"] = refs.collection(handle, row.product.get("collection_title")) if handle else None
    if "type" in row.product:
        changes["type_id"] = refs.type(row.product["type"]) if row.product["type"] else None
    links = {}
    if row.product.get("tags"):
        links["product_tags"] = [refs.tag(t) for t in row.product["tags"]]
    if row.images:
        links["product_images"] = list(dict.fromkeys(refs.image(u) for u in row.images))
    if row.channels:
        links["product_sales_channel"] = list(dict.fromkeys(refs.channel(c) for c in row.channels))
    if product.new:
        if "thumbnail" not in row.product and row.images:  # no thumbnail column: the first image
            changes["thumbnail"] = row.images[0]
        if row.channels is None and defaults.get("channel_id"):  # a file silent on channels: the store's own
            links["product_sales_channel"] = [defaults["channel_id"]]
        plan.product_inserts.append({
            **PRODUCT_DEFAULTS, "id": product.id, "profile_id": defaults["profile_id"], **changes,
        })
        for title in product.options:
            product.options[title] = plan.new_id(PREFIXES["product_option"])
            plan.option_inserts.append((product.options[title], product.id, title))
        index.product_ids.add(product.id)
        index.live[product.id] = index.by_handle[product.handle] = product
        plan.new_products[product.handle] = tuple(product.options)
        plan.counts["PRODUCT_CREATE"] += 1
    else:
        if product.handle != row.handle:
            index.by_handle.pop(product.handle, None)
            product.handle = row.handle
            index.by_handle[row.handle] = product
        plan.product_updates.append((product.id, changes))
        plan.counts["PRODUCT_UPDATE"] += 1
    for table, ids in links.items():
        plan.links.setdefault(table, {})[product.id] = ids


def _commit_variant(plan, index, row, product: _Product, variant: _Variant | None, changes: dict, combo: tuple) -> None:
    new = variant is None
    if new:
        given_id = row.variant.get("id")
        variant_id = given_id if given_id and given_id not in index.variant_ids else plan.new_id(PREFIXES["product_variant"])
        variant = _Variant(variant_id, product.id, None)
        changes.setdefault("title", " / ".join(combo) if combo else product.handle)
        plan.variant_inserts.append({
            **VARIANT_DEFAULTS, "id": variant_id, "product_id": product.id, "variant_rank": product.next_rank,
            **changes,
        })
        product.next_rank += 1
        index.variant_ids.add(variant_id)
        index.variants[variant_id] = variant
        plan.counts["VARIANT_CREATE"] += 1
    else:
        plan.variant_updates.append((variant.id, changes))
        plan.counts["VARIANT_UPDATE"] += 1
    if "sku" in changes and changes["sku"] != variant.sku:
        index.by_sku.pop(variant.sku, None)
        variant.sku = changes["sku"]
        if variant.sku:
            index.by_sku[variant.sku] = variant
    if new or row.option_values:
        if variant.combo and product.combos.get(variant.combo) is variant:
            del product.combos[variant.combo]
        variant.combo = combo
        if combo:
            product.combos[combo] = variant
            if not new:
                plan.values_replaced.append(variant.id)
            plan.value_inserts.extend(
                (plan.new_id(PREFIXES["product_option_value"]), option_id, variant.id, value)
                for option_id, value in zip(product.options.values(), combo)
            )
    # An empty price cell leaves that price as it is; a given one replaces it.
    for (currency, region_id), amount in row.prices.items():
        if amount is None:
            continue
        if not new:
            plan.prices_replaced.setdefault((currency, region_id), []).append(variant.id)
        plan.price_inserts.append((plan.new_id(PREFIXES["money_amount"]), variant.id, currency, region_id, amount))
