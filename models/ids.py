"""Entity ids: Medusa v1's prefix followed by a ULID, from one table."""

import os
import time

from ulid import ULID

__all__ = ["PREFIXES", "new_id", "new_ids"]

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


# A ULID's text: 26 of Crockford's base-32 digits for 130 bits (two zero bits, then the 128),
# written here two digits (10 bits) at a time from a table.
_DIGITS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_PAIRS = [a + b for a in _DIGITS for b in _DIGITS]
_SHIFTS = range(120, -1, -10)
_RANDOM_BITS = 80


def _ulid_text(value: int) -> str:
    return "".join([_PAIRS[(value >> shift) & 1023] for shift in _SHIFTS])


def new_ids(prefix: str, count: int) -> list[str]:
    """`count` new ids at once, for a bulk write: ULIDs of this millisecond whose random parts
    follow each other from one random start, as ULID's own generator makes those of one
    millisecond (so they sort in the order given). About a fifth of the time `new_id` takes an id:
    the library writes each ULID's text digit by digit."""
    ms = time.time_ns() // 1_000_000
    start = int.from_bytes(os.urandom(_RANDOM_BITS // 8), "big") % ((1 << _RANDOM_BITS) - count)
    first = ms << _RANDOM_BITS | start
    return [f"{prefix}_{_ulid_text(first + n)}" for n in range(count)]
