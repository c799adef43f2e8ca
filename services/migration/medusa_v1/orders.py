"""What is copied of the shop's trade: discounts, gift cards, recent carts, and orders with
everything below them. Completed carts come with their orders (their lines are the orders' lines);
other carts only when touched within `--carts-days`."""

from __future__ import annotations

import hashlib

from models import (
    Cart, ClaimImage, ClaimItem, ClaimOrder, ClaimTag, CustomShippingOption, Discount, DiscountCondition,
    DiscountRule, DraftOrder, Fulfillment, FulfillmentItem, GiftCard, GiftCardTransaction, LineItem,
    LineItemAdjustment, LineItemTaxLine, Note, Notification, Order, OrderEdit, OrderItemChange, Payment,
    PaymentCollection, PaymentSession, Refund, Return, ReturnItem, ShippingMethod, ShippingMethodTaxLine, Swap,
    TrackingLink,
)
from services.migration.medusa_v1.adjustments import adjustments_select
from services.migration.medusa_v1.entities import Entity, link

__all__ = ["trade_entities", "CART_FILTER"]

# A cart comes along when an order, swap or draft order was made from it, or when it was touched
# within the last `{days}` days (a shopper's open cart survives the switch). Written with EXISTS
# (an index probe per row): an `IN (subquery)` under an OR became a plan that read every cart once
# per row once the carts no longer fitted in `work_mem` (a scaled shop's payments took minutes).
CART_FILTER = (
    "(c.updated_at >= now() - make_interval(days => {days}) "
    'OR EXISTS (SELECT 1 FROM "order" o WHERE o.cart_id = c.id) '
    "OR EXISTS (SELECT 1 FROM swap s WHERE s.cart_id = c.id) "
    "OR EXISTS (SELECT 1 FROM draft_order d WHERE d.cart_id = c.id))"
)


def _pair_id(prefix: str, *parts: str) -> str:
    # Medusa keys these rows by the pair they join; ours carry an id, the same on every run.
    return f"{prefix}_" + hashlib.sha256("/".join(parts).encode()).hexdigest()[:26].upper()


def trade_entities(carts_days: int) -> tuple[Entity, ...]:
    carts = CART_FILTER.format(days=int(carts_days))
    old_carts = f"carts not touched within {carts_days} days and never ordered"

    def kept(column: str) -> str:
        return f"EXISTS (SELECT 1 FROM cart c WHERE c.id = {column} AND {carts})"

    def of_kept_carts(table: str) -> callable:
        return lambda source: (f'SELECT t.* FROM "{table}" t WHERE t.cart_id IS NULL OR {kept("t.cart_id")} ORDER BY t.id')

    def items_of_kept(table: str) -> callable:
        return lambda source: (f'SELECT t.* FROM "{table}" t JOIN line_item li ON li.id = t.item_id '
                               f"WHERE li.cart_id IS NULL OR {kept('li.cart_id')} ORDER BY t.id")

    def payments(source) -> str:
        chosen = f"(p.cart_id IS NULL OR p.order_id IS NOT NULL OR p.swap_id IS NOT NULL OR {kept('p.cart_id')})"
        if source.has("payment_collection_payments"):
            return ("SELECT p.*, pcp.payment_collection_id FROM payment p LEFT JOIN payment_collection_payments pcp "
                    f"ON pcp.payment_id = p.id WHERE {chosen} ORDER BY p.id")
        return f"SELECT p.* FROM payment p WHERE {chosen} ORDER BY p.id"

    return (
        Entity("discount rules", "discount_rule", DiscountRule),
        Entity("discount conditions", "discount_condition", DiscountCondition),
        link("condition products", "discount_condition_product", "condition_id", "product_id"),
        link("condition product types", "discount_condition_product_type", "condition_id", "product_type_id"),
        link("condition product tags", "discount_condition_product_tag", "condition_id", "product_tag_id"),
        link("condition collections", "discount_condition_product_collection", "condition_id", "product_collection_id"),
        link("condition customer groups", "discount_condition_customer_group", "condition_id", "customer_group_id"),
        Entity("discounts", "discount", Discount,
               select=lambda source: "SELECT * FROM discount ORDER BY parent_discount_id NULLS FIRST, id"),
        link("discount regions", "discount_regions", "discount_id", "region_id"),
        Entity("gift cards", "gift_card", GiftCard),
        Entity("carts", "cart", Cart, skipped_by_design=old_carts,
               select=lambda source: f"SELECT c.* FROM cart c WHERE {carts} ORDER BY c.id"),
        link("cart discounts", "cart_discounts", "cart_id", "discount_id", kept_by=kept("cart_discounts.cart_id")),
        link("cart gift cards", "cart_gift_cards", "cart_id", "gift_card_id", kept_by=kept("cart_gift_cards.cart_id")),
        Entity("orders", "order", Order),
        link("order discounts", "order_discounts", "order_id", "discount_id"),
        link("order gift cards", "order_gift_cards", "order_id", "gift_card_id"),
        Entity("draft orders", "draft_order", DraftOrder),
        Entity("payment collections", "payment_collection", PaymentCollection),
        Entity("payments", "payment", Payment, select=payments, adds=("payment_collection_id",),
               skipped_by_design=old_carts),
        Entity("payment sessions", "payment_session", PaymentSession, select=of_kept_carts("payment_session"),
               skipped_by_design=old_carts, prune=True),
        Entity("swaps", "swap", Swap),
        Entity("claims", "claim_order", ClaimOrder),
        Entity("returns", "return", Return),
        Entity("order edits", "order_edit", OrderEdit),
        Entity("line items", "line_item", LineItem, select=of_kept_carts("line_item"), skipped_by_design=old_carts, prune=True,
               dropped={"product_id": "a line's product is its variant's (Medusa's v2 flag keeps it on the line too)"}),
        # Medusa's fractions of a discount, in whole units as its totals read them (adjustments.py).
        Entity("line item adjustments", "line_item_adjustment", LineItemAdjustment,
               select=lambda source: adjustments_select(f"li.cart_id IS NULL OR {kept('li.cart_id')}"),
               adds=("line_subtotal", "whole", "whole_amount"), derive={"amount": lambda row: row["whole_amount"]},
               skipped_by_design=old_carts, prune=True),
        Entity("line item tax lines", "line_item_tax_line", LineItemTaxLine,
               select=items_of_kept("line_item_tax_line"), skipped_by_design=old_carts, prune=True),
        Entity("shipping methods", "shipping_method", ShippingMethod, select=of_kept_carts("shipping_method"),
               skipped_by_design=old_carts, prune=True),
        Entity("shipping method tax lines", "shipping_method_tax_line", ShippingMethodTaxLine,
               select=lambda source: ("SELECT t.* FROM shipping_method_tax_line t JOIN shipping_method sm "
                                      f"ON sm.id = t.shipping_method_id WHERE sm.cart_id IS NULL OR {kept('sm.cart_id')} "
                                      "ORDER BY t.id"),
               skipped_by_design=old_carts, prune=True),
        Entity("custom shipping options", "custom_shipping_option", CustomShippingOption,
               select=of_kept_carts("custom_shipping_option"), skipped_by_design=old_carts, prune=True),
        Entity("claim items", "claim_item", ClaimItem),
        Entity("claim images", "claim_image", ClaimImage),
        Entity("claim tags", "claim_tag", ClaimTag),
        link("claim item tags", "claim_item_tags", "item_id", "tag_id"),
        Entity("return items", "return_item", ReturnItem, key=("return_id", "item_id"),
               select=lambda source: "SELECT * FROM return_item ORDER BY return_id, item_id",
               derive={"id": lambda row: _pair_id("reti", row["return_id"], row["item_id"])}),
        Entity("fulfillments", "fulfillment", Fulfillment),
        Entity("fulfillment items", "fulfillment_item", FulfillmentItem, key=("fulfillment_id", "item_id"),
               select=lambda source: "SELECT * FROM fulfillment_item ORDER BY fulfillment_id, item_id",
               derive={"id": lambda row: _pair_id("fuli", row["fulfillment_id"], row["item_id"])}),
        Entity("tracking links", "tracking_link", TrackingLink),
        Entity("refunds", "refund", Refund),
        Entity("gift card transactions", "gift_card_transaction", GiftCardTransaction),
        Entity("order item changes", "order_item_change", OrderItemChange),
        Entity("notes", "note", Note),
        Entity("notifications", "notification", Notification,
               select=lambda source: "SELECT * FROM notification ORDER BY parent_id NULLS FIRST, id"),
    )
