"""Store gift cards: `/store/gift-cards`."""

from sanic import Blueprint

bp = Blueprint("store_gift_cards", url_prefix="/gift-cards")
