"""The /admin interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.admin import (
    analytics_configs, apps, auth, batch_jobs, collections, currencies, customer_groups, customers, discounts,
    draft_orders, gift_cards, invites, notes, notifications, order_claims, order_edits, order_swaps, orders, price_lists,
    inventory_items, product_categories, product_values, product_variants, product_writes, products, publishable_api_keys, regions,
    reservations, return_reasons, returns, sales_channels, shipping_options, shipping_profiles, stock_locations, store, swaps, tax_rates, uploads,
    users, variants, webhooks,
)

__all__ = ["admin", "inventory_admin"]

admin = Blueprint.group(
    analytics_configs.bp, apps.bp, auth.bp, batch_jobs.bp, collections.bp, currencies.bp, customer_groups.bp,
    customers.bp, discounts.bp, draft_orders.bp, gift_cards.bp, invites.bp, notes.bp, notifications.bp,
    order_claims.bp, order_edits.bp, order_swaps.bp, orders.bp, price_lists.bp, product_categories.bp, product_values.bp,
    product_variants.bp, product_writes.bp, products.bp, publishable_api_keys.bp, regions.bp, return_reasons.bp,
    returns.bp, sales_channels.bp, shipping_options.bp, shipping_profiles.bp, store.bp, swaps.bp, tax_rates.bp, uploads.bp,
    users.bp, variants.bp, webhooks.bp,
    url_prefix="/admin",
)

# Medusa's inventory and stock-location modules: registered only with INVENTORY_LOCATIONS on.
inventory_admin = Blueprint.group(inventory_items.bp, reservations.bp, stock_locations.bp, url_prefix="/admin")
