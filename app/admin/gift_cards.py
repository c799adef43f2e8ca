"""Admin gift cards: `/admin/gift-cards`."""

from sanic import Blueprint

bp = Blueprint("admin_gift_cards", url_prefix="/gift-cards")
