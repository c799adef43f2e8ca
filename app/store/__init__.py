"""The /store interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.store import (
    auth, cart_completion, cart_payments, carts, collections, customer_orders, customers, gift_cards, order_claims,
    order_edits, orders, payment_collections, products, regions, return_reasons, shipping_options,
)
from app.store import product_categories
from app.store import product_values

__all__ = ["store"]

store = Blueprint.group(
    auth.bp, regions.bp, products.bp, collections.bp, gift_cards.bp, carts.bp, cart_completion.bp,
    cart_payments.bp, shipping_options.bp, orders.bp, customer_orders.bp, customers.bp, order_claims.bp,
    order_edits.bp, payment_collections.bp, return_reasons.bp,
    product_categories.bp,
    product_values.bp,
    url_prefix="/store",
)
