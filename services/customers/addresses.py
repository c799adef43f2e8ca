"""A customer's address book and billing address.

Every change is scoped to the signed-in customer: an address of someone else is "not found",
never read or changed. Two things Medusa v1 gets wrong are done better here:
- a billing address given by id must be the customer's own (Medusa attaches any address);
- an address that an order was shipped or billed to is not rewritten or lost when the customer
  edits or deletes it in the address book: the order keeps a copy of it as it was.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from tortoise.expressions import Q

from models import Address, Country, Customer, Order
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits
from services.core.metadata import merge_metadata

__all__ = ["ADDRESS_FIELDS", "add_address", "update_address", "delete_address", "set_billing_address"]

ADDRESS_FIELDS = (
    "first_name", "last_name", "phone", "company", "address_1", "address_2", "city", "country_code", "province",
    "postal_code",
)
# Medusa's test for "the same address": these fields equal (company and metadata do not count).
_SAME = ("country_code", "address_1", "address_2", "city", "phone", "postal_code", "province", "first_name",
         "last_name")


async def add_address(customer_id: str, fields: dict[str, Any]) -> None:
    """Save an address in the book, unless the same one is there already (no error then)."""
    columns = await _columns(fields)
    async with atomic():
        await _lock(customer_id)  # two identical adds at once still give one address
        if await Address.filter(customer_id=customer_id, deleted_at=None, **_same_as(columns)).exists():
            return
        await Address.create(customer_id=customer_id, metadata=fields.get("metadata"), **columns)


async def update_address(customer_id: str, address_id: str, fields: dict[str, Any]) -> None:
    columns = await _columns(fields)
    async with atomic():
        address = await _own(customer_id, address_id)
        if address is None:
            raise InvalidData("Could not find address for customer")
        await _keep_for_orders(address)
        address.update_from_dict(columns)
        if "metadata" in fields:
            address.metadata = merge_metadata(address.metadata, fields["metadata"])
        await address.save()


async def delete_address(customer_id: str, address_id: str) -> None:
    """Soft-delete one of the customer's addresses; anything else is a silent no-op (Medusa's)."""
    async with atomic():
        address = await _own(customer_id, address_id)
        if address is None:
            return
        await _keep_for_orders(address)
        address.deleted_at = datetime.now(timezone.utc)
        await address.save(update_fields=["deleted_at", "updated_at"])
        await Customer.filter(id=customer_id, billing_address_id=address.id).update(billing_address_id=None)


async def set_billing_address(customer: Customer, value: dict[str, Any] | str | None) -> None:
    """`None` unsets it; an id attaches one of the customer's addresses; fields are merged into
    the current billing address (into a copy when that is also a saved or ordered address)."""
    if value is None:
        address_id = None
    elif isinstance(value, str):
        address = await _own(customer.id, value, billing_id=customer.billing_address_id)
        if address is None:
            raise NotFound(f"Address with id {value} was not found")
        address_id = address.id
    else:
        address_id = (await _merged_billing(customer, value)).id
    if address_id != customer.billing_address_id:
        customer.billing_address_id = address_id
        await customer.save(update_fields=["billing_address_id", "updated_at"])


async def _merged_billing(customer: Customer, fields: dict[str, Any]) -> Address:
    columns = await _columns(fields)
    current = await Address.get_or_none(id=customer.billing_address_id, deleted_at=None) if (
        customer.billing_address_id) else None
    alone = current is not None and current.customer_id is None and not await _ordered(current)
    if not alone:
        base = {f: getattr(current, f) for f in ADDRESS_FIELDS} if current is not None else {}
        current = Address(**base, metadata=current.metadata if current is not None else None)
    current.update_from_dict(columns)
    if "metadata" in fields:
        current.metadata = merge_metadata(current.metadata, fields["metadata"])
    await current.save()
    return current


async def _own(customer_id: str, address_id: str, billing_id: str | None = None) -> Address | None:
    """A live address of the customer's book (or their current billing address), else None."""
    if not fits(Address, address_id):
        return None
    address = await Address.get_or_none(id=address_id, deleted_at=None)
    if address is None or not (address.customer_id == customer_id or address.id == billing_id):
        return None
    return address


async def _columns(fields: dict[str, Any]) -> dict[str, Any]:
    columns = {k: v for k, v in fields.items() if k in ADDRESS_FIELDS}
    code = columns.get("country_code")
    if code is not None:
        columns["country_code"] = code = code.strip().lower()
        if not await Country.filter(iso_2=code).exists():
            raise InvalidData(f"Country with iso_2 {code} was not found")
    return columns


def _same_as(columns: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in _SAME:
        value = columns.get(f)
        if value is None:
            out[f"{f}__isnull"] = True
        else:
            out[f] = value
    return out


async def _lock(customer_id: str) -> None:
    await Customer.select_for_update().filter(id=customer_id).first()


def _orders_of(address: Address):
    return Order.filter(Q(shipping_address_id=address.id) | Q(billing_address_id=address.id))


async def _ordered(address: Address) -> bool:
    return await _orders_of(address).exists()


async def _keep_for_orders(address: Address) -> None:
    """Orders shipped or billed to `address` get a copy of it as it is now."""
    if not await _ordered(address):
        return
    copy = await Address.create(**{f: getattr(address, f) for f in ADDRESS_FIELDS}, metadata=address.metadata)
    await Order.filter(shipping_address_id=address.id).update(shipping_address_id=copy.id)
    await Order.filter(billing_address_id=address.id).update(billing_address_id=copy.id)
