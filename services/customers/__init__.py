"""Customers: accounts, addresses, groups and password reset."""
