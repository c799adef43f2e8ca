"""Checkout: cart completion under an idempotency key, and placing the order."""
