"""The rows below a page of orders that their totals and answers need (discounts with their
rules, gift cards, lines with their adjustments and tax lines, shipping methods with their
options and tax lines, gift-card transactions with their cards, payments, and with
`line_detail` each line's variant, product and profile), in one statement whatever the page size
(services/core/union_rows.py), where reading them relation by relation took eleven.

What it builds is what those reads built: every row, soft-deleted ones included (an order keeps
its history), each list in creation order, the one-row relations set on their instances as a
joined read sets them."""

from __future__ import annotations

from dataclasses import dataclass, field

from models import (
    Address, ClaimOrder, Customer, Discount, DiscountRule, Fulfillment, GiftCard, GiftCardTransaction, LineItem,
    LineItemAdjustment, LineItemTaxLine, Order, Payment, Product, ProductVariant, Refund, Region, Return, SalesChannel,
    ShippingMethod, ShippingMethodTaxLine, ShippingOption, ShippingProfile, Swap,
)
from services.core.sql import RowBuilder, aliased_columns, placeholders
from services.core.union_rows import Kind, UnionRows, live

__all__ = ["ORDER_JOINS", "OrderRows", "joined_order_sql", "load_order_rows", "order_builders", "read_orders"]

# The order's one-row relations, joined to it: (attribute, model, alias).
ORDER_JOINS = (("region", Region, "r"), ("customer", Customer, "cu"), ("shipping_address", Address, "sa"),
               ("billing_address", Address, "ba"), ("sales_channel", SalesChannel, "sc"))
_ORDER_STATEMENTS: dict[tuple[str, int], str] = {}
_ORDER_BUILDERS: dict[str, tuple[RowBuilder, dict[str, RowBuilder]]] = {}


def joined_order_sql(joins: tuple[tuple, ...]) -> tuple[str, str]:
    """The select list and the LEFT JOINs of an order ("o") read with the one-row relations
    `joins` (of `ORDER_JOINS`), each under its alias, as `order_builders` builds them."""
    columns = ", ".join([aliased_columns(Order, "o"), *(aliased_columns(model, alias) for _, model, alias in joins)])
    tables = " ".join(f'LEFT JOIN "{model._meta.db_table}" "{alias}" ON "{alias}"."id" = "o"."{attr}_id"'
                      for attr, model, alias in joins)
    return columns, tables


def order_builders(dialect: str) -> tuple[RowBuilder, dict[str, RowBuilder]]:
    """The builders of an order and of each of its one-row relations (by attribute) from a row
    read as `joined_order_sql` selects it; the relation is set on the order as a joined read sets it."""
    builders = _ORDER_BUILDERS.get(dialect)
    if builders is None:  # once the ORM knows its database: how a column converts depends on the driver
        builders = _ORDER_BUILDERS[dialect] = (
            RowBuilder(Order, lambda c: f"o.{c}"),
            {attr: RowBuilder(model, lambda c, a=alias: f"{a}.{c}") for attr, model, alias in ORDER_JOINS},
        )
    return builders


async def read_orders(ids: list[str]) -> list[Order]:
    """The orders `ids` (those that exist, in the order asked), each with its one-row relations
    set as a joined read sets them: one statement, built once per number of ids."""
    if not ids:
        return []
    db = Order._meta.db
    dialect = db.capabilities.dialect
    sql = _ORDER_STATEMENTS.get((dialect, len(ids)))
    if sql is None:
        columns, joins = joined_order_sql(ORDER_JOINS)
        sql = _ORDER_STATEMENTS[(dialect, len(ids))] = (
            f'SELECT {columns} FROM "orders" "o" {joins} '
            f'WHERE "o"."id" IN ({", ".join(placeholders(dialect, 1, len(ids)))})'
        )
    order_builder, relation_builders = order_builders(dialect)
    _, rows = await db.execute_query(sql, list(ids))
    found = {}
    for row in rows:
        order = order_builder.build(row)
        for attr, builder in relation_builders.items():
            object.__setattr__(order, f"_{attr}", builder.build(row))
        found[order.id] = order
    return [found[i] for i in ids if i in found]


_LINES = 'JOIN "line_item" "i" ON "i"."id" = "t"."item_id" WHERE "i"."order_id" IN ({ids})'
_METHODS = 'JOIN "shipping_method" "m" ON "m"."id" = "t"."shipping_method_id" WHERE "m"."order_id" IN ({ids})'

_ITEM = Kind("item", LineItem, '"t"."order_id"', 'FROM "line_item" "t" WHERE "t"."order_id" IN ({ids})')
_METHOD = Kind("method", ShippingMethod, '"t"."order_id"',
               'FROM "shipping_method" "t" WHERE "t"."order_id" IN ({ids})')
_OPTION = Kind("option", ShippingOption, '"m"."id"',
               'FROM "shipping_option" "t" JOIN "shipping_method" "m" ON "m"."shipping_option_id" = "t"."id" '
               'WHERE "m"."order_id" IN ({ids})')
_ITEM_TAX = Kind("item_tax", LineItemTaxLine, '"t"."item_id"', 'FROM "line_item_tax_line" "t" ' + _LINES)
_METHOD_TAX = Kind("method_tax", ShippingMethodTaxLine, '"t"."shipping_method_id"',
                   'FROM "shipping_method_tax_line" "t" ' + _METHODS)
_PAYMENT = Kind("payment", Payment, '"t"."order_id"', 'FROM "payment" "t" WHERE "t"."order_id" IN ({ids})')
_ADJUSTMENT = Kind("adjustment", LineItemAdjustment, '"t"."item_id"', 'FROM "line_item_adjustment" "t" ' + _LINES)
_TRANSACTION = Kind("transaction", GiftCardTransaction, '"t"."order_id"',
                    'FROM "gift_card_transaction" "t" WHERE "t"."order_id" IN ({ids})')
_CARD = Kind("card", GiftCard, '"x"."id"',
             'FROM "gift_card" "t" JOIN "gift_card_transaction" "x" ON "x"."gift_card_id" = "t"."id" '
             'WHERE "x"."order_id" IN ({ids})')
# Each line's variant, its product and the product's profile, by line: with `line_detail`.
_VARIANT = Kind("variant", ProductVariant, '"i"."id"',
                'FROM "product_variant" "t" JOIN "line_item" "i" ON "i"."variant_id" = "t"."id" '
                'WHERE "i"."order_id" IN ({ids})')
_PRODUCT = Kind("product", Product, '"i"."id"',
                'FROM "product" "t" JOIN "product_variant" "v" ON "v"."product_id" = "t"."id" '
                'JOIN "line_item" "i" ON "i"."variant_id" = "v"."id" WHERE "i"."order_id" IN ({ids})')
_PROFILE = Kind("profile", ShippingProfile, '"i"."id"',
                'FROM "shipping_profile" "t" JOIN "product" "p" ON "p"."profile_id" = "t"."id" '
                'JOIN "product_variant" "v" ON "v"."product_id" = "p"."id" '
                'JOIN "line_item" "i" ON "i"."variant_id" = "v"."id" WHERE "i"."order_id" IN ({ids})')
_DISCOUNT = Kind("discount", Discount, '"j"."order_id"',
                 'FROM "discount" "t" JOIN "order_discounts" "j" ON "j"."discount_id" = "t"."id" '
                 'WHERE "j"."order_id" IN ({ids})')
_RULE = Kind("rule", DiscountRule, '"d"."id"',
             'FROM "discount_rule" "t" JOIN "discount" "d" ON "d"."rule_id" = "t"."id" '
             'JOIN "order_discounts" "j" ON "j"."discount_id" = "d"."id" WHERE "j"."order_id" IN ({ids})')
_GIFT_CARD = Kind("gift_card", GiftCard, '"j"."order_id"',
                  'FROM "gift_card" "t" JOIN "order_gift_cards" "j" ON "j"."gift_card_id" = "t"."id" '
                  'WHERE "j"."order_id" IN ({ids})')
# What happened after the sale, with `after_sale`: the first level (services/orders/view.py
# load_after_sale reads what lies below). A swap's return shows under the swap, as in Medusa v1.
_AFTER_SALE = (
    Kind("fulfillment", Fulfillment, '"t"."order_id"', 'FROM "fulfillment" "t" WHERE "t"."order_id" IN ({ids})'),
    Kind("refund", Refund, '"t"."order_id"', 'FROM "refund" "t" WHERE "t"."order_id" IN ({ids})'),
    Kind("return", Return, '"t"."order_id"',
         'FROM "return" "t" WHERE "t"."order_id" IN ({ids}) AND "t"."swap_id" IS NULL'),
    Kind("claim", ClaimOrder, '"t"."order_id"',
         'FROM "claim_order" "t" WHERE "t"."order_id" IN ({ids})' + live(ClaimOrder, "t")),
    Kind("swap", Swap, '"t"."order_id"', 'FROM "swap" "t" WHERE "t"."order_id" IN ({ids})' + live(Swap, "t")),
)
_ALWAYS = (_DISCOUNT, _RULE, _GIFT_CARD, _ITEM, _METHOD, _OPTION, _ITEM_TAX, _METHOD_TAX, _ADJUSTMENT, _TRANSACTION,
           _CARD, _PAYMENT)
_ROWS = UnionRows((*_ALWAYS, _VARIANT, _PRODUCT, _PROFILE, *_AFTER_SALE))


@dataclass
class OrderRows:
    items: dict[str, list[LineItem]] = field(default_factory=dict)  # by order id
    shipping_methods: dict[str, list[ShippingMethod]] = field(default_factory=dict)  # by order id, with option
    adjustments: dict[str, list[LineItemAdjustment]] = field(default_factory=dict)  # by item id
    item_tax_lines: dict[str, list[LineItemTaxLine]] = field(default_factory=dict)  # by item id
    method_tax_lines: dict[str, list[ShippingMethodTaxLine]] = field(default_factory=dict)  # by method id
    transactions: dict[str, list[GiftCardTransaction]] = field(default_factory=dict)  # by order id, with card
    payments: dict[str, list[Payment]] = field(default_factory=dict)  # by order id
    # With `after_sale`: by kind (fulfillment, refund, return, claim, swap), by order id.
    after_sale: dict[str, dict[str, list]] = field(default_factory=dict)


async def load_order_rows(orders: list[Order], *, line_detail: bool, after_sale: bool = False) -> OrderRows:
    """The rows below `orders`, every order's id a key of the by-order maps, and each order's
    discounts (with their rules) and gift cards set on it as a prefetch sets them."""
    order_ids = [o.id for o in orders]
    found = await _ROWS.read(Order, order_ids, _ALWAYS + ((_VARIANT, _PRODUCT, _PROFILE) if line_detail else ())
                             + (_AFTER_SALE if after_sale else ()))

    def one(kind: Kind, owner_id: str):
        rows = found[kind.name].get(owner_id)
        return rows[0] if rows else None

    for order in orders:
        discounts = found["discount"].get(order.id, [])
        for discount in discounts:
            object.__setattr__(discount, "_rule", one(_RULE, discount.id))
        order.discounts._set_result_for_query(discounts)
        order.gift_cards._set_result_for_query(found["gift_card"].get(order.id, []))
    items = {order_id: found["item"].get(order_id, []) for order_id in order_ids}
    methods = {order_id: found["method"].get(order_id, []) for order_id in order_ids}
    item_ids = [i.id for lines in items.values() for i in lines]
    method_ids = [m.id for shipped in methods.values() for m in shipped]
    for shipped in methods.values():
        for method in shipped:
            object.__setattr__(method, "_shipping_option", one(_OPTION, method.id))
    if line_detail:
        for lines in items.values():
            for item in lines:
                variant = one(_VARIANT, item.id)
                object.__setattr__(item, "_variant", variant)
                if variant is not None:
                    product = one(_PRODUCT, item.id)
                    object.__setattr__(variant, "_product", product)
                    if product is not None:
                        object.__setattr__(product, "_profile", one(_PROFILE, item.id))
    transactions = {order_id: found["transaction"].get(order_id, []) for order_id in order_ids}
    for given in transactions.values():
        for transaction in given:
            object.__setattr__(transaction, "_gift_card", one(_CARD, transaction.id))
    return OrderRows(
        items=items, shipping_methods=methods,
        adjustments={item_id: found["adjustment"].get(item_id, []) for item_id in item_ids},
        item_tax_lines={item_id: found["item_tax"].get(item_id, []) for item_id in item_ids},
        method_tax_lines={method_id: found["method_tax"].get(method_id, []) for method_id in method_ids},
        transactions=transactions,
        payments={order_id: found["payment"].get(order_id, []) for order_id in order_ids},
        after_sale={kind.name: found[kind.name] for kind in _AFTER_SALE} if after_sale else {},
    )
