"""The /store interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.store import auth, collections, gift_cards, products, regions

__all__ = ["store"]

store = Blueprint.group(auth.bp, regions.bp, products.bp, collections.bp, gift_cards.bp, url_prefix="/store")
