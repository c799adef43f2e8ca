"""The storefront's `x-publishable-api-key` header: the key's scope, resolved once per request by
the store handlers that honour it (products, cart create and update)."""

from __future__ import annotations

from sanic import Request

from services.sales_channels.scopes import KeyScope, resolve_key

__all__ = ["HEADER", "key_scope"]

HEADER = "x-publishable-api-key"


async def key_scope(request: Request) -> KeyScope | None:
    """The scope of the key the request carries; None without one (an empty header counts as
    none, as in Medusa). An unknown or revoked key is refused (services/sales_channels/scopes.py)."""
    if not hasattr(request.ctx, "key_scope"):
        key = request.headers.get(HEADER)
        request.ctx.key_scope = await resolve_key(key) if key else None
    return request.ctx.key_scope
