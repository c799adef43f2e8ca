"""Admin customer groups: `/admin/customer-groups`."""

from sanic import Blueprint

bp = Blueprint("admin_customer_groups", url_prefix="/customer-groups")
