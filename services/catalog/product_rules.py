"""The rules every way of writing a product follows (the admin's product writes and the CSV
import): what a new product or variant is by default, the handle made from a title, the shipping
profile a product ships under, and the codes that must be unique among live variants."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

from tortoise.exceptions import IntegrityError

from models import Product, ProductVariant, ShippingProfile
from services.core.errors import Duplicate
from services.core.handles import kebab_case
from services.core.ids import fitting

__all__ = [
    "PRODUCT_DEFAULTS", "VARIANT_DEFAULTS", "VARIANT_CODES", "handle_from_title", "shipping_profile_id",
    "ensure_handle_free", "ensure_codes_free", "duplicate_code", "clashes_refused",
]

PRODUCT_DEFAULTS = {"status": "draft", "discountable": True, "is_giftcard": False}
VARIANT_DEFAULTS = {"inventory_quantity": 0, "allow_backorder": False, "manage_inventory": True}
# Each unique among live variants, as in Medusa v1; here each has a live-unique index too.
VARIANT_CODES = ("sku", "barcode", "ean", "upc")
MAX_HANDLE = 255  # the column's length


def handle_from_title(title: str) -> str | None:
    """Medusa's handle for a product given none: lodash's kebabCase of the title."""
    return kebab_case(title)[:MAX_HANDLE].rstrip("-") or None


async def shipping_profile_id(is_giftcard: bool) -> str | None:
    """The store's gift-card profile for a gift card, its default profile for anything else."""
    kind = "gift_card" if is_giftcard else "default"
    ids = await ShippingProfile.filter(type=kind, deleted_at=None).order_by("created_at").limit(1).values_list(
        "id", flat=True
    )
    return ids[0] if ids else None


async def ensure_handle_free(handle: str | None, product_id: str | None = None) -> None:
    """A handle belongs to one live product (a deleted one frees it): Medusa's 422 otherwise."""
    if handle and await Product.filter(handle=handle, deleted_at=None).exclude(id=product_id or "").exists():
        raise Duplicate(f"Product with handle {handle} already exists.")


def duplicate_code(column: str, value: str) -> Duplicate:
    return Duplicate(f"Product_variant with {column} {value} already exists.")


async def ensure_codes_free(variants: list[dict]) -> None:
    """The SKU, barcode, EAN and UPC given in `variants` (dicts of the columns given, with `id`
    for a variant being updated) are each held by no two of them and by no other live variant,
    unless that one gives it up in the same request. One query per kind of code given."""
    for column in VARIANT_CODES:
        holder: dict[str, str | None] = {}  # code -> the variant that will hold it (None: a new one)
        for v in variants:
            value = v.get(column)
            if value:
                if value in holder:
                    raise duplicate_code(column, value)
                holder[value] = v.get("id")
        if not holder:
            continue
        changing = {v["id"]: v[column] for v in variants if v.get("id") and column in v}
        held = await ProductVariant.filter(
            **{f"{column}__in": fitting(ProductVariant, holder, column)}, deleted_at=None
        ).values_list("id", column)
        for variant_id, value in held:
            if variant_id != holder[value] and changing.get(variant_id, value) == value:
                raise duplicate_code(column, value)


@asynccontextmanager
async def clashes_refused(handle: str | None = None, variants: Iterable[dict] = ()) -> AsyncIterator[None]:
    """Around a write's transaction: a handle or a variant code taken by a concurrent request
    between the checks above and the insert breaks a unique index; it is answered as the checks
    answer it (`variants`: the variant columns written, for the code PostgreSQL does not name)."""
    try:
        yield
    except IntegrityError as e:
        text = str(e)
        if "product_handle_live" in text or "product.handle" in text:
            raise Duplicate(f"Product with handle {handle} already exists.") from None
        for column in VARIANT_CODES:
            if f"product_variant_{column}_live" in text or f"product_variant.{column}" in text:
                found = re.search(rf"\({column}\)=\((.*)\)", text)
                given = ", ".join(v[column] for v in variants if v.get(column))
                raise duplicate_code(column, found.group(1) if found else given) from None
        raise
