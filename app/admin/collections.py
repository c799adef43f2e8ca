"""Admin collections: `/admin/collections`."""

from sanic import Blueprint

bp = Blueprint("admin_collections", url_prefix="/collections")
