"""An order as the order routes answer it: the order with the relations its answers show and its
totals (reference extra §6.3), read with a fixed number of statements whatever the number of
lines or orders (DESIGN.md "Speed rules"): one per relation for a whole page, none per row.

The lines and shipping methods are the cart's rows, pointed at the order at completion; their
tax lines were stored then, and a line's discount is its adjustment rows. Rows that were soft
deleted since (a variant, a discount, the region) still show: the order keeps its history.
"""

from __future__ import annotations

from dataclasses import dataclass

from tortoise.query_utils import Prefetch
from tortoise.queryset import QuerySet

from models import (
    Discount, GiftCard, GiftCardTransaction, LineItem, LineItemAdjustment, LineItemTaxLine, Order, Payment,
    ShippingMethod, ShippingMethodTaxLine,
)
from services.carts.view import amount_discount, has_free_shipping
from services.core.errors import NotFound
from services.core.ids import fits
from services.orders.totals import OrderTotals, PaymentInput, TransactionInput, order_totals
from services.carts.totals import ItemInput, ShippingInput

__all__ = [
    "OrderView", "orders_query", "load_views", "load_order_view", "load_order_view_by_cart",
    "NOT_FOUND", "ADMIN_NOT_FOUND", "compute_totals", "rows_by",
]

NOT_FOUND = "Order with id {id} was not found"  # the store's wording
ADMIN_NOT_FOUND = "Order with id: {id} was not found"  # the admin's (reference extra §6.2)
ORDER_JOINS = ("region", "customer", "shipping_address", "billing_address", "sales_channel")


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


def orders_query() -> QuerySet:
    """Orders with their one-row relations joined and their discounts and gift cards prefetched:
    the base of every order read, filtered and paged by the caller."""
    return Order.all().select_related(*ORDER_JOINS).prefetch_related(
        Prefetch("discounts", queryset=Discount.all().select_related("rule").order_by("created_at", "id")),
        Prefetch("gift_cards", queryset=GiftCard.all().order_by("created_at", "id")),
    )


async def load_order_view(order_id: str, *, message: str = NOT_FOUND) -> OrderView:
    """The order with that id; NotFound with `message` (formatted with `id`) otherwise."""
    order = await orders_query().filter(id=order_id).first() if fits(Order, order_id) else None
    if order is None:
        raise NotFound(message.format(id=order_id))
    return (await load_views([order]))[0]


async def load_order_view_by_cart(cart_id: str) -> OrderView:
    """The order placed from that cart."""
    order = await orders_query().filter(cart_id=cart_id).first() if fits(Order, cart_id, "cart_id") else None
    if order is None:
        raise NotFound(f"Order with cart id {cart_id} was not found")
    return (await load_views([order]))[0]


async def load_views(orders: list[Order]) -> list[OrderView]:
    """Views of orders read through `orders_query()`, in their order, with their totals."""
    if not orders:
        return []
    ids = [o.id for o in orders]
    # The variant's product and its profile are joined for the dashboard's `items.variant.product`.
    items = await LineItem.filter(order_id__in=ids).select_related("variant__product__profile").order_by(
        "created_at", "id"
    )
    methods = await ShippingMethod.filter(order_id__in=ids).select_related("shipping_option").order_by(
        "created_at", "id"
    )
    item_ids, method_ids = [i.id for i in items], [m.id for m in methods]
    adjustments = rows_by(
        await LineItemAdjustment.filter(item_id__in=item_ids).order_by("created_at", "id"), "item_id", item_ids,
    ) if item_ids else {}
    item_lines = rows_by(
        await LineItemTaxLine.filter(item_id__in=item_ids).order_by("created_at", "id"), "item_id", item_ids,
    ) if item_ids else {}
    method_lines = rows_by(
        await ShippingMethodTaxLine.filter(shipping_method_id__in=method_ids).order_by("created_at", "id"),
        "shipping_method_id", method_ids,
    ) if method_ids else {}
    transactions = rows_by(
        await GiftCardTransaction.filter(order_id__in=ids).select_related("gift_card").order_by("created_at", "id"),
        "order_id", ids,
    )
    payments = rows_by(await Payment.filter(order_id__in=ids).order_by("created_at", "id"), "order_id", ids)
    items_of, methods_of = rows_by(items, "order_id", ids), rows_by(methods, "order_id", ids)
    views = []
    for order in orders:
        mine, shipped = items_of[order.id], methods_of[order.id]
        parts = dict(
            order=order, items=mine, shipping_methods=shipped,
            adjustments={i.id: adjustments[i.id] for i in mine},
            item_tax_lines={i.id: item_lines[i.id] for i in mine},
            method_tax_lines={m.id: method_lines[m.id] for m in shipped},
            gift_card_transactions=transactions[order.id], payments=payments[order.id],
        )
        views.append(OrderView(**parts, totals=compute_totals(**parts)))
    return views


def rows_by(rows: list, key: str, keys: list[str]) -> dict[str, list]:
    out: dict[str, list] = {k: [] for k in keys}
    for row in rows:
        out[getattr(row, key)].append(row)
    return out


def compute_totals(
    order: Order, items: list[LineItem], adjustments: dict, item_tax_lines: dict,
    shipping_methods: list[ShippingMethod], method_tax_lines: dict, gift_card_transactions: list[GiftCardTransaction], payments: list[Payment],
) -> OrderTotals:
    discounts = list(order.discounts)
    discount = amount_discount(discounts)
    # An order that has its own tax rate (made before tax lines existed) is taxed at it alone.
    fixed_rate = (order.tax_rate,) if order.tax_rate is not None else None

    def discount_of(item: LineItem) -> int:
        if not item.allow_discounts:
            return 0
        return sum(
            a.amount for a in adjustments[item.id]
            if a.discount_id is None or (discount is not None and a.discount_id == discount.id)
        )

    lines = [
        ItemInput(
            item.id, item.unit_price, item.quantity - (item.returned_quantity or 0),
            fixed_rate or tuple(t.rate for t in item_tax_lines[item.id]), discount_of(item),
        )
        for item in items
    ]
    shipping = [
        ShippingInput(m.id, m.price, fixed_rate or tuple(t.rate for t in method_tax_lines[m.id]))
        for m in shipping_methods
    ]
    transactions = [
        TransactionInput(t.amount, t.tax_rate, t.is_taxable, t.gift_card.tax_rate) for t in gift_card_transactions
    ]
    paid = [PaymentInput(p.amount, p.amount_refunded, p.canceled_at is not None) for p in payments]
    return order_totals(
        lines, shipping, transactions, paid, free_shipping=has_free_shipping(discounts),
        gift_cards_taxable=order.region.gift_cards_taxable, region_tax_rate=order.region.tax_rate or 0,
    )
