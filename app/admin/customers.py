"""Admin customers: `/admin/customers`."""

from sanic import Blueprint

bp = Blueprint("admin_customers", url_prefix="/customers")
