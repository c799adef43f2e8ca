"""Store collections: `/store/collections`."""

from sanic import Blueprint

bp = Blueprint("store_collections", url_prefix="/collections")
