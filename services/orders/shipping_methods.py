"""Adding a shipping method to a placed order, e.g. to send a forgotten
parcel: the method at the price the merchant gives, its option's provider checking the data, and
the order's earlier methods of the same shipping profile replaced, as in Medusa v1.

Unlike Medusa v1, the method is taxed like a cart's (the option's rates in the region, else the
region's default rate), so the order's totals stay right, and the option must be a live,
outbound option of the order's region.
"""

from __future__ import annotations

from models import Order, Region, ShippingMethod, ShippingMethodTaxLine, ShippingOption, TaxRate
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.ids import fits
from services.fulfillment import get_provider
from services.orders.locks import lock_order
from services.orders.statuses import plan
from services.regions.taxes import load_overrides, option_lines

__all__ = ["add_shipping_method", "method_for"]


async def add_shipping_method(order_id: str, option_id: str, price: int, data: dict | None = None) -> None:
    if price < 0:
        raise InvalidData("price must not be less than 0")
    async with atomic():
        order = await lock_order(order_id)
        plan(order, "add_shipping_method")
        await method_for(order, option_id, price, data, order_id=order.id, replace_profile=True)


async def method_for(
    order: Order, option_id: str, price: int | None, data: dict | None, *, replace_profile: bool = False, **owner,
) -> ShippingMethod:
    """A shipping method of the option (a live, outbound one of the order's region) at `price`
    (the option's when None), taxed, belonging to `owner` (`order_id=` or `claim_order_id=`);
    with `replace_profile`, the owner's methods of the same shipping profile go."""
    option = await ShippingOption.get_or_none(id=option_id, deleted_at=None) if fits(ShippingOption, option_id) else None
    if option is None or option.region_id != order.region_id or option.is_return:
        raise NotFound(f"Shipping Option with {option_id} was not found")
    kept = await get_provider(option.provider_id).validate_fulfillment_data(dict(option.data or {}), data or {})
    if replace_profile:
        same_profile = ShippingOption.filter(profile_id=option.profile_id).values_list("id", flat=True)
        await ShippingMethod.filter(**owner, shipping_option_id__in=await same_profile).delete()
    method = await ShippingMethod.create(
        **owner, shipping_option_id=option.id, price=(option.amount or 0) if price is None else price, data=kept,
        includes_tax=option.includes_tax,
    )
    region = await Region.get(id=order.region_id)
    if order.tax_rate is None:  # an order with its own rate is taxed at it, lines or not
        overrides = await load_overrides(await TaxRate.filter(region_id=region.id), option_ids=[option.id])
        await ShippingMethodTaxLine.bulk_create([
            ShippingMethodTaxLine(shipping_method_id=method.id, rate=line.rate, name=line.name, code=line.code)
            for line in option_lines(region, overrides, option.id)
        ])
    return method
