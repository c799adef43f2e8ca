"""What a discount is worth to a cart: whether a code may be used, which lines it reaches, how
much each line gets, and the redemption that counts a use. Carts and orders call this; it knows
nothing of HTTP.

Money is integer minor units throughout. A percentage is taken of each line and rounded there,
as Medusa v1 rounds it; a fixed amount is decided whole first and then spread over the lines in whole
units that always add up to the whole exactly, each line's chosen to keep the tax Medusa takes on
its fractional share (`whole_shares`). A line whose price includes
its tax is discounted on its price without that tax (Medusa 1.20's tax-inclusive pricing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fractions import Fraction

from tortoise.expressions import F, Q

from models import Discount, DiscountCondition
from services.core.errors import DomainError, InvalidData, NotAllowed, NotFound

__all__ = [
    "Condition", "Offer", "Shopper", "Line", "offer_of", "load_offers", "refusal", "check_offer",
    "applies_to", "allocate", "largest_remainder", "whole_shares", "frees_shipping", "redeem",
]

PRODUCT_CONDITIONS = ("products", "product_types", "product_collections", "product_tags")


@dataclass(frozen=True)
class Condition:
    type: str  # models.discount.CONDITION_TYPES
    operator: str  # "in" | "not_in"
    ids: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Offer:
    """A discount as the engine sees it: its rule, its conditions and where and when it holds."""

    id: str
    code: str
    type: str  # "fixed" | "percentage" | "free_shipping"
    value: int  # minor units (fixed) or percent (percentage)
    allocation: str | None = "total"  # "total" | "item"
    conditions: tuple[Condition, ...] = ()
    region_ids: frozenset[str] = frozenset()
    usage_limit: int | None = None
    usage_count: int = 0
    starts_at: datetime | None = None
    ends_at: datetime | None = None
    is_disabled: bool = False


@dataclass(frozen=True)
class Shopper:
    """Who is buying, and where."""

    region_id: str
    customer_id: str | None = None
    group_ids: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Line:
    """A cart or order line, with the product facts that conditions look at."""

    id: str
    unit_price: int
    quantity: int
    allow_discounts: bool = True
    product_id: str | None = None  # None: a custom line, which no discount reaches
    product_type_id: str | None = None
    collection_id: str | None = None
    tag_ids: frozenset[str] = field(default_factory=frozenset)
    is_return: bool = False
    held_tax: int = 0  # the tax a tax-inclusive price holds over the line's units
    tax_rates: tuple[float, ...] = ()  # the line's tax rates, to keep its tax where a fixed share is rounded

    @property
    def subtotal(self) -> int:
        """The line's price without the tax it holds: what a discount is taken of."""
        return self.unit_price * self.quantity - self.held_tax


# ---------------------------------------------------------------- loading

def offer_of(discount: Discount, condition_ids: dict[str, frozenset[str]] | None = None) -> Offer:
    """`discount` loaded with `rule`, `rule.conditions`, `regions` and, for a dynamic code,
    `parent_discount.regions` (a child code is valid where its parent is)."""
    rule = discount.rule
    source = discount.parent_discount if discount.parent_discount_id else discount
    ids = condition_ids or {}
    return Offer(
        id=discount.id, code=discount.code, type=rule.type, value=rule.value, allocation=rule.allocation,
        conditions=tuple(
            Condition(c.type, c.operator, ids.get(c.id, frozenset())) for c in rule.conditions.related_objects
        ),
        region_ids=frozenset(r.id for r in source.regions.related_objects) if source is not None else frozenset(),
        usage_limit=discount.usage_limit, usage_count=discount.usage_count, starts_at=discount.starts_at,
        ends_at=discount.ends_at, is_disabled=discount.is_disabled,
    )


async def load_offers(codes: list[str]) -> list[Offer]:
    """The live discounts with these codes (trimmed, any case), in the order asked. Every code
    must exist, once: otherwise a NotFound naming them, as Medusa v1 answers."""
    wanted = [c.strip().upper() for c in codes]
    found = await Discount.filter(code__in=wanted, deleted_at=None).prefetch_related(
        "rule", "rule__conditions", "regions", "parent_discount", "parent_discount__regions",
    )
    if len(found) != len(wanted) or len(set(wanted)) != len(wanted):
        raise NotFound(f"Discounts with code [{', '.join(wanted)}] was not found")
    conditions = [c for d in found for c in d.rule.conditions.related_objects]
    ids = await _condition_ids(conditions)
    by_code = {d.code: offer_of(d, ids) for d in found}
    return [by_code[c] for c in wanted]


async def _condition_ids(conditions: list[DiscountCondition]) -> dict[str, frozenset[str]]:
    """The resource ids of each condition: one query per condition type present, not per condition."""
    by_type: dict[str, list[str]] = {}
    for c in conditions:
        by_type.setdefault(c.type, []).append(c.id)
    out: dict[str, set[str]] = {c.id: set() for c in conditions}
    for kind, ids in by_type.items():
        for condition_id, resource_id in await DiscountCondition.filter(id__in=ids).values_list(
            "id", f"{kind}__id"
        ):
            if resource_id is not None:
                out[condition_id].add(resource_id)
    return {k: frozenset(v) for k, v in out.items()}


# ---------------------------------------------------------------- validity

def refusal(offer: Offer, shopper: Shopper, now: datetime | None = None) -> DomainError | None:
    """Why `offer` cannot be used by `shopper` now, or None. Checked in Medusa v1's order."""
    now = now or datetime.now(timezone.utc)
    code = offer.code
    if offer.usage_limit is not None and offer.usage_count >= offer.usage_limit:
        return NotAllowed(f"Discount {code} has been used maximum allowed times")
    if offer.starts_at is not None and offer.starts_at > now:
        return NotAllowed(f"Discount {code} is not valid yet")
    if offer.ends_at is not None and offer.ends_at < now:
        return NotAllowed(f"Discount {code} is expired")
    if offer.is_disabled:
        return NotAllowed(f"The discount code {code} is disabled")
    groups = [c for c in offer.conditions if c.type == "customer_groups"]
    if groups and shopper.customer_id is None:
        return NotAllowed(f"Discount {code} is only valid for specific customer")
    if shopper.region_id not in offer.region_ids:
        return InvalidData("The discount is not available in current region")
    # Each customer-group condition is judged on its own (Medusa #3163 mixed in other kinds).
    for condition in groups:
        member = bool(condition.ids & shopper.group_ids)
        if member != (condition.operator == "in"):
            return NotAllowed(f"Discount {code} is not valid for customer")
    return None


def check_offer(offer: Offer, shopper: Shopper, now: datetime | None = None) -> None:
    problem = refusal(offer, shopper, now)
    if problem is not None:
        raise problem


# ---------------------------------------------------------------- which lines, how much

def _facts(line: Line, kind: str) -> frozenset[str]:
    if kind == "products":
        return frozenset({line.product_id}) if line.product_id else frozenset()
    if kind == "product_types":
        return frozenset({line.product_type_id}) if line.product_type_id else frozenset()
    if kind == "product_collections":
        return frozenset({line.collection_id}) if line.collection_id else frozenset()
    return line.tag_ids


def applies_to(offer: Offer, line: Line) -> bool:
    """Whether the offer's amount reaches this line: a discountable product line (not a return)
    that passes every product condition of the rule (`in`: one of the ids; `not_in`: none)."""
    if offer.type == "free_shipping" or not line.allow_discounts or line.is_return or line.product_id is None:
        return False
    for condition in offer.conditions:
        if condition.type in PRODUCT_CONDITIONS:
            hit = bool(_facts(line, condition.type) & condition.ids)
            if hit != (condition.operator == "in"):
                return False
    return True


def largest_remainder(whole: int, weights: list[int]) -> list[int]:
    """`whole` split in proportion to `weights` (non-negative integers) into integers that sum to
    `whole` exactly: each part is rounded down, then the units left over go to the largest
    remainders (earlier lines first on a tie)."""
    total = sum(weights)
    if whole <= 0 or total <= 0:
        return [0] * len(weights)
    parts = [whole * w // total for w in weights]
    remainders = [whole * w % total for w in weights]
    left = whole - sum(parts)
    for i in sorted(range(len(weights)), key=lambda i: (-remainders[i], i))[:left]:
        parts[i] += 1
    return parts


def _tax_of(amount: Fraction | int, rates: tuple[float, ...]) -> int:
    """Each rate's tax on `amount`, rounded half up per rate (Medusa's tax lines)."""
    return sum(math.floor(amount * Fraction(str(rate)) / 100 + Fraction(1, 2)) for rate in rates)


def whole_shares(whole: int, lines: list[Line]) -> list[int]:
    """`whole` spread over `lines` in proportion to their subtotals, in whole units that add up
    to `whole`, chosen as the move chooses Medusa's fractional shares
    (services/migration/medusa_v1/adjustments.py): Medusa v1 keeps each share as a fraction,
    shows its `Math.round` and takes the line's tax on the unrounded share. Each line takes its
    share rounded half up, or the other whole number next to it when only that one gives the
    line the tax Medusa takes on the fraction; then, where the lines do not add up to `whole`,
    as many lines as the units missing (or over) take their other neighbour, those whose tax
    stays Medusa's first, then those nearest their fraction, then by id."""
    total = sum(line.subtotal for line in lines)
    if whole <= 0 or total <= 0:
        return [0] * len(lines)
    rows = []
    for line in lines:
        raw = Fraction(whole * line.subtotal, total)
        near = math.floor(raw + Fraction(1, 2))
        other = near + (raw > near) - (raw < near)
        tax_raw = _tax_of(line.subtotal - raw, line.tax_rates)
        keeps_near = _tax_of(line.subtotal - near, line.tax_rates) == tax_raw
        keeps_other = _tax_of(line.subtotal - other, line.tax_rates) == tax_raw
        if keeps_near or not keeps_other:
            units, alternative, keeps = near, other, keeps_other
        else:
            units, alternative, keeps = other, near, keeps_near
        rows.append([units, alternative, keeps, raw, line.id])
    missing = whole - sum(row[0] for row in rows)
    step = (missing > 0) - (missing < 0)
    turns = sorted((row for row in rows if row[1] - row[0] == step),
                   key=lambda row: (not row[2], abs(row[3] - row[1]), row[4]))
    for row in turns[:abs(missing)]:
        row[0] = row[1]
    return [row[0] for row in rows]


def _percent_of(amount: int, percent: int) -> int:
    """`amount / 100 × percent` in double precision, rounded as JavaScript's `Math.round`: Medusa
    v1's arithmetic to the bit, so a product floating point puts just under a half rounds down as
    it does there (410 at 15 % is 61, not 62)."""
    value = amount / 100 * percent
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


def allocate(offer: Offer, lines: list[Line]) -> dict[str, int]:
    """The discount amount of each line it reaches (lines with 0 are left out).

    - percentage: `value`% of each reached line's subtotal, rounded half up per line (Medusa v1's
      `calculateDiscountForLineItem`: `Math.round(price / 100 * value)`);
    - fixed, allocation `item`: `value` per unit on each reached line, capped at the line subtotal;
    - fixed, allocation `total`: the whole is `min(value, reached subtotal)`, spread over the
      reached lines only by `whole_shares` (Medusa v1 weighs lines the conditions exclude too, so
      part of the amount vanishes);
    - free shipping: nothing on lines (see `frees_shipping`).
    No line ever gets more than its subtotal.
    """
    reached = [line for line in lines if applies_to(offer, line)]
    if not reached:
        return {}
    weights = [line.subtotal for line in reached]
    if offer.type == "percentage":
        amounts = [min(_percent_of(weight, offer.value), weight) for weight in weights]
    elif offer.type == "fixed" and offer.allocation == "item":
        amounts = [min(offer.value * line.quantity, line.subtotal) for line in reached]
    elif offer.type == "fixed":
        amounts = whole_shares(min(offer.value, sum(weights)), reached)
    else:
        return {}
    return {line.id: amount for line, amount in zip(reached, amounts) if amount > 0}


def frees_shipping(offers: list[Offer]) -> bool:
    return any(o.type == "free_shipping" for o in offers)


# ---------------------------------------------------------------- redemption

async def redeem(discount_ids: list[str]) -> None:
    """Count one use of each discount, inside the caller's transaction (the one that places the
    order). Each increment is a single conditional UPDATE, so concurrent checkouts cannot take a
    discount past its limit: the one that finds no use left gets a NotAllowed and rolls back."""
    for discount_id in dict.fromkeys(discount_ids):
        counted = await Discount.filter(
            Q(id=discount_id) & (Q(usage_limit=None) | Q(usage_count__lt=F("usage_limit")))
        ).update(usage_count=F("usage_count") + 1)
        if not counted:
            code = await Discount.filter(id=discount_id).values_list("code", flat=True)
            raise NotAllowed(f"Discount {code[0] if code else discount_id} has been used maximum allowed times")
