"""Shipping options and methods."""
