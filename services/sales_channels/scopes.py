"""What a publishable API key lets a storefront see and buy: the key's live sales channels.

With a key that has channels, product reads are limited to those channels, a `sales_channel_id`
outside them is refused, and a new cart goes to the key's channel. A key without live channels
scopes nothing: the storefront is served as without a key (the store's default channel), where
Medusa v1 would lift every channel filter. Unlike Medusa v1, which reads only the key's links, an
unknown or revoked key is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from models import Product, PublishableApiKey
from services.core.errors import InvalidData, NotAllowed
from services.core.ids import fits

__all__ = ["KeyScope", "resolve_key", "listing_channels", "cart_channel", "check_channel", "check_product"]

_INVALID_KEY = "A valid publishable key is required to proceed with the request"


@dataclass(frozen=True)
class KeyScope:
    key_id: str
    sales_channel_ids: tuple[str, ...]  # the key's live channels; none: no restriction


async def resolve_key(key_id: str) -> KeyScope:
    """The scope of the key sent by a storefront, read in one statement; NotAllowed when the key
    is unknown or revoked."""
    rows = fits(PublishableApiKey, key_id) and await PublishableApiKey.filter(id=key_id).values_list(
        "revoked_at", "sales_channels__id", "sales_channels__deleted_at"
    )
    if not rows or rows[0][0] is not None:
        raise NotAllowed(_INVALID_KEY)
    channels = sorted({channel for _, channel, deleted_at in rows if channel is not None and deleted_at is None})
    return KeyScope(key_id, tuple(channels))


def _outside(scope: KeyScope | None, channel_ids: list[str]) -> list[str]:
    if scope is None or not scope.sales_channel_ids:
        return []
    return [c for c in channel_ids if c not in scope.sales_channel_ids]


def check_channel(scope: KeyScope | None, channel_ids: list[str]) -> None:
    """InvalidData (Medusa's message) unless every channel named is within the key's scope."""
    if _outside(scope, channel_ids):
        raise InvalidData(
            f"Provided sales channel id param: {', '.join(channel_ids)} is not associated with the Publishable "
            "API Key passed in the header of the request."
        )


def listing_channels(scope: KeyScope | None, requested: list[str]) -> list[str]:
    """The channels a product list is limited to: those asked for (within the key's scope), else
    the key's; empty means the caller's default."""
    check_channel(scope, requested)
    if requested or scope is None:
        return requested
    return list(scope.sales_channel_ids)


def cart_channel(scope: KeyScope | None, requested: str | None) -> str | None:
    """The channel a new cart goes to: the one asked for (within the key's scope), else the key's
    only channel; None leaves the store's default. A key with several channels needs the cart to
    name one (Medusa answers 500 here)."""
    if requested:
        check_channel(scope, [requested])
        return requested
    if scope is None or not scope.sales_channel_ids:
        return None
    if len(scope.sales_channel_ids) > 1:
        raise InvalidData(
            "The PublishableApiKey provided in the request header has multiple associated sales channels."
        )
    return scope.sales_channel_ids[0]


async def check_product(scope: KeyScope | None, product_id: str) -> None:
    """InvalidData (Medusa's message) when the product is sold in none of the key's channels."""
    if scope is None or not scope.sales_channel_ids:
        return
    if not await Product.filter(id=product_id, sales_channels__id__in=scope.sales_channel_ids).exists():
        raise InvalidData(
            f"Product with id: {product_id} is not associated with sales channels defined by the Publishable "
            "API Key passed in the header of the request."
        )
