"""Batch jobs: the lifecycle, and the product import and export strategies."""
