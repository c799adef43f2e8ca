"""Carts: lines, addresses, discounts, gift cards, taxes, reads and totals."""
