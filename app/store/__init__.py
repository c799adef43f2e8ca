"""The /store interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.store import (
    auth, cart_completion, cart_payments, carts, collections, customer_orders, customers, gift_cards, order_claims,
    order_edits, orders, payment_collections, product_categories, product_values, products, regions, return_reasons,
    returns, shipping_options, swaps,
)

__all__ = ["store"]

store = Blueprint.group(
    auth.bp, cart_completion.bp, cart_payments.bp, carts.bp, collections.bp, customer_orders.bp, customers.bp,
    gift_cards.bp, order_claims.bp, order_edits.bp, orders.bp, payment_collections.bp, product_categories.bp,
    product_values.bp, products.bp, regions.bp, return_reasons.bp, returns.bp, shipping_options.bp, swaps.bp,
    url_prefix="/store",
)
