"""Medusa v1's own schema (1.8 to 1.20), known by name: which of a source's tables and columns are
Medusa's (so the report never calls them a plugin's), and the check, run before anything is
written, that the source holds every table and column the move reads.

`MEDUSA_1_20` lists the tables and columns that Medusa 1.20.11's own migrations
(packages/medusa/src/migrations) make with its default feature flags, as read from a database it
made; `OPTIONAL` adds those some supported databases have and others lack: a feature flag's
(`tax_inclusive_pricing` and `medusa_v2` default off, `sales_channels` and `analytics` on) and a
version's (added after 1.8.0's last migration, or dropped before 1.20). A table the move copies
must hold every column of the list but the optional ones and those its entity drops.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MEDUSA_1_20", "OPTIONAL", "missing", "is_medusas"]


def _tables(listing: str) -> dict[str, frozenset[str]]:
    tables: dict[str, frozenset[str]] = {}
    for entry in listing.replace("\n    ", " ").strip().splitlines():
        table, columns = entry.split(": ")
        tables[table] = frozenset(columns.split())
    return tables


MEDUSA_1_20 = _tables("""
address: id customer_id company first_name last_name address_1 address_2 city country_code province
    postal_code phone created_at updated_at deleted_at metadata
analytics_config: id created_at updated_at deleted_at user_id opt_out anonymize
batch_job: id type created_by context result dry_run created_at pre_processed_at confirmed_at processing_at
    completed_at failed_at canceled_at updated_at deleted_at
cart: id email billing_address_id shipping_address_id region_id customer_id payment_id type completed_at
    created_at updated_at deleted_at metadata idempotency_key context payment_authorized_at sales_channel_id
cart_discounts: cart_id discount_id
cart_gift_cards: cart_id gift_card_id
claim_image: id claim_item_id url created_at updated_at deleted_at metadata
claim_item: id claim_order_id item_id variant_id reason note quantity created_at updated_at deleted_at
    metadata
claim_item_tags: item_id tag_id
claim_order: id payment_status fulfillment_status type order_id shipping_address_id refund_amount
    canceled_at created_at updated_at deleted_at metadata idempotency_key no_notification
claim_tag: id value created_at updated_at deleted_at metadata
country: id iso_2 iso_3 num_code name display_name region_id
currency: code symbol symbol_native name
custom_shipping_option: id price shipping_option_id cart_id created_at updated_at deleted_at metadata
customer: id email first_name last_name billing_address_id password_hash phone has_account created_at
    updated_at deleted_at metadata
customer_group: id name created_at updated_at deleted_at metadata
customer_group_customers: customer_group_id customer_id
discount: id code is_dynamic rule_id is_disabled parent_discount_id starts_at ends_at created_at updated_at
    deleted_at metadata usage_limit usage_count valid_duration
discount_condition: id type operator discount_rule_id created_at updated_at deleted_at metadata
discount_condition_customer_group: customer_group_id condition_id created_at updated_at metadata
discount_condition_product: product_id condition_id created_at updated_at metadata
discount_condition_product_collection: product_collection_id condition_id created_at updated_at metadata
discount_condition_product_tag: product_tag_id condition_id created_at updated_at metadata
discount_condition_product_type: product_type_id condition_id created_at updated_at metadata
discount_regions: discount_id region_id
discount_rule: id description type value allocation created_at updated_at deleted_at metadata
discount_rule_products: discount_rule_id product_id
draft_order: id status display_id cart_id order_id canceled_at created_at updated_at completed_at metadata
    idempotency_key no_notification_order
fulfillment: id swap_id order_id tracking_numbers data shipped_at canceled_at created_at updated_at metadata
    idempotency_key provider_id claim_order_id no_notification location_id
fulfillment_item: fulfillment_id item_id quantity
fulfillment_provider: id is_installed
gift_card: id code value balance region_id order_id is_disabled ends_at created_at updated_at deleted_at
    metadata tax_rate
gift_card_transaction: id gift_card_id order_id amount created_at is_taxable tax_rate
idempotency_key: id idempotency_key created_at locked_at request_method request_params request_path
    response_code response_body recovery_point
image: id url created_at updated_at deleted_at metadata
invite: id user_email role accepted created_at updated_at deleted_at metadata token expires_at
line_item: id cart_id order_id swap_id title description thumbnail is_giftcard should_merge allow_discounts
    has_shipping unit_price variant_id quantity fulfilled_quantity returned_quantity shipped_quantity
    created_at updated_at metadata claim_order_id is_return original_item_id order_edit_id
line_item_adjustment: id item_id description discount_id amount metadata
line_item_tax_line: id rate name code created_at updated_at metadata item_id
migrations: id timestamp name
money_amount: id currency_code amount region_id created_at updated_at deleted_at min_quantity max_quantity
    price_list_id
note: id value resource_type resource_id author_id created_at updated_at deleted_at metadata
notification: id event_name resource_type resource_id customer_id to data parent_id provider_id created_at
    updated_at
notification_provider: id is_installed
oauth: id display_name application_name install_url uninstall_url data
order: id status fulfillment_status payment_status display_id cart_id customer_id email billing_address_id
    shipping_address_id region_id currency_code tax_rate canceled_at created_at updated_at metadata
    idempotency_key draft_order_id no_notification external_id sales_channel_id
order_discounts: order_id discount_id
order_edit: id created_at updated_at order_id internal_note created_by requested_by requested_at
    confirmed_by confirmed_at declined_by declined_reason declined_at canceled_by canceled_at
    payment_collection_id
order_gift_cards: order_id gift_card_id
order_item_change: id created_at updated_at deleted_at type order_edit_id original_line_item_id line_item_id
payment: id swap_id cart_id order_id amount currency_code amount_refunded provider_id data captured_at
    canceled_at created_at updated_at metadata idempotency_key
payment_collection: id created_at updated_at deleted_at type status description amount authorized_amount
    region_id currency_code metadata created_by
payment_collection_payments: payment_collection_id payment_id
payment_collection_sessions: payment_collection_id payment_session_id
payment_provider: id is_installed
payment_session: id cart_id provider_id is_selected status data created_at updated_at idempotency_key
    payment_authorized_at amount is_initiated
price_list: id name description type status starts_at ends_at created_at updated_at deleted_at
price_list_customer_groups: price_list_id customer_group_id
product: id title subtitle description handle is_giftcard thumbnail weight length height width hs_code
    origin_country mid_code material created_at updated_at deleted_at metadata collection_id type_id
    discountable status external_id
product_category: id name handle parent_category_id mpath is_active is_internal created_at updated_at rank
    description metadata
product_category_product: product_category_id product_id
product_collection: id title handle created_at updated_at deleted_at metadata
product_images: product_id image_id
product_option: id title created_at updated_at deleted_at metadata product_id
product_option_value: id value option_id variant_id created_at updated_at deleted_at metadata
product_sales_channel: product_id sales_channel_id
product_shipping_profile: profile_id product_id
product_tag: id value created_at updated_at deleted_at metadata
product_tags: product_id product_tag_id
product_tax_rate: product_id rate_id created_at updated_at metadata
product_type: id value created_at updated_at deleted_at metadata
product_type_tax_rate: product_type_id rate_id created_at updated_at metadata
product_variant: id title product_id sku barcode ean upc inventory_quantity allow_backorder manage_inventory
    hs_code origin_country mid_code material weight length height width created_at updated_at deleted_at
    metadata variant_rank
product_variant_inventory_item: id created_at updated_at inventory_item_id variant_id required_quantity
    deleted_at
product_variant_money_amount: id money_amount_id variant_id deleted_at created_at updated_at
publishable_api_key: id created_at updated_at created_by revoked_by revoked_at title
publishable_api_key_sales_channel: sales_channel_id publishable_key_id id created_at updated_at deleted_at
refund: id order_id amount note reason created_at updated_at metadata idempotency_key payment_id
region: id name currency_code tax_rate tax_code created_at updated_at deleted_at metadata gift_cards_taxable
    automatic_taxes tax_provider_id
region_fulfillment_providers: region_id provider_id
region_payment_providers: region_id provider_id
return: id status swap_id order_id shipping_data refund_amount received_at created_at updated_at metadata
    idempotency_key claim_order_id no_notification location_id
return_item: return_id item_id quantity is_requested requested_quantity received_quantity metadata reason_id
    note
return_reason: id value label description created_at updated_at deleted_at metadata parent_return_reason_id
sales_channel: id created_at updated_at deleted_at name description is_disabled metadata
sales_channel_location: id created_at updated_at sales_channel_id location_id deleted_at
shipping_method: id shipping_option_id order_id cart_id swap_id return_id price data claim_order_id
shipping_method_tax_line: id rate name code created_at updated_at metadata shipping_method_id
shipping_option: id name region_id profile_id provider_id price_type amount is_return data created_at
    updated_at deleted_at metadata admin_only
shipping_option_requirement: id shipping_option_id type amount deleted_at
shipping_profile: id name type created_at updated_at deleted_at metadata
shipping_tax_rate: shipping_option_id rate_id created_at updated_at metadata
staged_job: id event_name data options
store: id name default_currency_code swap_link_template created_at updated_at metadata payment_link_template
    invite_link_template default_sales_channel_id default_location_id
store_currencies: store_id currency_code
swap: id fulfillment_status payment_status order_id difference_due shipping_address_id cart_id confirmed_at
    created_at updated_at deleted_at metadata idempotency_key no_notification canceled_at allow_backorder
tax_provider: id is_installed
tax_rate: id rate code name region_id created_at updated_at metadata
tracking_link: id url tracking_number fulfillment_id created_at updated_at deleted_at metadata
    idempotency_key
user: id email first_name last_name password_hash api_token created_at updated_at deleted_at metadata role
""")

_SALES_CHANNELS = "the `sales_channels` feature flag's (on by default)"
_TAX_INCLUSIVE = "the `tax_inclusive_pricing` feature flag's (off by default)"
_V2 = "the `medusa_v2` feature flag's (off by default)"

# "table" or "table.column" -> why a supported Medusa database may lack it (or have it).
OPTIONAL: dict[str, str] = {
    "sales_channel": _SALES_CHANNELS, "product_sales_channel": _SALES_CHANNELS,
    "cart.sales_channel_id": _SALES_CHANNELS, "order.sales_channel_id": _SALES_CHANNELS,
    "store.default_sales_channel_id": _SALES_CHANNELS,
    "analytics_config": "the `analytics` feature flag's",
    **{f"{t}.includes_tax": _TAX_INCLUSIVE
       for t in ("currency", "region", "price_list", "shipping_option", "shipping_method", "line_item")},
    "line_item.product_id": _V2, "order_sales_channel": _V2,
    **{f"product_sales_channel.{c}": _V2 for c in ("id", "created_at", "updated_at", "deleted_at")},
    **{f"product_shipping_profile.{c}": _V2 for c in ("created_at", "updated_at", "deleted_at")},
    "sales_channel.metadata": "added in 1.9", "product_category.description": "added in 1.9",
    "product_category.metadata": "added in 1.19",
    "product_shipping_profile": "added in 1.20 (before, the product's own profile_id)",
    "product.profile_id": "moved to product_shipping_profile in 1.20",
    "product_variant_money_amount": "added in 1.17 (before, the price's own variant_id)",
    "money_amount.variant_id": "moved to product_variant_money_amount in 1.17",
    **{f"publishable_api_key_sales_channel.{c}": "added in 1.20" for c in ("id", "created_at", "updated_at", "deleted_at")},
    # Medusa's inventory and stock-location modules (multi-warehouse), installed or not.
    **{t: "Medusa's inventory and stock-location modules'" for t in (
        "stock_location", "stock_location_address", "inventory_item", "inventory_level", "reservation_item")},
}


def is_medusas(table: str, column: str | None = None) -> bool:
    """Whether Medusa 1.8 to 1.20 itself makes this table (or column)."""
    if column is None:
        return table in MEDUSA_1_20 or table in OPTIONAL
    return column in MEDUSA_1_20.get(table, ()) or f"{table}.{column}" in OPTIONAL


def missing(columns: dict[str, list[str]], read: Iterable[tuple[str, Iterable[str]]]) -> list[str]:
    """The tables and columns (as `table.column`) of Medusa's that the move reads and the source
    lacks. `columns`: the source's tables and their columns; `read`: each table the move reads,
    with the Medusa columns of it that it leaves alone."""
    lacking: list[str] = []
    for table, not_read in read:
        if table not in columns:
            if table not in OPTIONAL:
                lacking.append(table)
            continue
        needed = MEDUSA_1_20.get(table, frozenset()) - set(not_read) - set(columns[table])
        lacking += sorted(f"{table}.{c}" for c in needed if f"{table}.{c}" not in OPTIONAL)
    return lacking
