"""The swaps of a page of orders as the order answer shows them (`swaps` and the names below
it), and one swap as `/admin/swaps/{id}` and the store's swap routes show it: a fixed number of
statements, none when the orders have no swaps."""

from __future__ import annotations

from dataclasses import dataclass, field

from models import Address, Order, Payment, ShippingMethod, Swap
from services.core.errors import NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, page_total, rows_by
from services.orders.after_sale_rows import NewLinesAndParcels, load_new_lines_and_parcels

__all__ = ["SwapParts", "load_swaps", "load_swap_parts", "list_swaps", "swap_of_cart", "swaps_by_id"]


@dataclass(kw_only=True)
class SwapParts(NewLinesAndParcels):
    """A swap with its new items (`additional_items`), parcels and return, as a claim shows them
    (services/orders/after_sale_rows.py), and what is a swap's own."""

    swap: Swap
    payment: Payment | None = None
    shipping_address: Address | None = None
    shipping_methods: list[ShippingMethod] = field(default_factory=list)  # with option and tax lines
    order: Order | None = None  # read only when asked for (a swap shown on its own)


async def load_swaps(order_ids: list[str], swaps: list[Swap]) -> dict[str, list[SwapParts]]:
    """The parts of `swaps`, the live swaps of the orders (read with them, services/orders/order_reads.py)."""
    out: dict[str, list[SwapParts]] = {i: [] for i in order_ids}
    for parts in await load_swap_parts(swaps):
        out[parts.swap.order_id].append(parts)
    return out


async def list_swaps(limit: int, offset: int) -> tuple[list[Swap], int]:
    """Live swaps, newest first (Medusa's `/admin/swaps`)."""
    live = Swap.filter(deleted_at=None)
    page = list(await live.order_by("-created_at", "-id").offset(offset).limit(limit))
    return page, await page_total(live, FindConfig(limit=limit, offset=offset), len(page))


async def swap_of_cart(cart_id: str) -> Swap:
    swap = await Swap.get_or_none(cart_id=cart_id, deleted_at=None) if fits(Swap, cart_id, "cart_id") else None
    if swap is None:
        raise NotFound("Swap was not found")
    return swap


async def swaps_by_id(ids: list[str]) -> dict[str, Swap]:
    return {s.id: s for s in await Swap.filter(id__in=ids)} if ids else {}


async def load_swap_parts(swaps: list[Swap], *, with_order: bool = False) -> list[SwapParts]:
    if not swaps:
        return []
    ids = [s.id for s in swaps]
    shown = await load_new_lines_and_parcels("swap_id", ids)
    payments = {p.swap_id: p for p in await Payment.filter(swap_id__in=ids).order_by("created_at", "id")}
    address_ids = [s.shipping_address_id for s in swaps if s.shipping_address_id]
    addresses = {a.id: a for a in await Address.filter(id__in=address_ids)} if address_ids else {}
    orders = {o.id: o for o in await Order.filter(id__in=list({s.order_id for s in swaps}))} if with_order else {}
    methods = rows_by(await ShippingMethod.filter(swap_id__in=ids).select_related("shipping_option")
                      .prefetch_related("tax_lines").order_by("created_at", "id"), "swap_id", ids)
    out = []
    for swap in swaps:
        out.append(SwapParts(
            **vars(shown[swap.id]), swap=swap, payment=payments.get(swap.id),
            shipping_address=addresses.get(swap.shipping_address_id), shipping_methods=methods[swap.id],
            order=orders.get(swap.order_id),
        ))
    return out
