"""Request bodies shared by returns, swaps and claims, in the admin and the store: an item sent
back, how it is shipped back (the admin may set the price), a new item sent out, and how a
claim's or a swap's new items are fulfilled."""

from __future__ import annotations

from typing import Any

from app.web.validation import Amount, Body, NonEmptyStr

__all__ = ["ReturnedItem", "ReturnShipping", "NewItem", "NewItemsFulfillment"]


class ReturnedItem(Body):
    item_id: NonEmptyStr
    quantity: int
    reason_id: str | None = None
    note: str | None = None


class ReturnShipping(Body):
    option_id: NonEmptyStr
    price: Amount | None = None


class NewItem(Body):
    variant_id: NonEmptyStr
    quantity: int


class NewItemsFulfillment(Body):
    metadata: dict[str, Any] | None = None
    no_notification: bool | None = None
    location_id: str | None = None
