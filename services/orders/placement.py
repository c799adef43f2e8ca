"""Placing an order from a cart, inside the
caller's transaction, with the cart's row already locked.

Everything that must happen once happens here, in that one transaction: the order row (its cart
is unique, so a second order for a cart cannot exist), stock taken by conditional UPDATEs, each
discount's use counted by a conditional UPDATE, each gift card's balance lowered by a conditional
UPDATE with a transaction row, the cart's lines and shipping methods handed to the order, the
cart marked completed. A refusal (stock, discount limit, spent gift card) raises and the whole
transaction rolls back; nothing is half-written.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from tortoise.expressions import F, Q

from models import (
    Cart, DraftOrder, GiftCard, GiftCardTransaction, LineItem, LineItemTaxLine, Order, Payment, ProductVariant,
    ShippingMethod, ShippingMethodTaxLine,
)
from services.carts.totals import round_half_up
from services.carts.view import CartView
from services.core import clock
from services.core.db import atomic, write_now
from services.discounts.engine import redeem
from services.core.errors import InvalidData, NotAllowed
from services.core.sql import db_value, insert, placeholders, write
from services.gift_cards.gift_cards import create_gift_card
from services.inventory.order_stock import reserve_lines
from services.events.bus import emit
from services.events import names as ev

__all__ = [
    "restock", "variant_quantities",
    "place_order", "InsufficientInventory", "GiftCardBalanceChanged", "reserve_inventory", "store_tax_lines",
    "write_tax_lines", "drop_tax_lines", "check_placeable", "stocked", "StoredTaxLines",
]


class InsufficientInventory(NotAllowed):
    """Some lines cannot be served from stock; `variant_ids` names them (Medusa's 409 body)."""

    def __init__(self, variant_ids: list[str]):
        super().__init__(
            f"Variant with id: {variant_ids[0]} does not have the required inventory", code="insufficient_inventory"
        )
        self.variant_ids = variant_ids


class GiftCardBalanceChanged(NotAllowed):
    """The cart's gift cards no longer have the balance its total counted on (another order spent
    it): the shopper looks at the new total before paying it, never charged it unasked."""

    def __init__(self, codes: list[str]):
        super().__init__(
            f"Gift card {', '.join(codes)} no longer has the balance this cart counted on. Remove the gift card, "
            "or refresh the payment sessions to pay the new total, then complete the cart again.",
            code="gift_card_balance_changed",
        )


StoredTaxLines = tuple[dict[str, list], dict[str, list]]  # the cart's stored lines: by line id, by method id


async def store_tax_lines(view: CartView, stored: StoredTaxLines | None = None) -> bool:
    """Write the tax lines of `view` (loaded with forced taxes) as the cart's stored lines,
    replacing any: what the order will show and be charged. With
    `stored` (what the cart holds, read with it), lines already stored as computed are kept
    and only what is there is deleted. True when the stored lines were kept as they were."""
    return (await write_tax_lines(view, stored))[0]


async def write_tax_lines(
    view: CartView, stored: StoredTaxLines | None = None, *, at_end: bool = False,
) -> tuple[bool, StoredTaxLines]:
    """`store_tax_lines`, answering also the lines the cart now holds (by line id, by method id):
    `stored` when kept, else the rows just written (an answer built from them shows what a read
    would). `at_end`: the new rows are written with the transaction's other put-off writes
    (services/core/db.py; the caller reads none of them back before its commit)."""
    if stored is not None and _same_lines(view.item_tax_lines, stored[0]) and _same_lines(
            view.method_tax_lines, stored[1]):
        return True, stored
    await drop_tax_lines(view, stored)
    item_lines = [
        LineItemTaxLine(item_id=item_id, rate=line.rate, name=line.name, code=line.code)
        for item_id, lines in view.item_tax_lines.items() for line in lines
    ]
    method_lines = [
        ShippingMethodTaxLine(shipping_method_id=method_id, rate=line.rate, name=line.name, code=line.code)
        for method_id, lines in view.method_tax_lines.items() for line in lines
    ]
    if at_end:
        for row in (*item_lines, *method_lines):
            await insert(row, at_end=True)
    else:
        if item_lines:
            await LineItemTaxLine.bulk_create(item_lines)
        if method_lines:
            await ShippingMethodTaxLine.bulk_create(method_lines)
    now: StoredTaxLines = ({}, {})
    for row in item_lines:
        now[0].setdefault(row.item_id, []).append(row)
    for row in method_lines:
        now[1].setdefault(row.shipping_method_id, []).append(row)
    return False, now


def _same_lines(computed: dict[str, list], stored: dict[str, list]) -> bool:
    def key(lines):
        return [(float(t.rate or 0), t.name, t.code) for t in lines]
    return all(key(lines) == key(stored.get(owner_id, ())) for owner_id, lines in computed.items())


async def drop_tax_lines(view: CartView, stored: StoredTaxLines | None = None) -> None:
    """Delete the cart's stored tax lines (with `stored`, only where there are some)."""
    items = [i.id for i in view.items if stored is None or stored[0].get(i.id)]
    methods = [m.id for m in view.shipping_methods if stored is None or stored[1].get(m.id)]
    if items:
        await LineItemTaxLine.filter(item_id__in=items).delete()
    if methods:
        await ShippingMethodTaxLine.filter(shipping_method_id__in=methods).delete()


def check_placeable(view: CartView, payment: Payment | None) -> None:
    """The reference's checks, in its order (existing order is the caller's business)."""
    if not view.items:
        raise InvalidData("Cannot create order from empty cart")
    if view.cart.customer_id is None:
        raise InvalidData("Cannot create an order from the cart without a customer")
    if view.totals.total != 0 and (payment is None or payment.canceled_at is not None):
        raise InvalidData("Cart payment not authorized")


def stocked() -> Q:
    """The variants whose stock an order takes, and gives back when canceled: tracked, without
    backorders (the others are never counted down)."""
    return Q(manage_inventory=True) & Q(allow_backorder=False)


def variant_quantities(rows) -> dict[str, int]:
    """Units per variant of (variant_id, quantity) rows, lines without a variant left out."""
    out: dict[str, int] = {}
    for variant_id, quantity in rows:
        if variant_id:
            out[variant_id] = out.get(variant_id, 0) + quantity
    return out


async def restock(by_variant: dict[str, int], sign: int = +1) -> None:
    """Give units back to the variants an order counts down (`stocked()`), or with `sign` -1
    take them whatever is left (a backorder): one UPDATE per variant, in variant-id order as
    checkout takes them, so two such changes never deadlock."""
    for variant_id in sorted(by_variant):
        await ProductVariant.filter(Q(id=variant_id) & stocked()).update(
            inventory_quantity=F("inventory_quantity") + sign * by_variant[variant_id])


async def reserve_inventory(items: list[LineItem]) -> None:
    """Take each line's quantity from its variant's stock, unless the variant does not track
    stock or allows backorders, in one statement whatever the number of lines: an UPDATE of the
    variants' rows, locked in id order first (two checkouts sharing variants cannot deadlock),
    that answers what each has left. Stock that would go below zero raises InsufficientInventory
    naming every short variant, and the caller's transaction rolls the whole change back: a
    concurrent checkout can never take stock below zero."""
    wanted = variant_quantities(
        (i.variant.id, i.quantity) for i in items
        if i.variant is not None and i.variant.manage_inventory and not i.variant.allow_backorder
    )
    if not wanted:
        return
    async with atomic():  # the caller's, which a refusal rolls back
        left = await _take_stock(wanted)
        short = sorted(variant_id for variant_id, quantity in left.items() if quantity < 0)
        if short:
            raise InsufficientInventory(short)
    for item in items:  # the lines' variants show what is left, as a read would
        if item.variant is not None and item.variant.id in left:
            item.variant.inventory_quantity = left[item.variant.id]


async def _take_stock(by_variant: dict[str, int]) -> dict[str, int]:
    """One UPDATE lowering each variant's stock by its units, for the variants that still track
    stock without backorders (one that stopped since the cart was read is not counted down),
    their rows locked in id order before any is changed. Answers what each has left, below zero
    where it was short: the caller refuses that inside its transaction."""
    db = ProductVariant._meta.db
    dialect = db.capabilities.dialect
    ids = sorted(by_variant)
    marks = iter(placeholders(dialect, 1, 3 * len(ids)))
    cases = " ".join(f"WHEN {next(marks)} THEN CAST({next(marks)} AS INTEGER)" for _ in ids)
    within = ", ".join(next(marks) for _ in ids)
    lock = "" if dialect == "sqlite" else ' ORDER BY "id" FOR UPDATE'  # SQLite has one writer at a time
    rows = await db.execute_query_dict(  # the dict form answers an UPDATE's RETURNING rows
        f'UPDATE "product_variant" SET "inventory_quantity" = "inventory_quantity" - CASE "id" {cases} END '
        f'WHERE "id" IN (SELECT "id" FROM "product_variant" WHERE "id" IN ({within}) '
        f'AND "manage_inventory" AND NOT "allow_backorder"{lock}) RETURNING "id", "inventory_quantity"',
        [value for variant_id in ids for value in (variant_id, by_variant[variant_id])] + ids,
    )
    return {row["id"]: row["inventory_quantity"] for row in rows}


async def place_order(
    view: CartView, display_id: int, *, payment: Payment | None, payment_status: str = "awaiting",
    draft_order: DraftOrder | None = None, authorized_at=None,
) -> Order:
    """The order of the cart in `view` (locked by the caller, not completed, with its tax lines
    stored). `payment` is the authorized payment (None when nothing is to pay). `authorized_at`:
    the payment was authorized in this same transaction (a provider without a gateway,
    services/checkout/completion.py), and `payment` is not written yet: it is written with the
    order's id, and the cart's payment marks with its completion."""
    cart = view.cart
    check_placeable(view, payment)
    if short := await reserve_lines(view.items, cart.sales_channel_id):  # stock per location
        raise InsufficientInventory(short)
    await reserve_inventory(view.items)
    order = Order(
        display_id=display_id, cart_id=cart.id, customer_id=cart.customer_id, email=cart.email,
        billing_address_id=cart.billing_address_id, shipping_address_id=cart.shipping_address_id,
        region_id=cart.region_id, currency_code=cart.region.currency_code, payment_status=payment_status,
        sales_channel_id=cart.sales_channel_id, metadata=cart.metadata or {},
        draft_order_id=draft_order.id if draft_order else None,
        no_notification=draft_order.no_notification_order if draft_order else None,
        idempotency_key=cart.idempotency_key,
    )
    # The order, its payment's link, the hand-over and the event are written at the transaction's
    # end, together (services/core/db.py `write_at_end`): nothing below reads them back, and the rows
    # that refer to the order by a statement of their own (offers, gift cards, a draft) go after them.
    await insert(order, at_end=True)
    if payment is not None and authorized_at is not None:
        payment.order_id = order.id
        await insert(payment, at_end=True)
    elif payment is not None:
        await write(Payment, 'UPDATE "payment" SET "order_id" = ? WHERE "id" = ?', [order.id, payment.id], at_end=True)
    if view.discounts or view.gift_cards or draft_order is not None or any(i.is_giftcard for i in view.items):
        await write_now()
    if view.discounts:
        await order.discounts.add(*view.discounts)
        await redeem(sorted(d.id for d in view.discounts))
    await _spend_gift_cards(view, order)
    await _issue_bought_gift_cards(view, order)
    completed = {"completed_at": clock.now()}
    if authorized_at is not None:
        completed["payment_authorized_at"] = authorized_at
        if payment is not None:
            completed["payment_id"] = payment.id
    await _hand_over(cart.id, order.id, completed)
    await emit(ev.ORDER_PLACED, id=order.id, no_notification=order.no_notification)
    if draft_order is not None:
        await DraftOrder.filter(id=draft_order.id).update(
            status="completed", order_id=order.id, completed_at=clock.now()
        )
    return order


async def _hand_over(cart_id: str, order_id: str, completed: dict) -> None:
    """The cart's lines and shipping methods become the order's, and the cart takes `completed`
    (its completion, and the payment's marks when authorized with it): three UPDATEs written once
    (the cart's per shape of `completed`), sent with the transaction's other put-off writes (on
    PostgreSQL one statement: a round trip for each was a tenth of a completion's)."""
    await write(LineItem, 'UPDATE "line_item" SET "order_id" = ? WHERE "cart_id" = ?', [order_id, cart_id],
                at_end=True)
    await write(ShippingMethod, 'UPDATE "shipping_method" SET "order_id" = ? WHERE "cart_id" = ?',
                [order_id, cart_id], at_end=True)
    await write(Cart, _completion_statement(tuple(completed)),
                [*(db_value(Cart, name, value) for name, value in completed.items()), cart_id], at_end=True)


@lru_cache(maxsize=None)
def _completion_statement(columns: tuple[str, ...]) -> str:
    sets = ", ".join(f'"{column}" = ?' for column in columns)
    return f'UPDATE "cart" SET {sets} WHERE "id" = ?'


async def _spend_gift_cards(view: CartView, order: Order) -> None:
    """Take the cart's gift-card total from its cards in cart order, each as far as it goes."""
    if not view.gift_cards:
        return
    await order.gift_cards.add(*view.gift_cards)
    remaining = view.totals.gift_card_total
    taxable = view.cart.region.gift_cards_taxable
    for card in view.gift_cards:
        amount = min(card.balance, remaining)
        if amount <= 0:
            continue
        spent = await GiftCard.filter(id=card.id, balance__gte=amount, is_disabled=False).update(
            balance=F("balance") - amount
        )
        if not spent:
            raise GiftCardBalanceChanged([card.code])
        await GiftCard.filter(id=card.id, balance=0).update(is_disabled=True)
        await GiftCardTransaction.create(
            gift_card_id=card.id, order_id=order.id, amount=amount, is_taxable=taxable,
            tax_rate=card.tax_rate if taxable else None,
        )
        remaining -= amount


async def _issue_bought_gift_cards(view: CartView, order: Order) -> None:
    """A gift-card line becomes cards worth its unit price without tax (Medusa: the line's subtotal
    over its quantity, so a tax-inclusive price gives a card worth its price less the tax it
    holds), one per unit, in the order's region."""
    for item in view.items:
        if item.is_giftcard and item.quantity > 0:
            value = round_half_up(Fraction(view.totals.items[item.id].subtotal, item.quantity))
            for _ in range(item.quantity):
                card = await create_gift_card(view.cart.region_id, value)
                await GiftCard.filter(id=card.id).update(order_id=order.id)
