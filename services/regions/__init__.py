"""Regions: where the store sells, its currencies and taxes."""
