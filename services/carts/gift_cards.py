"""Gift cards on a cart (the applying part; totals in services/carts/totals.py).

A card is looked up as a customer spends it (services.gift_cards.gift_cards.get_redeemable_gift_card): live,
enabled and not expired, so an expired card is refused where Medusa v1 takes it. It must belong
to the cart's region. A card given twice counts once.
"""

from __future__ import annotations

from models import Cart, GiftCard
from services.core.errors import InvalidData
from services.gift_cards.gift_cards import get_redeemable_gift_card

__all__ = ["apply_gift_cards"]


async def apply_gift_cards(cart: Cart, codes: list[str]) -> None:
    """Replace the cart's gift cards by the cards with these codes (`[]` removes them all)."""
    cards: dict[str, GiftCard] = {}
    for code in codes:
        card = await get_redeemable_gift_card(code, ())
        if card.region_id != cart.region_id:
            raise InvalidData("The gift card cannot be used in the current region")
        cards.setdefault(card.id, card)
    await cart.gift_cards.clear()
    if cards:
        await cart.gift_cards.add(*cards.values())
