"""The import's look-ups (services/batch_jobs/product_import/reads.py) against the ORM's queries
they replaced, on the seeded store with soft-deleted rows, keys held twice and keys no row has."""

from datetime import datetime, timezone

import pytest

from models import (
    Image, Product, ProductCollection, ProductOption, ProductOptionValue, ProductTag, ProductVariant,
)
from services.batch_jobs.product_import.reads import where_in
from tests.conftest import count_queries


async def varied() -> None:
    now = datetime.now(timezone.utc)
    await ProductVariant.filter(sku="T-SHIRT-L").update(deleted_at=now)
    await Product.filter(handle="mug").update(deleted_at=now)
    await ProductOption.filter(product_id="prod_cap").update(deleted_at=now)
    await ProductOptionValue.filter(variant_id="variant_t_shirt_m").update(deleted_at=now)
    for value, gone in (("cotton", None), ("cotton", None), ("wool", now), ("wool", None)):
        await ProductTag.create(value=value, deleted_at=gone)
    await ProductCollection.create(title="Old summer", handle="summer", deleted_at=now)
    await Image.create(url="https://img.test/a.png")


async def orm(model, column, values, columns, live=True, order=()) -> list[tuple]:
    qs = model.filter(**{f"{column}__in": list(values)}, **({"deleted_at": None} if live else {}))
    return [tuple(r) for r in await (qs.order_by(*order) if order else qs).values_list(*columns)] if values else []


CASES = [
    (Product, "handle", ["t-shirt", "mug", "cap", "no-such"], ("id", "handle", "deleted_at"), True, ()),
    (Product, "id", ["prod_t_shirt", "prod_mug", "prod_none"], ("id", "handle", "deleted_at"), False, ()),
    (ProductVariant, "sku", ["T-SHIRT-S", "T-SHIRT-L", "MUG-WHITE", "NONE"],
     ("id", "product_id", "sku", "deleted_at", "variant_rank"), True, ()),
    (ProductVariant, "product_id", ["prod_t_shirt", "prod_cap"], ("id", "product_id", "sku", "deleted_at", "variant_rank"),
     True, ()),
    (ProductVariant, "id", ["variant_t_shirt_l", "variant_cap_black", "variant_none"],
     ("id", "product_id", "sku", "deleted_at", "variant_rank"), False, ()),
    (ProductOption, "product_id", ["prod_t_shirt", "prod_cap", "prod_mug"], ("id", "product_id", "title"), True,
     ("created_at", "id")),
    (ProductOptionValue, "variant_id", ["variant_t_shirt_s", "variant_t_shirt_m", "variant_cap_black"],
     ("variant_id", "option_id", "value"), True, ()),
    (ProductCollection, "handle", ["summer", "essentials", "none"], ("handle", "id"), True, ("created_at", "id")),
    (ProductTag, "value", ["cotton", "wool", "silk"], ("value", "id"), True, ("created_at", "id")),
    (Image, "url", ["https://img.test/a.png", "https://img.test/b.png"], ("url", "id"), True, ("created_at", "id")),
]


@pytest.mark.parametrize("model, column, values, columns, live, order", CASES,
                         ids=[f"{c[0].__name__}.{c[1]}" for c in CASES])
async def test_the_rows_found_are_the_orms(seeded, model, column, values, columns, live, order):
    await varied()
    mine, theirs = await where_in(model, column, values, columns, live=live, order=order), await orm(
        model, column, values, columns, live, order)
    assert (mine if order else sorted(mine, key=repr)) == (theirs if order else sorted(theirs, key=repr))
    assert theirs or column == "url"  # every case but one finds something


async def test_a_look_up_is_one_statement_whatever_its_values(seeded):
    skus = await ProductVariant.all().values_list("sku", flat=True)
    for n in (1, len(skus)):
        async with count_queries() as ran:
            assert len(await where_in(ProductVariant, "sku", skus[:n], ("id",))) == n
        assert len(ran) == 1
    async with count_queries() as ran:
        assert await where_in(ProductVariant, "sku", [], ("id",)) == []
    assert ran == []
