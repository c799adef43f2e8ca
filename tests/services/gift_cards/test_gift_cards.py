"""Gift card codes: the generator's form, and a fresh code drawn again when one is already taken."""

import re

import pytest

from models import GiftCard, Region
from services.core.db import atomic
from services.core.errors import UnexpectedState
from services.gift_cards.gift_cards import create_gift_card, generate_code


def codes(*values: str):
    """A code source that hands out `values` in turn, as the secure generator would by chance."""
    it = iter(values)
    return lambda: next(it)


@pytest.fixture
async def region():
    return await Region.create(name="Nordics", currency_code="dkk", tax_rate=25)


def test_codes_are_four_groups_of_four_upper_case_letters_and_digits():
    drawn = {generate_code() for _ in range(500)}
    assert len(drawn) == 500
    assert all(re.fullmatch(r"[A-Z0-9]{4}(-[A-Z0-9]{4}){3}", c) for c in drawn)
    assert set("".join(drawn).replace("-", "")) > set("0123456789")  # letters and digits both appear


async def test_a_code_already_taken_is_drawn_again(region):
    # Given a card holding the code the generator draws first
    taken = await create_gift_card(region.id, 100, new_code=codes("AAAA-AAAA-AAAA-AAAA"))
    # When another card is created
    card = await create_gift_card(region.id, 500, new_code=codes("AAAA-AAAA-AAAA-AAAA", "BBBB-BBBB-BBBB-BBBB"))
    # I expect it to carry the next code, and the first card to be untouched
    assert card.code == "BBBB-BBBB-BBBB-BBBB" and (card.value, card.balance, card.tax_rate) == (500, 500, 25)
    assert (await GiftCard.get(id=taken.id)).code == "AAAA-AAAA-AAAA-AAAA"
    assert await GiftCard.all().count() == 2


async def test_a_clash_inside_a_larger_transaction_keeps_the_callers_work(region):
    # Given an order-like unit of work that already wrote something
    await create_gift_card(region.id, 100, new_code=codes("TAKEN"))
    async with atomic():
        first = await create_gift_card(region.id, 1, new_code=codes("FIRST"))
        # When a card created in it clashes once
        second = await create_gift_card(region.id, 2, new_code=codes("TAKEN", "SECOND"))
    # I expect both writes committed
    assert {c.code for c in await GiftCard.filter(id__in=[first.id, second.id])} == {"FIRST", "SECOND"}


async def test_running_out_of_fresh_codes_is_an_error_not_a_duplicate(region):
    await create_gift_card(region.id, 100, new_code=codes("TAKEN"))
    with pytest.raises(UnexpectedState):
        await create_gift_card(region.id, 100, new_code=lambda: "TAKEN")
    assert await GiftCard.all().count() == 1
