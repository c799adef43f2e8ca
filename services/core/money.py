"""The bounds of an amount, in one place: money is integer minor units in signed 64-bit
(`BIGINT`) columns, the widest integer orjson writes (docs/architecture.md, "Money"). Prices,
discounts and gift cards are checked against them where they are taken, and cart and order totals
where they are computed (services/carts/totals.py)."""

from __future__ import annotations

__all__ = ["MAX_AMOUNT", "MIN_AMOUNT"]

MAX_AMOUNT = 2**63 - 1  # minor units
MIN_AMOUNT = -(2**63)
