"""Entity ids: Medusa v1's prefix followed by a ULID, from one table."""

from ulid import ULID

__all__ = ["PREFIXES", "new_id"]

# One source of truth for the prefixes.
PREFIXES = {
    "store": "store",
    "user": "usr",
    "oauth": "oauth",
    "batch_job": "batch",
    "product_collection": "pcol",
    "customer": "cus",
    "customer_group": "cgrp",
    "address": "addr",
    "region": "reg",
    "tax_rate": "txr",
    "product": "prod",
    "product_variant": "variant",
    "product_option": "opt",
    "product_option_value": "optval",
    "money_amount": "ma",
    "image": "img",
    "product_tag": "ptag",
    "product_type": "ptyp",
    "sales_channel": "sc",
    "shipping_profile": "sp",
    "shipping_option": "so",
    "shipping_option_requirement": "sor",
    "job": "job",
    "idempotency_key": "ikey",
    "discount": "disc",
    "discount_rule": "dru",
    "discount_condition": "discon",
    "cart": "cart",
    "line_item": "item",
    "line_item_adjustment": "lia",
    "line_item_tax_line": "litl",
    "shipping_method": "sm",
    "shipping_method_tax_line": "smtl",
    "payment_session": "ps",
    "return_reason": "rr",
    "note": "note",
    "analytics_config": "acfg",
    "invite": "invite",
    "publishable_api_key": "pk",
    "product_category": "pcat",
    "price_list": "pl",
    "fulfillment": "ful",
    "tracking_link": "tlink",
    "return": "ret",
    "refund": "ref",
    "claim_order": "claim",
    "claim_item": "citm",
    "claim_image": "cimg",
    "claim_tag": "ctag",
    "stock_location": "sloc",
    "stock_location_address": "laddr",
    "inventory_item": "iitem",
    "inventory_level": "ilev",
    "reservation_item": "resitem",
    "product_variant_inventory_item": "pvitem",
    "sales_channel_location": "scloc",
}


def new_id(prefix: str) -> str:
    return f"{prefix}_{ULID()}"
