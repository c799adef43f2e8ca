"""Store gift cards: `GET /store/gift-cards/{code}`, a customer's balance check."""

from sanic import Blueprint, Request

from app.web.responses import json
from app.web.serialize import dump
from services.gift_cards.gift_cards import get_redeemable_gift_card

bp = Blueprint("store_gift_cards", url_prefix="/gift-cards")

FIELDS = frozenset({"id", "code", "value", "balance"})  # plus `region`: exactly Medusa's keys


@bp.get("/<code:str>")
async def get(request: Request, code: str):
    # Medusa ignores this route's query string; so do we.
    card = await get_redeemable_gift_card(code, ("region",))
    return json({"gift_card": dump(card, {"region": {}}, FIELDS)})
