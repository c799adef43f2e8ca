"""Gift cards: issued by the back office (and, later, bought in orders), looked up by customers.

Amounts (`value`, `balance`) are minor units with 0 <= balance <= value. `tax_rate` is a percent,
a snapshot of the region's rate when the card is issued. Codes are `XXXX-XXXX-XXXX-XXXX` drawn
from A-Z and 0-9 by a cryptographically secure generator (about 82 bits), so they cannot be guessed.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q
from tortoise.transactions import in_transaction

from models import GiftCard, Region
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound, UnexpectedState
from services.core.ids import fits
from services.core.listing import FindConfig, find_one, find_page, prefetches
from services.core.metadata import merge_metadata
from services.core.money import MAX_AMOUNT  # `value` and `balance` are BIGINT columns
from services.regions.regions import get_region
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "KEEP", "generate_code", "list_gift_cards", "get_gift_card", "create_gift_card",
    "update_gift_card", "delete_gift_card", "get_redeemable_gift_card",
]

KEEP: Any = object()  # an update argument left as KEEP leaves its column as it is

_CODE_ALPHABET = string.ascii_uppercase + string.digits
_CODE_ATTEMPTS = 5


def generate_code() -> str:
    return "-".join("".join(secrets.choice(_CODE_ALPHABET) for _ in range(4)) for _ in range(4))


async def _region(region_id: str) -> Region:
    if not fits(Region, region_id):
        raise NotFound(f"Region with {region_id} was not found")
    return await get_region(region_id)


def _orm_relations(relations: tuple[str, ...]) -> tuple[str, ...]:
    # There is no order model yet: `order` is answered by the web tier without a query.
    return tuple(r for r in relations if r != "order")


async def list_gift_cards(config: FindConfig, q: str | None = None) -> tuple[list[GiftCard], int]:
    """Live cards, newest first by default. `q` matches part of the code, in any case (Medusa also
    matches the buying order's display id; that part waits for orders)."""
    qs = GiftCard.filter(deleted_at=None)
    if q and q.strip():
        qs = qs.filter(code__icontains=q.strip())
    return await find_page(qs, replace(config, relations=_orm_relations(config.relations)))


async def get_gift_card(card_id: str, relations: tuple[str, ...] = ()) -> GiftCard:
    card = None
    if fits(GiftCard, card_id):
        card = await find_one(GiftCard.filter(id=card_id, deleted_at=None), _orm_relations(relations))
    if card is None:
        raise NotFound(f"Gift card with id: {card_id} was not found")
    return card


async def create_gift_card(
    region_id: str, value: int, *, ends_at: datetime | None = None, is_disabled: bool = False,
    metadata: dict | None = None, relations: tuple[str, ...] = (),
    new_code: Callable[[], str] = generate_code,
) -> GiftCard:
    """A card worth `value` (minor units) in the region, with a fresh code and a full balance."""
    if not 0 <= value <= MAX_AMOUNT:
        raise InvalidData(f"value must be between 0 and {MAX_AMOUNT}")
    async with atomic():
        region = await _region(region_id)
        tax_rate = region.tax_rate if region.gift_cards_taxable and region.tax_rate else None
        card = await _insert_with_new_code(
            new_code, region_id=region.id, value=value, balance=value, ends_at=ends_at,
            is_disabled=is_disabled, metadata=metadata, tax_rate=tax_rate,
        )
        await emit(ev.GIFT_CARD_CREATED, id=card.id)
    return await get_gift_card(card.id, relations)


async def _insert_with_new_code(new_code: Callable[[], str], **columns: Any) -> GiftCard:
    for _ in range(_CODE_ATTEMPTS):
        code = new_code()
        try:
            async with in_transaction():  # a savepoint: a clash undoes this insert, not the caller's work
                return await GiftCard.create(code=code, **columns)
        except IntegrityError:
            if not await GiftCard.filter(code=code).exists():
                raise  # another constraint: not ours to retry
    raise UnexpectedState(f"No unused gift card code was found in {_CODE_ATTEMPTS} attempts")


async def update_gift_card(
    card_id: str, relations: tuple[str, ...] = (), *, balance: int = KEEP, is_disabled: bool = KEEP,
    ends_at: datetime | None = KEEP, region_id: str = KEEP, metadata: dict | None = None,
) -> GiftCard:
    """Change what is given; `ends_at=None` removes the expiry, `metadata` is merged.
    The tax rate stays the one the card was issued with, even when it moves to another region."""
    async with atomic():
        card = None
        if fits(GiftCard, card_id):
            card = await GiftCard.filter(id=card_id, deleted_at=None).select_for_update().first()
        if card is None:
            raise NotFound(f"Gift card with id: {card_id} was not found")
        if region_id is not KEEP and region_id != card.region_id:
            card.region_id = (await _region(region_id)).id
        if balance is not KEEP:
            if not 0 <= balance <= card.value:
                raise InvalidData("new balance is invalid")
            card.balance = balance
        if is_disabled is not KEEP:
            card.is_disabled = is_disabled
        if ends_at is not KEEP:
            card.ends_at = ends_at
        card.metadata = merge_metadata(card.metadata, metadata)
        await card.save()
    return await get_gift_card(card_id, relations)


async def delete_gift_card(card_id: str) -> None:
    """Soft delete; deleting a missing or already deleted card is not an error (Medusa's rule)."""
    if fits(GiftCard, card_id):
        await GiftCard.filter(id=card_id, deleted_at=None).update(deleted_at=datetime.now(timezone.utc))


async def get_redeemable_gift_card(code: str, relations: tuple[str, ...] = ("region",)) -> GiftCard:
    """The card a customer can spend: live, enabled, not expired, in a live region.

    Customers type codes by hand, so surrounding spaces are ignored and a lower-case entry finds
    the upper-case code (an exact match wins should both spellings exist). Every other case is
    the same NotFound, so the answer reveals nothing about a card that cannot be used.
    """
    typed = code.strip()
    spellings = [s for s in dict.fromkeys((typed, typed.upper())) if s and fits(GiftCard, s, "code")]
    cards = []
    if spellings:
        cards = await (
            GiftCard.filter(
                Q(ends_at=None) | Q(ends_at__gt=datetime.now(timezone.utc)), code__in=spellings,
                deleted_at=None, is_disabled=False, region__deleted_at=None,
            )
            .limit(2)
            .prefetch_related(*prefetches(GiftCard, _orm_relations(relations)))
        )
    card = next((c for c in cards if c.code == typed), cards[0] if cards else None)
    if card is None:
        raise NotFound(f"Gift card with code: {code} was not found")
    return card
