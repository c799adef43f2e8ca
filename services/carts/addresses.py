"""A cart's billing and shipping addresses.

An address is given as fields (merged into the cart's current address) or as the id of an
address the cart may use: its own, or one its customer saved. Medusa v1 attaches any address by
id and then edits it in place, so a cart could show, and change, someone's address book. Here a
cart never edits an address it does not own alone: it writes a copy instead.
"""

from __future__ import annotations

from models import Address, Cart, Country
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.core.metadata import merge_metadata
from services.core.sql import insert, save
from services.regions.parts import region_parts

__all__ = ["ADDRESS_FIELDS", "region_countries", "set_address", "move_shipping_country", "new_shipping_address"]

ADDRESS_FIELDS = (
    "first_name", "last_name", "phone", "company", "address_1", "address_2", "city", "country_code", "province",
    "postal_code",
)
SHIPPING, BILLING = "shipping", "billing"
_UNREAD = object()


async def region_countries(region_id: str) -> list[str]:
    """The region's country codes (lower case)."""
    return list(await Country.filter(region_id=region_id).order_by("id").values_list("iso_2", flat=True))


async def new_shipping_address(cart: Cart, country_code: str) -> None:
    cart.shipping_address = Address(country_code=country_code)
    await insert(cart.shipping_address)


async def set_address(cart: Cart, slot: str, value: dict | str | None, *, at_end: bool = False) -> None:
    """`value`: fields to merge into the slot's address (`metadata` merged too), an address id, or
    None to clear the slot. A shipping country must be one of the region's. `at_end`: the address
    row is written with the unit of work's put-off writes (services/core/db.py), as the cart's
    must be then: it refers to it."""
    relation = f"{slot}_address"  # set with its id: a cart read whole answers it without a read back
    if value is None:
        setattr(cart, relation, None)
        return
    if isinstance(value, str):
        address = await _usable(cart, value)
        if slot == SHIPPING:
            await _check_shipping_country(cart, address.country_code)
        setattr(cart, relation, address)
        return
    changes = {k: v for k, v in value.items() if k in ADDRESS_FIELDS}
    if changes.get("country_code"):
        changes["country_code"] = changes["country_code"].lower()
        if slot == SHIPPING:
            await _check_shipping_country(cart, changes["country_code"])
    address = await _writable(cart, slot)
    address.update_from_dict(changes)
    if "metadata" in value:
        address.metadata = merge_metadata(address.metadata, value["metadata"])
    await save(address, at_end=at_end)
    setattr(cart, relation, address)


async def move_shipping_country(cart: Cart, country_code: str | None, countries: list[str]) -> None:
    """After a region change: the shipping country becomes `country_code` (one of the new
    region's), or none, or the region's only country."""
    if country_code is not None and country_code.lower() not in countries:
        raise NotAllowed("Country not available in region")
    code = country_code.lower() if country_code else (countries[0] if len(countries) == 1 else None)
    if cart.shipping_address_id is None and code is None:
        return
    address = await _writable(cart, SHIPPING)
    address.country_code = code
    await address.save()
    cart.shipping_address_id = address.id


async def _check_shipping_country(cart: Cart, country_code: str | None) -> None:
    """Against the region's countries as services/regions/parts.py keeps them when the cart's
    region is loaded (no statement while remembered, as a new cart's country is checked)."""
    if not country_code:
        return
    region = cart.__dict__.get("_region")
    if region is not None and region.id == cart.region_id:
        countries = [c.iso_2 for c in (await region_parts(region)).countries]
    else:
        countries = await region_countries(cart.region_id)
    if country_code.lower() not in countries:
        raise InvalidData("Shipping country must be in the cart region")


async def _usable(cart: Cart, address_id: str) -> Address:
    address = None
    if fits(Address, address_id):
        address = await Address.get_or_none(id=address_id, deleted_at=None)
    own = address is not None and address.id in (cart.billing_address_id, cart.shipping_address_id)
    saved = address is not None and address.customer_id is not None and address.customer_id == cart.customer_id
    if not (own or saved):
        raise NotFound(f"Address with id {address_id} was not found")
    return address


async def _writable(cart: Cart, slot: str) -> Address:
    """The slot's address if the cart alone uses it; otherwise a new, unsaved copy of it."""
    current_id = getattr(cart, f"{slot}_address_id")
    other_id = getattr(cart, f"{BILLING if slot == SHIPPING else SHIPPING}_address_id")
    loaded = cart.__dict__.get(f"_{slot}_address", _UNREAD)  # read with the cart (services/carts/reads.py)
    if loaded is not _UNREAD and (loaded.id if loaded is not None else None) == current_id:
        current = loaded
    else:
        current = await Address.get_or_none(id=current_id) if current_id else None
    if current is not None and current.customer_id is None and current.id != other_id:
        return current
    copied = {f: getattr(current, f) for f in ADDRESS_FIELDS} if current is not None else {}
    return Address(**copied, metadata=current.metadata if current is not None else None)
