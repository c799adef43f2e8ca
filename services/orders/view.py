"""An order as the order routes answer it: the order with the relations its answers show and its
totals, read with a fixed number of statements whatever the number of
lines or orders: the orders with their one-row relations, then every
row below them in one statement (services/orders/order_reads.py), then what lies below their
after-sale rows, one statement per kind that exists.

An order's claims and swaps are read here as rows only: what lies below them belongs to the
claims and swaps areas, above orders, so the order answer gathers it where it shows the order
(app/shapes/orders.py `with_claims_and_swaps`), into the slots `AfterSale` keeps for it.

The lines and shipping methods are the cart's rows, pointed at the order at completion; their
tax lines were stored then, and a line's discount is its adjustment rows. Rows that were soft
deleted since (a variant, a discount, the region) still show: the order keeps its history.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models import (
    ClaimOrder, Discount, Fulfillment, FulfillmentItem, GiftCard, GiftCardTransaction, LineItem, LineItemAdjustment,
    LineItemTaxLine, Order, Payment, Refund, Return, ReturnItem, ShippingMethod, ShippingMethodTaxLine, Swap,
    TrackingLink,
)
from services.carts.view import CartView, amount_discount, has_free_shipping
from services.core.errors import NotFound
from services.core.listing import rows_by
from services.core.ids import fits
from services.orders.order_reads import load_order_rows, read_orders
from services.orders.totals import OrderTotals, PaymentInput, TransactionInput, order_totals
from services.carts.totals import ItemInput, ShippingInput

__all__ = [
    "OrderView", "read_orders", "load_views", "load_order_view", "load_order_view_by_cart", "load_placed_view",
    "placed_view",
    "NOT_FOUND", "ADMIN_NOT_FOUND", "AFTER_SALE_RELATIONS", "compute_totals", "rows_by", "AfterSale", "load_after_sale",
]

NOT_FOUND = "Order with id {id} was not found"  # the store's wording
ADMIN_NOT_FOUND = "Order with id: {id} was not found"  # the admin's


@dataclass
class AfterSale:
    """What happened to an order after it was placed: its fulfillments (with their items and live
    tracking links), refunds and returns (with their items, each item's reason, and the return's
    shipping method with its option and tax lines), and its live claims and swaps, oldest first."""

    fulfillments: list[Fulfillment] = field(default_factory=list)
    fulfillment_items: dict[str, list[FulfillmentItem]] = field(default_factory=dict)  # by fulfillment id
    tracking_links: dict[str, list[TrackingLink]] = field(default_factory=dict)  # by fulfillment id
    refunds: list[Refund] = field(default_factory=list)
    returns: list[Return] = field(default_factory=list)
    return_items: dict[str, list[ReturnItem]] = field(default_factory=dict)  # by return id, with reason
    return_methods: dict[str, ShippingMethod] = field(default_factory=dict)  # by return id, with option
    return_method_tax_lines: dict[str, list[ShippingMethodTaxLine]] = field(default_factory=dict)  # by method id
    claim_rows: list[ClaimOrder] = field(default_factory=list)  # the claims' own rows
    swap_rows: list[Swap] = field(default_factory=list)  # the swaps' own rows
    # The claims and swaps with what lies below them (services/claims/view.py ClaimParts,
    # services/swaps/view.py SwapParts), oldest first: filled from the rows above by the answer
    # that shows them (app/shapes/orders.py `with_claims_and_swaps`), empty until then.
    claims: list = field(default_factory=list)
    swaps: list = field(default_factory=list)


@dataclass
class OrderView:
    order: Order  # with region, customer, addresses, sales_channel, discounts (+rule) and gift_cards
    items: list[LineItem]  # with variant, its product and the product's profile
    adjustments: dict[str, list[LineItemAdjustment]]  # by item id
    item_tax_lines: dict[str, list[LineItemTaxLine]]
    shipping_methods: list[ShippingMethod]  # with shipping_option
    method_tax_lines: dict[str, list[ShippingMethodTaxLine]]
    gift_card_transactions: list[GiftCardTransaction]
    payments: list[Payment]
    totals: OrderTotals
    after_sale: AfterSale = field(default_factory=AfterSale)

    @property
    def discounts(self) -> list[Discount]:
        return list(self.order.discounts)

    @property
    def gift_cards(self) -> list[GiftCard]:
        return list(self.order.gift_cards)

    @property
    def returnable_items(self) -> list[LineItem]:
        """Lines shipped more than they were returned (Medusa v1's `returnable_items`)."""
        return [i for i in self.items if (i.shipped_quantity or 0) > (i.returned_quantity or 0)]


async def load_order_view(order_id: str, *, message: str = NOT_FOUND, placed: bool = False) -> OrderView:
    """The order with that id; NotFound with `message` (formatted with `id`) otherwise.
    `placed`: see `load_placed_view`."""
    orders = await read_orders([order_id]) if fits(Order, order_id) else []
    if not orders:
        raise NotFound(message.format(id=order_id))
    return (await load_views(orders, placed=placed))[0]


async def load_order_view_by_cart(cart_id: str) -> OrderView:
    """The order placed from that cart."""
    ids = await Order.filter(cart_id=cart_id).values_list("id", flat=True) if fits(Order, cart_id, "cart_id") else []
    if not ids:
        raise NotFound(f"Order with cart id {cart_id} was not found")
    return (await load_views(await read_orders(list(ids))))[0]


async def load_placed_view(order_id: str) -> OrderView:
    """The order completion has just placed: nothing can have happened to it after the sale
    yet, and its lines have adjustments only with a discount, so those rows are not read."""
    return await load_order_view(order_id, placed=True)


AFTER_SALE_RELATIONS = frozenset({"fulfillments", "refunds", "returns", "claims", "swaps"})  # what AfterSale shows


def placed_view(order: Order, cart: CartView, payment: Payment | None, tax_lines: tuple[dict, dict]) -> OrderView:
    """The view of an order just placed from `cart` (locked and read for the placing, without a
    discount, a gift card or a gift-card line), built from what placing it held: what
    `load_placed_view` would read, without reading. `tax_lines`: the cart's stored lines, as
    read with it (by line id, by method id)."""
    c = cart.cart
    for name, value in (("region", c.region), ("shipping_address", c.shipping_address),
                        ("billing_address", c.billing_address), ("sales_channel", c.sales_channel)):
        object.__setattr__(order, f"_{name}", value)
    order.discounts._set_result_for_query([])
    order.gift_cards._set_result_for_query([])
    for row in (*cart.items, *cart.shipping_methods, *([payment] if payment is not None else [])):
        row.order_id = order.id  # as placing set them in the database
    parts = dict(
        order=order, items=list(cart.items), shipping_methods=list(cart.shipping_methods),
        adjustments={i.id: list(cart.adjustments.get(i.id, ())) for i in cart.items},
        item_tax_lines={i.id: list(tax_lines[0].get(i.id, ())) for i in cart.items},
        method_tax_lines={m.id: list(tax_lines[1].get(m.id, ())) for m in cart.shipping_methods},
        gift_card_transactions=[], payments=[payment] if payment is not None else [],
    )
    return OrderView(**parts, totals=compute_totals(**parts))


async def load_views(
    orders: list[Order], *, placed: bool = False, line_detail: bool = True, after_sale: bool = True,
) -> list[OrderView]:
    """Views of orders read by `read_orders`, in their order, with their totals.
    `placed`: orders just placed (see `load_placed_view`). Without `line_detail` the lines come
    without their variant, product and profile, and without `after_sale` no after-sale row is
    read (an answer that shows neither; the totals need none of them)."""
    if not orders:
        return []
    ids = [o.id for o in orders]
    with_after_sale = after_sale and not placed
    rows = await load_order_rows(orders, line_detail=line_detail, after_sale=with_after_sale)
    after_sale = await load_after_sale(ids, rows.after_sale) if with_after_sale \
        else {order_id: AfterSale() for order_id in ids}
    views = []
    for order in orders:
        mine, shipped = rows.items[order.id], rows.shipping_methods[order.id]
        parts = dict(
            order=order, items=mine, shipping_methods=shipped,
            adjustments={i.id: rows.adjustments[i.id] for i in mine},
            item_tax_lines={i.id: rows.item_tax_lines[i.id] for i in mine},
            method_tax_lines={m.id: rows.method_tax_lines[m.id] for m in shipped},
            gift_card_transactions=rows.transactions[order.id], payments=rows.payments[order.id],
        )
        views.append(OrderView(**parts, totals=compute_totals(**parts), after_sale=after_sale[order.id]))
    return views


async def load_after_sale(order_ids: list[str], first: dict[str, dict[str, list]]) -> dict[str, AfterSale]:
    """The after-sale rows of each order, from their first level (read with the rows below the
    orders, services/orders/order_reads.py): one more statement per kind of child row that
    exists (fulfillment items and tracking links, return items, return shipping). The claims'
    and swaps' rows are kept as read; what lies below them is not read here (see the module)."""

    def firsts(kind: str) -> list:
        return [row for order_id in order_ids for row in first[kind].get(order_id, [])]

    fulfillments, refunds, returns = firsts("fulfillment"), firsts("refund"), firsts("return")
    ful_ids, ret_ids = [f.id for f in fulfillments], [r.id for r in returns]
    items = rows_by(await FulfillmentItem.filter(fulfillment_id__in=ful_ids).order_by("id"), "fulfillment_id",
                    ful_ids) if ful_ids else {}
    links = rows_by(
        await TrackingLink.filter(fulfillment_id__in=ful_ids, deleted_at=None).order_by("created_at", "id"),
        "fulfillment_id", ful_ids,
    ) if ful_ids else {}
    return_items = rows_by(
        await ReturnItem.filter(return_id__in=ret_ids).select_related("reason").order_by("id"), "return_id", ret_ids,
    ) if ret_ids else {}
    methods = await ShippingMethod.filter(return_id__in=ret_ids).select_related("shipping_option").prefetch_related(
        "tax_lines"
    ) if ret_ids else []
    out = {order_id: AfterSale() for order_id in order_ids}
    for claim in firsts("claim"):
        out[claim.order_id].claim_rows.append(claim)
    for swap in firsts("swap"):
        out[swap.order_id].swap_rows.append(swap)
    for f in fulfillments:
        part = out[f.order_id]
        part.fulfillments.append(f)
        part.fulfillment_items[f.id], part.tracking_links[f.id] = items[f.id], links[f.id]
    for r in refunds:
        out[r.order_id].refunds.append(r)
    by_return = {m.return_id: m for m in methods}
    for r in returns:
        part = out[r.order_id]
        part.returns.append(r)
        part.return_items[r.id] = return_items[r.id]
        method = by_return.get(r.id)
        if method is not None:
            part.return_methods[r.id] = method
            part.return_method_tax_lines[method.id] = list(method.tax_lines)
    return out


def compute_totals(
    order: Order, items: list[LineItem], adjustments: dict, item_tax_lines: dict,
    shipping_methods: list[ShippingMethod], method_tax_lines: dict, gift_card_transactions: list[GiftCardTransaction], payments: list[Payment],
) -> OrderTotals:
    discounts = list(order.discounts)
    discount = amount_discount(discounts)
    # A line counts its adjustments of no discount and of the order's amount discount only.
    counted = discount.id if discount is not None else _NO_DISCOUNT
    # An order that has its own tax rate (made before tax lines existed) is taxed at it alone.
    fixed_rate = (order.tax_rate,) if order.tax_rate is not None else None
    lines = []
    for item in items:
        adjusted = adjustments[item.id] if item.allow_discounts else ()
        lines.append(ItemInput(
            item.id, item.unit_price, item.quantity - (item.returned_quantity or 0),
            fixed_rate or tuple([t.rate for t in item_tax_lines[item.id]]),
            sum([a.amount for a in adjusted if a.discount_id is None or a.discount_id == counted]) if adjusted else 0,
            item.includes_tax,
        ))
    shipping = [
        ShippingInput(m.id, m.price, fixed_rate or tuple([t.rate for t in method_tax_lines[m.id]]), m.includes_tax)
        for m in shipping_methods
    ]
    transactions = [
        TransactionInput(t.amount, t.tax_rate, t.is_taxable, t.gift_card.tax_rate) for t in gift_card_transactions
    ]
    paid = [PaymentInput(p.amount, p.amount_refunded, p.canceled_at is not None) for p in payments]
    return order_totals(
        lines, shipping, transactions, paid, free_shipping=has_free_shipping(discounts),
        gift_cards_taxable=order.region.gift_cards_taxable, region_tax_rate=order.region.tax_rate or 0,
        ordered={item.id: item.quantity for item in items},
    )


_NO_DISCOUNT = object()  # equal to no adjustment's discount id
