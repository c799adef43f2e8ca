"""Admin gift cards: `/admin/gift-cards`."""

from typing import Any

from sanic import Blueprint, Request

from app.web.query import Filters, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Amount, Body, DateTime, NonEmptyStr, parse_body
from models import GiftCard
from services.gift_cards.gift_cards import (
    create_gift_card, delete_gift_card, get_gift_card, list_gift_cards, update_gift_card,
)

bp = Blueprint("admin_gift_cards", url_prefix="/gift-cards")

RELATIONS = ("region", "order")
ORDER = (
    "id", "code", "value", "balance", "region_id", "is_disabled", "ends_at", "created_at", "updated_at",
)


class ListFilters(Filters):
    q: str | None = None


LIST = QuerySpec(
    columns=COLUMNS[GiftCard], default_relations=RELATIONS, allowed_relations=RELATIONS,
    allowed_order=ORDER, filters=ListFilters, default_limit=50,
)
GET = LIST.one(filters=None)


Metadata = dict[str, Any]  # NUL characters are refused for every request (app/web/validation.py)


class NewGiftCard(Body):
    region_id: NonEmptyStr
    value: Amount  # Medusa lets a missing value fail in the database; here it is a plain 400
    ends_at: DateTime | None = None
    is_disabled: bool = False
    metadata: Metadata | None = None


class GiftCardChanges(Body):
    # An absent key leaves the column alone; null is refused where the column cannot be null.
    balance: int = None  # type: ignore[assignment]
    is_disabled: bool = None  # type: ignore[assignment]
    ends_at: DateTime | None = None
    region_id: NonEmptyStr = None  # type: ignore[assignment]
    metadata: Metadata | None = None


def _dump(cards: list[GiftCard], relations: tuple[str, ...], fields=None) -> list[dict]:
    out = dump_many(cards, tuple(r for r in relations if r != "order"), fields)
    if "order" in relations:
        for card in out:
            card["order"] = None  # there are no orders yet, so no card has been bought in one
    return out


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    cards, count = await list_gift_cards(q.find(), q.filters.q)
    return json({"gift_cards": _dump(cards, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, NewGiftCard)
    card = await create_gift_card(**body.model_dump(), relations=RELATIONS)
    return json({"gift_card": _dump([card], RELATIONS)[0]})


@bp.get("/<card_id:str>")
async def get(request: Request, card_id: str):
    q = parse_query(request.query_string, GET)
    card = await get_gift_card(card_id, q.relations)
    return json({"gift_card": _dump([card], q.relations, q.fields)[0]})


@bp.post("/<card_id:str>")
async def update(request: Request, card_id: str):
    body = parse_body(request, GiftCardChanges)
    card = await update_gift_card(card_id, RELATIONS, **body.model_dump(exclude_unset=True))
    return json({"gift_card": _dump([card], RELATIONS)[0]})


@bp.delete("/<card_id:str>")
async def delete(request: Request, card_id: str):
    await delete_gift_card(card_id)
    return deleted(card_id, "gift-card")
