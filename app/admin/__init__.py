"""The /admin interface: one module per area, grouped into one blueprint group."""

from sanic import Blueprint

from app.admin import (
    analytics_configs, apps, auth, batch_jobs, collections, currencies, customer_groups, customers, discounts,
    draft_orders, gift_cards, notes, order_edits, orders, products, regions, return_reasons, shipping_options,
    shipping_profiles, store, tax_rates, uploads, users,
)
from app.admin import publishable_api_keys, sales_channels
from app.admin import product_categories
from app.admin import product_values
from app.admin import notifications
from app.admin import price_lists
from app.admin import product_variants, product_writes
from app.admin import invites

__all__ = ["admin"]

admin = Blueprint.group(
    analytics_configs.bp, auth.bp, apps.bp, batch_jobs.bp, collections.bp, currencies.bp, customer_groups.bp,
    customers.bp, discounts.bp, draft_orders.bp, gift_cards.bp, notes.bp, order_edits.bp, orders.bp, products.bp,
    regions.bp, return_reasons.bp, shipping_options.bp, shipping_profiles.bp, store.bp, tax_rates.bp, uploads.bp,
    users.bp,
    publishable_api_keys.bp, sales_channels.bp,
    product_categories.bp,
    product_values.bp,
    notifications.bp,
    price_lists.bp,
    product_writes.bp, product_variants.bp,
    invites.bp,
    url_prefix="/admin",
)
