"""The /store interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.store import auth, products, regions

__all__ = ["store"]

store = Blueprint.group(auth.bp, regions.bp, products.bp, url_prefix="/store")
