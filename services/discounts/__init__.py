"""Discounts: codes, rules, conditions and what they are worth to a cart."""
