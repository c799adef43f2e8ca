"""Admin apps: `/admin/apps`."""

from sanic import Blueprint

bp = Blueprint("admin_apps", url_prefix="/apps")
