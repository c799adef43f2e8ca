"""The /admin interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.admin import auth

__all__ = ["admin"]

admin = Blueprint.group(auth.bp, url_prefix="/admin")
