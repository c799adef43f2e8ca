"""The discount engine: validity of a code for a cart, which lines a discount reaches, how much
each line gets (table-driven, plus a property test that the parts always add up to the whole),
and redemption that cannot over-redeem."""

from __future__ import annotations

import math

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from services.discounts.engine import (
    Condition, Line, Offer, Shopper, allocate, applies_to, check_offer, frees_shipping, largest_remainder,
    refusal, whole_shares,
)
from services.core.errors import InvalidData, NotAllowed

NOW = datetime(2026, 11, 22, 12, tzinfo=timezone.utc)
EU = "reg_eu"


def offer(**changes) -> Offer:
    base = dict(id="disc_1", code="TEN", type="percentage", value=10, allocation="total",
                region_ids=frozenset({EU}), starts_at=NOW - timedelta(days=1))
    return Offer(**{**base, **changes})


def line(id: str = "item_1", unit_price: int = 1000, quantity: int = 1, **changes) -> Line:
    return Line(id=id, unit_price=unit_price, quantity=quantity, product_id=changes.pop("product_id", "prod_1"),
                **changes)


GUEST = Shopper(region_id=EU)
MEMBER = Shopper(region_id=EU, customer_id="cus_1", group_ids=frozenset({"cgrp_vip"}))
STRANGER = Shopper(region_id=EU, customer_id="cus_2")


# ---------------------------------------------------------------- validity

@pytest.mark.parametrize("changes, shopper, error, message", [
    ({}, GUEST, None, None),
    ({"usage_limit": 1, "usage_count": 1}, GUEST, NotAllowed, "Discount TEN has been used maximum allowed times"),
    ({"usage_limit": 2, "usage_count": 1}, GUEST, None, None),
    ({"starts_at": NOW + timedelta(seconds=1)}, GUEST, NotAllowed, "Discount TEN is not valid yet"),
    ({"ends_at": NOW - timedelta(seconds=1)}, GUEST, NotAllowed, "Discount TEN is expired"),
    ({"ends_at": NOW + timedelta(days=1)}, GUEST, None, None),
    ({"is_disabled": True}, GUEST, NotAllowed, "The discount code TEN is disabled"),
    ({"region_ids": frozenset({"reg_na"})}, GUEST, InvalidData, "The discount is not available in current region"),
    ({"conditions": (Condition("customer_groups", "in", frozenset({"cgrp_vip"})),)}, GUEST, NotAllowed,
     "Discount TEN is only valid for specific customer"),
    ({"conditions": (Condition("customer_groups", "in", frozenset({"cgrp_vip"})),)}, MEMBER, None, None),
    ({"conditions": (Condition("customer_groups", "in", frozenset({"cgrp_vip"})),)}, STRANGER, NotAllowed,
     "Discount TEN is not valid for customer"),
    ({"conditions": (Condition("customer_groups", "not_in", frozenset({"cgrp_vip"})),)}, MEMBER, NotAllowed,
     "Discount TEN is not valid for customer"),
    ({"conditions": (Condition("customer_groups", "not_in", frozenset({"cgrp_vip"})),)}, STRANGER, None, None),
    # A product condition never refuses a code (it only narrows the lines); Medusa #3163 did.
    ({"conditions": (Condition("products", "in", frozenset({"prod_x"})),)}, STRANGER, None, None),
], ids=[
    "valid", "limit-reached", "limit-left", "not-started", "expired", "ends-later", "disabled", "other-region",
    "group-guest", "group-member", "group-stranger", "not-in-member", "not-in-stranger", "product-condition",
])
def test_validity_of_a_code_for_a_cart(changes, shopper, error, message):
    problem = refusal(offer(**changes), shopper, NOW)
    if error is None:
        assert problem is None
        check_offer(offer(**changes), shopper, NOW)
    else:
        assert type(problem) is error and problem.message == message
        with pytest.raises(error):
            check_offer(offer(**changes), shopper, NOW)


def test_checks_run_in_the_reference_order_usage_limit_first():
    # Used up, not started, expired, disabled and in the wrong region: the usage limit is named.
    everything_wrong = offer(usage_limit=1, usage_count=1, starts_at=NOW + timedelta(days=1),
                             ends_at=NOW - timedelta(days=1), is_disabled=True, region_ids=frozenset())
    assert refusal(everything_wrong, GUEST, NOW).message == "Discount TEN has been used maximum allowed times"
    assert refusal(offer(is_disabled=True, region_ids=frozenset()), GUEST, NOW).message.endswith("is disabled")


def test_guest_refusal_comes_before_the_region_check():
    o = offer(conditions=(Condition("customer_groups", "in", frozenset({"g"})),), region_ids=frozenset())
    assert refusal(o, GUEST, NOW).message == "Discount TEN is only valid for specific customer"
    assert refusal(o, STRANGER, NOW).message == "The discount is not available in current region"


# ---------------------------------------------------------------- applicability

TAGGED = dict(product_id="prod_a", product_type_id="ptyp_a", collection_id="pcol_a",
              tag_ids=frozenset({"ptag_a", "ptag_b"}))


@pytest.mark.parametrize("kind, ids, operator, expected", [
    ("products", {"prod_a"}, "in", True),
    ("products", {"prod_b"}, "in", False),
    ("products", {"prod_a"}, "not_in", False),
    ("products", {"prod_b"}, "not_in", True),
    ("product_types", {"ptyp_a"}, "in", True),
    ("product_types", {"ptyp_b"}, "in", False),
    ("product_types", {"ptyp_a"}, "not_in", False),
    ("product_collections", {"pcol_a"}, "in", True),
    ("product_collections", {"pcol_b"}, "not_in", True),
    ("product_tags", {"ptag_b", "ptag_z"}, "in", True),
    ("product_tags", {"ptag_z"}, "in", False),
    ("product_tags", {"ptag_a"}, "not_in", False),
    ("product_tags", {"ptag_z"}, "not_in", True),
    ("customer_groups", {"cgrp_x"}, "in", True),  # group conditions do not narrow the lines
])
def test_which_lines_a_condition_reaches(kind, ids, operator, expected):
    o = offer(conditions=(Condition(kind, operator, frozenset(ids)),))
    assert applies_to(o, line(**TAGGED)) is expected


def test_every_product_condition_must_pass():
    both = offer(conditions=(Condition("products", "in", frozenset({"prod_a"})),
                             Condition("product_tags", "not_in", frozenset({"ptag_b"}))))
    assert not applies_to(both, line(**TAGGED))
    assert applies_to(both, line(**{**TAGGED, "tag_ids": frozenset({"ptag_a"})}))


def test_a_line_without_the_attribute_fails_in_and_passes_not_in():
    bare = line(product_id="prod_a")
    assert not applies_to(offer(conditions=(Condition("product_collections", "in", frozenset({"pcol_a"})),)), bare)
    assert applies_to(offer(conditions=(Condition("product_collections", "not_in", frozenset({"pcol_a"})),)), bare)


@pytest.mark.parametrize("changes", [
    {"allow_discounts": False}, {"is_return": True}, {"product_id": None},
], ids=["not-discountable", "return", "custom-line"])
def test_lines_no_discount_reaches(changes):
    assert not applies_to(offer(), line(**changes))
    assert allocate(offer(), [line(**changes)]) == {}


# ---------------------------------------------------------------- allocation

@pytest.mark.parametrize("o, lines, expected", [
    # Medusa's tests : 10 % on 2×1000 → 200; fixed-total 100 on 2×1000 → 100;
    # fixed-item 200 on qty 2 → 400; 15 % on 2×1000 → 300; 10 % of 10×800 → 800.
    (offer(value=10), [line(quantity=2)], {"item_1": 200}),
    (offer(type="fixed", value=100), [line(quantity=2)], {"item_1": 100}),
    (offer(type="fixed", value=200, allocation="item"), [line(quantity=2)], {"item_1": 400}),
    (offer(value=15), [line(quantity=2)], {"item_1": 300}),
    (offer(value=10), [line(unit_price=800, quantity=10)], {"item_1": 800}),
    # The EU cart of the reference: 1400 subtotal, 10 % → 140.
    (offer(value=10), [line("a", 1000), line("b", 200, 2)], {"a": 100, "b": 40}),
    # Medusa's fixed 185 over 100 and 1900 gives 9.25 and 175.75; here whole units summing to 185.
    (offer(type="fixed", value=185), [line("a", 100), line("b", 1900)], {"a": 9, "b": 176}),
    # A fixed amount above the subtotal is capped at it.
    (offer(type="fixed", value=5000), [line("a", 1000), line("b", 500)], {"a": 1000, "b": 500}),
    (offer(type="fixed", value=600, allocation="item"), [line("a", 500, 2)], {"a": 1000}),
    # Three equal lines, 100 to spread: 34 + 33 + 33 (the earlier line takes the spare unit).
    (offer(type="fixed", value=100), [line("a", 1000), line("b", 1000), line("c", 1000)], {"a": 34, "b": 33, "c": 33}),
    # Percentage rounds per line as Medusa v1 does: 3 × 5 at 10 % is 3 × round(0.5) = 3, not round(1.5) = 2.
    (offer(value=10), [line("a", 5), line("b", 5), line("c", 5)], {"a": 1, "b": 1, "c": 1}),
    # 12 % of two lines of 1005: 120.6 → 121 each, 242 (once on the sum, 241.2 would give 241).
    (offer(value=12), [line("a", 1005), line("b", 1005)], {"a": 121, "b": 121}),
    # Medusa's double-precision arithmetic: 410 / 100 × 15 is 61.4999…, so 61 (exactly 61.5 → 62).
    (offer(value=15), [line("a", 410)], {"a": 61}),
    (offer(value=15), [line("a", 430)], {"a": 65}),
    (offer(value=100), [line("a", 999, 3)], {"a": 2997}),
    (offer(type="free_shipping", value=0), [line("a", 1000)], {}),
])
def test_allocation_in_minor_units(o, lines, expected):
    assert allocate(o, lines) == expected


def round_like_javascript(value: float) -> int:
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


@pytest.mark.parametrize("o, expected", [
    # 1200 at 20 % included holds 200: discounts are taken of the 1000 without it, as Medusa 1.20 does.
    (offer(value=10), 100),
    (offer(type="fixed", value=5000), 1000),
    (offer(type="fixed", value=300, allocation="item"), 300),
])
def test_a_tax_inclusive_line_is_discounted_without_the_tax_it_holds(o, expected):
    assert allocate(o, [line("a", 1200, held_tax=200)]) == {"a": expected}


def test_fixed_total_is_spread_over_the_reached_lines_only():
    # Medusa v1 weighs the excluded line too, so 2/3 of a 90 discount would vanish; here it all lands.
    o = offer(type="fixed", value=90, conditions=(Condition("products", "in", frozenset({"prod_a"})),))
    lines = [line("a", 1000, product_id="prod_a"), line("b", 2000, product_id="prod_b")]
    assert allocate(o, lines) == {"a": 90}


def test_free_shipping_is_told_apart():
    assert frees_shipping([offer(), offer(type="free_shipping", value=0)])
    assert not frees_shipping([offer()])


@pytest.mark.parametrize("whole, weights, expected", [
    (0, [1, 2], [0, 0]),
    (10, [0, 0], [0, 0]),
    (10, [1, 1, 1], [4, 3, 3]),
    (7, [0, 5, 5], [0, 4, 3]),
    (1, [1, 1000], [0, 1]),
])
def test_largest_remainder(whole, weights, expected):
    assert largest_remainder(whole, weights) == expected


def test_a_fixed_discount_is_spread_in_whole_units_that_keep_medusas_tax_on_its_fractions():
    # Given Medusa's US cart with FIXEDUS: 500 off a Mug (3000), a Tee (2200) and a Poster (650),
    # taxed 8 %: shares 256.41, 188.03 and 55.56, taxed by Medusa on those fractions (219, 161, 48)
    lines = [Line("mug", 1500, 2, product_id="p", tax_rates=(8,)), Line("tee", 2200, 1, product_id="p", tax_rates=(8,)),
             Line("poster", 650, 1, product_id="p", tax_rates=(8,))]
    # When it is spread in whole units
    shares = whole_shares(500, lines)
    # I expect the Mug to take 257 (256 would be taxed 220), the Poster to give the unit back (its
    # tax stays 48), and the whole to be 500
    assert shares == [257, 188, 55]
    assert sum(shares) == 500
    assert [math.floor((line.subtotal - s) * 8 / 100 + 0.5) for line, s in zip(lines, shares)] == [219, 161, 48]
    # and without tax rates, each share rounded with the units made up nearest their fraction
    assert whole_shares(10, [Line(x, 1, 1) for x in "abc"]) == [4, 3, 3]


lines_strategy = st.lists(
    st.tuples(st.integers(0, 10**6), st.integers(1, 50), st.booleans()), min_size=1, max_size=12,
)


@hsettings(max_examples=300, deadline=None)
@given(lines_strategy, st.sampled_from(["fixed-total", "fixed-item", "percentage"]), st.integers(0, 10**7))
def test_allocated_parts_always_sum_to_the_discount_and_never_exceed_a_line(spec, kind, value):
    lines = [Line(f"i{n}", price, qty, allow_discounts=ok, product_id="prod") for n, (price, qty, ok) in
             enumerate(spec)]
    reached = [ln for ln in lines if ln.allow_discounts]
    subtotal = sum(ln.subtotal for ln in reached)
    if kind == "percentage":
        value %= 101
        o = offer(type="percentage", value=value)
        whole = sum(round_like_javascript(ln.subtotal / 100 * value) for ln in reached)
    elif kind == "fixed-item":
        o = offer(type="fixed", value=value, allocation="item")
        whole = sum(min(value * ln.quantity, ln.subtotal) for ln in reached)
    else:
        o = offer(type="fixed", value=value)
        whole = min(value, subtotal)
    parts = allocate(o, lines)
    assert sum(parts.values()) == whole
    assert all(isinstance(v, int) and v > 0 for v in parts.values())
    by_id = {ln.id: ln for ln in lines}
    assert all(by_id[i].allow_discounts and v <= by_id[i].subtotal for i, v in parts.items())
