"""Admin currencies: `/admin/currencies`."""

from sanic import Blueprint

bp = Blueprint("admin_currencies", url_prefix="/currencies")
