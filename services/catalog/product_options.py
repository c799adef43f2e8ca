"""A product's options: add (every variant gets the value
"Default Value"), rename, delete (refused while the variants differ in it, since deleting it
would leave two variants alike).

Unlike Medusa v1, renaming an option to the title of another option of the product is a 422
duplicate (Medusa: a 404), and an option is looked up among the product's own.
"""

from __future__ import annotations

from datetime import datetime, timezone

from models import ProductOption, ProductOptionValue, ProductVariant
from services.catalog.product_variants import Stamps, locked_product, product_options
from services.catalog.products import PricedProducts, get_admin_product
from services.core.db import atomic
from services.core.errors import Duplicate, NotAllowed, NotFound

__all__ = ["add_option", "update_option", "delete_option", "DEFAULT_VALUE"]

DEFAULT_VALUE = "Default Value"


async def add_option(product_id: str, title: str, relations: tuple[str, ...]) -> PricedProducts:
    async with atomic():
        await locked_product(product_id)
        if any(o.title == title for o in await product_options(product_id)):
            raise Duplicate(f"An option with the title: {title} already exists")
        stamps = Stamps()
        option = await ProductOption.create(product_id=product_id, title=title, created_at=stamps())
        variant_ids = await ProductVariant.filter(product_id=product_id, deleted_at=None).values_list("id", flat=True)
        if variant_ids:
            await ProductOptionValue.bulk_create([
                ProductOptionValue(option_id=option.id, variant_id=v, value=DEFAULT_VALUE, created_at=stamps())
                for v in variant_ids
            ])
    return await get_admin_product(product_id, relations)


async def update_option(product_id: str, option_id: str, title: str, relations: tuple[str, ...]) -> PricedProducts:
    async with atomic():
        await locked_product(product_id)
        options = await product_options(product_id)
        option = next((o for o in options if o.id == option_id), None)
        if option is None:
            raise NotFound(f"Option with id: {option_id} does not exist")
        if any(o.id != option_id and o.title.lower() == title.lower() for o in options):
            raise Duplicate(f"An option with title {title} already exists")
        option.title = title
        await option.save(update_fields=["title", "updated_at"])
    return await get_admin_product(product_id, relations)


async def delete_option(product_id: str, option_id: str, relations: tuple[str, ...]) -> PricedProducts:
    """The option and its values soft-deleted; an option that is not the product's changes
    nothing."""
    async with atomic():
        await locked_product(product_id)
        if option_id in {o.id for o in await product_options(product_id)}:
            live = ProductVariant.filter(product_id=product_id, deleted_at=None).values_list("id", flat=True)
            values = await ProductOptionValue.filter(
                option_id=option_id, variant_id__in=await live, deleted_at=None
            ).values_list("value", flat=True)
            if len(set(values)) > 1:
                raise NotAllowed(
                    "To delete an option, first delete all variants, such that when an option is deleted, "
                    "no duplicate variants will exist."
                )
            now = datetime.now(timezone.utc)
            await ProductOption.filter(id=option_id).update(deleted_at=now, updated_at=now)
            await ProductOptionValue.filter(option_id=option_id, deleted_at=None).update(deleted_at=now, updated_at=now)
    return await get_admin_product(product_id, relations)
