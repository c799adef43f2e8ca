"""Swaps: a placed order's items exchanged for others, the difference paid through a swap cart
or given back."""
