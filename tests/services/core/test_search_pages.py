"""A search over several places (services/core/search_pages.py): the keys a search engine found,
given as one parameter (`Keys`)."""

from __future__ import annotations

from tortoise.expressions import Q

from models import Product
from services.core.listing import _statement
from services.core.search_pages import Keys
from tests.conftest import count_queries


async def test_keys_find_the_rows_an_in_list_finds(seeded):
    every = sorted(await Product.all().values_list("id", flat=True))
    for ids in ([], every[:1], every[1:4] + ["prod_unknown"], every):
        # When the rows are asked for by Keys, alone, beside another condition, and excluded
        found = sorted(await Product.filter(Keys(ids)).values_list("id", flat=True))
        beside = sorted(await Product.filter(Keys(ids) | Q(id=every[-1])).values_list("id", flat=True))
        excluded = sorted(await Product.exclude(Keys(ids)).values_list("id", flat=True))
        # I expect what an IN list finds
        assert found == sorted(await Product.filter(id__in=ids).values_list("id", flat=True)), ids
        assert excluded == sorted(await Product.exclude(id__in=ids).values_list("id", flat=True)), ids
        assert beside == sorted(await Product.filter(Q(id__in=ids) | Q(id=every[-1])).values_list("id", flat=True))


async def test_keys_are_one_parameter_whatever_their_number(seeded):
    every = await Product.all().values_list("id", flat=True)
    one, many = (_statement(Product.filter(Keys(ids)).values_list("id", flat=True)) for ids in (every[:1], every))
    assert one[0] == many[0] and len(one[1]) == len(many[1]) == 1
    async with count_queries() as statements:
        await Product.filter(Keys(every)).values_list("id", flat=True)
    assert len(statements) == 1
