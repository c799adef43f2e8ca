"""Swaps: a placed order's items exchanged for others, the difference paid through a swap cart
or given back (reference orders §2.6, §5; store §3.5)."""
