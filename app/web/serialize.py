"""Turning loaded entities into Medusa v1's JSON: the public columns of each model, the
relations that were asked for (already prefetched), and nothing else (no password hashes)."""

from __future__ import annotations

from typing import Any, Callable

from tortoise.fields.relational import ManyToManyRelation, ReverseRelation
from tortoise.models import Model

from models import (
    Address, AnalyticsConfig, BatchJob, ClaimImage, ClaimItem, ClaimOrder, ClaimTag, Country, Currency, Customer, CustomerGroup,
    Discount, DiscountCondition, DiscountRule,
    Fulfillment, FulfillmentItem, FulfillmentProvider, GiftCard, Image, Invite, MoneyAmount, Note,
    OAuthApp, PriceList, PublishableApiKey, Refund, Return, ReturnItem, ReturnReason, TrackingLink,
    Cart, LineItem, LineItemAdjustment, LineItemTaxLine, PaymentSession, ShippingMethod, ShippingMethodTaxLine,
    ShippingOption, ShippingOptionRequirement, TaxRate, Swap, CustomShippingOption,
    PaymentProvider, Product, ProductCategory, ProductCollection, ProductOption, ProductOptionValue, ProductTag,
    ProductType, ProductVariant, Region, SalesChannel, ShippingProfile, TaxProvider, User,
    InventoryItem, InventoryLevel, ReservationItem, StockLocation, StockLocationAddress,
)

__all__ = ["COLUMNS", "dump", "dump_many", "relation_tree"]

_TS = ("created_at", "updated_at", "deleted_at")
_ENTITY = ("metadata",) + _TS

# The columns each resource shows, in Medusa v1's order. One table for the whole API.
COLUMNS: dict[type[Model], tuple[str, ...]] = {
    User: ("id", "email", "first_name", "last_name", "role", "api_token") + _ENTITY,
    AnalyticsConfig: ("id", "user_id", "opt_out", "anonymize", "created_at", "updated_at", "deleted_at"),
    Invite: ("id", "user_email", "role", "accepted", "expires_at") + _ENTITY,  # + its token (app/admin/invites.py)
    BatchJob: (
        "id", "type", "created_by", "context", "result", "dry_run", "created_at", "updated_at", "deleted_at",
        "pre_processed_at", "processing_at", "confirmed_at", "completed_at", "canceled_at", "failed_at",
    ),
    Customer: (
        "id", "email", "first_name", "last_name", "billing_address_id", "phone", "has_account",
    ) + _ENTITY,
    Address: (
        "id", "customer_id", "company", "first_name", "last_name", "address_1", "address_2", "city",
        "country_code", "province", "postal_code", "phone",
    ) + _ENTITY,
    CustomerGroup: ("id", "name") + _ENTITY,
    Discount: (
        "id", "code", "is_dynamic", "is_disabled", "rule_id", "parent_discount_id", "usage_limit", "usage_count",
        "starts_at", "ends_at", "created_at", "updated_at", "deleted_at", "metadata", "valid_duration",
    ),
    DiscountRule: ("id", "description", "type", "value", "allocation") + _ENTITY,
    DiscountCondition: ("id", "type", "operator", "discount_rule_id") + _ENTITY,
    Currency: ("code", "symbol", "symbol_native", "name", "includes_tax"),
    OAuthApp: ("id", "display_name", "application_name", "install_url", "uninstall_url", "data"),
    GiftCard: (
        "id", "code", "value", "balance", "region_id", "order_id", "is_disabled", "ends_at", "tax_rate",
    ) + _ENTITY,
    Country: ("id", "iso_2", "iso_3", "num_code", "name", "display_name", "region_id"),
    PaymentProvider: ("id", "is_installed"),
    FulfillmentProvider: ("id", "is_installed"),
    TaxProvider: ("id", "is_installed"),
    Region: (
        "id", "name", "currency_code", "tax_rate", "tax_code", "gift_cards_taxable", "automatic_taxes",
        "tax_provider_id", "metadata", "includes_tax",
    ) + _TS,
    ProductCollection: ("id", "title", "handle") + _ENTITY,
    # Medusa v1's default category columns: categories are hard-deleted, so no `deleted_at`.
    ProductCategory: (
        "id", "name", "description", "handle", "is_active", "is_internal", "rank", "parent_category_id",
        "created_at", "updated_at", "metadata",
    ),
    ProductTag: ("id", "value") + _ENTITY,
    ProductType: ("id", "value") + _ENTITY,
    Image: ("id", "url") + _ENTITY,
    SalesChannel: ("id", "name", "description", "is_disabled") + _ENTITY,
    PublishableApiKey: ("id", "title", "created_by", "revoked_by", "revoked_at", "created_at", "updated_at"),
    ShippingProfile: ("id", "name", "type") + _ENTITY,
    Product: (
        "id", "title", "subtitle", "status", "external_id", "description", "handle", "is_giftcard",
        "discountable", "thumbnail", "collection_id", "type_id", "weight", "length", "height", "width",
        "hs_code", "origin_country", "mid_code", "material", "created_at", "updated_at", "deleted_at",
        "metadata", "profile_id",
    ),
    ProductOption: ("id", "title", "product_id") + _ENTITY,
    ProductOptionValue: ("id", "value", "option_id", "variant_id") + _ENTITY,
    ProductVariant: (
        "id", "title", "product_id", "sku", "barcode", "ean", "upc", "variant_rank", "inventory_quantity",
        "allow_backorder", "manage_inventory", "hs_code", "origin_country", "mid_code", "material",
        "weight", "length", "height", "width",
    ) + _ENTITY,
    MoneyAmount: (
        "id", "currency_code", "amount", "min_quantity", "max_quantity", "price_list_id", "region_id",
        "created_at", "updated_at", "deleted_at", "variant_id",
    ),
    # Carts. Swaps, claims, returns and order edits do not exist here:
    # their keys are shown, always null, because Medusa's clients expect them.
    Cart: (
        "id", "email", "billing_address_id", "shipping_address_id", "region_id", "customer_id", "payment_id",
        "type", "completed_at", "payment_authorized_at", "idempotency_key", "context", "metadata",
        "sales_channel_id", "created_at", "updated_at", "deleted_at",
    ),
    LineItem: (
        "id", "cart_id", "order_id", "swap_id", "claim_order_id", "original_item_id", "order_edit_id", "title",
        "description", "thumbnail", "is_return", "is_giftcard", "should_merge", "allow_discounts", "has_shipping",
        "unit_price", "variant_id", "quantity", "fulfilled_quantity", "returned_quantity", "shipped_quantity",
        "metadata", "created_at", "updated_at", "includes_tax",
    ),
    LineItemAdjustment: ("id", "item_id", "description", "discount_id", "amount", "metadata"),
    LineItemTaxLine: ("id", "rate", "name", "code", "created_at", "updated_at", "metadata", "item_id"),
    ShippingMethod: (
        "id", "shipping_option_id", "order_id", "claim_order_id", "cart_id", "swap_id", "return_id", "price", "data",
        "includes_tax",
    ),
    ShippingMethodTaxLine: (
        "id", "rate", "name", "code", "created_at", "updated_at", "metadata", "shipping_method_id",
    ),
    PaymentSession: (
        "id", "cart_id", "provider_id", "is_selected", "is_initiated", "status", "data", "created_at", "updated_at",
        "idempotency_key", "payment_authorized_at", "amount",
    ),
    ShippingOption: (
        "id", "name", "region_id", "profile_id", "provider_id", "price_type", "amount", "is_return", "admin_only",
        "data", "metadata", "created_at", "updated_at", "deleted_at", "includes_tax",
    ),
    ShippingOptionRequirement: ("id", "shipping_option_id", "type", "amount", "deleted_at"),
    TaxRate: ("id", "rate", "code", "name", "region_id", "created_at", "updated_at", "metadata"),
    ReturnReason: ("id", "value", "label", "parent_return_reason_id", "description") + _ENTITY,
    Note: ("id", "resource_type", "resource_id", "value", "author_id") + _ENTITY,
    # After the sale.
    Fulfillment: (
        "id", "swap_id", "claim_order_id", "order_id", "provider_id", "location_id", "tracking_numbers", "data",
        "shipped_at", "no_notification", "canceled_at", "idempotency_key",
    ) + _ENTITY[:-1],
    FulfillmentItem: ("fulfillment_id", "item_id", "quantity"),
    TrackingLink: ("id", "url", "tracking_number", "fulfillment_id", "idempotency_key") + _ENTITY,
    Return: (
        "id", "status", "swap_id", "claim_order_id", "order_id", "shipping_data", "location_id", "refund_amount",
        "no_notification", "idempotency_key", "received_at",
    ) + _ENTITY[:-1],
    ReturnItem: (
        "return_id", "item_id", "quantity", "is_requested", "requested_quantity", "received_quantity", "reason_id",
        "note", "metadata",
    ),
    Refund: ("id", "order_id", "payment_id", "amount", "note", "reason", "idempotency_key") + _ENTITY[:-1],
    ClaimOrder: (
        "id", "type", "payment_status", "fulfillment_status", "order_id", "shipping_address_id", "refund_amount",
        "canceled_at", "no_notification", "idempotency_key",
    ) + _ENTITY,
    ClaimItem: ("id", "claim_order_id", "item_id", "variant_id", "reason", "note", "quantity") + _ENTITY,
    ClaimImage: ("id", "claim_item_id", "url") + _ENTITY,
    ClaimTag: ("id", "value") + _ENTITY,
    Swap: (
        "id", "fulfillment_status", "payment_status", "order_id", "difference_due", "shipping_address_id", "cart_id",
        "confirmed_at", "canceled_at", "no_notification", "allow_backorder", "idempotency_key",
    ) + _ENTITY,
    CustomShippingOption: ("id", "price", "shipping_option_id", "cart_id") + _ENTITY,
    PriceList: ("id", "name", "description", "type", "status", "starts_at", "ends_at", "includes_tax") + _TS,
    # Medusa's inventory and stock-location modules: their routes' default fields.
    StockLocation: ("id", "name", "address_id", "metadata", "created_at", "updated_at"),
    StockLocationAddress: (
        "id", "address_1", "address_2", "company", "city", "country_code", "phone", "province", "postal_code",
    ) + _ENTITY,
    InventoryItem: (
        "id", "sku", "title", "description", "thumbnail", "origin_country", "hs_code", "requires_shipping",
        "mid_code", "material", "weight", "length", "height", "width", "metadata", "created_at", "updated_at",
    ),
    InventoryLevel: (
        "id", "inventory_item_id", "location_id", "stocked_quantity", "reserved_quantity", "incoming_quantity",
        "metadata", "created_at", "updated_at",
    ),
    ReservationItem: (
        "id", "location_id", "inventory_item_id", "quantity", "line_item_id", "description", "created_by",
        "metadata", "created_at", "updated_at",
    ),
}

# Relations stored under another attribute, and those that the API shows as a list.
ALIASES: dict[str, str] = {"profiles": "profile"}
_AS_LIST = {"profiles"}
# Keys that Medusa shows on a resource whatever is loaded: an API token is never echoed.
_MASKED = {User: {"api_token": None}}


def relation_tree(relations: tuple[str, ...]) -> dict[str, dict]:
    tree: dict[str, dict] = {}
    for path in relations:
        node = tree
        for part in path.split("."):
            node = node.setdefault(part, {})
    return tree


def dump(
    obj: Model | None, relations: dict[str, dict] | None = None, fields: frozenset[str] | None = None,
    extra: Callable[[Model, dict], None] | None = None,
) -> dict[str, Any] | None:
    """`obj` as a dict: its columns (only `fields` when given), then each loaded relation."""
    if obj is None:
        return None
    columns = COLUMNS[type(obj)]
    get = obj.__dict__.get
    if fields is None:
        out = {c: get(c) for c in columns}
    else:
        out = {c: get(c) for c in columns if c in fields}
    for key, value in _MASKED.get(type(obj), {}).items():
        if key in out:
            out[key] = value
    for name, sub in (relations or {}).items():
        out[name] = _related(obj, name, sub, extra)
    if extra is not None:
        extra(obj, out)
    return out


def _related(obj: Model, name: str, sub: dict, extra) -> Any:
    value = getattr(obj, ALIASES.get(name, name))
    if isinstance(value, (ReverseRelation, ManyToManyRelation)):
        return [dump(o, sub, None, extra) for o in value.related_objects]
    if isinstance(value, Model) or value is None:
        item = dump(value, sub, None, extra)
        return ([item] if item else []) if name in _AS_LIST else item
    return [] if name in _AS_LIST else None  # declared but not loaded: nothing to show


def dump_many(rows: list[Model], relations: tuple[str, ...], fields: frozenset[str] | None = None, extra=None) -> list:
    tree = relation_tree(relations)
    return [dump(r, tree, fields, extra) for r in rows]
