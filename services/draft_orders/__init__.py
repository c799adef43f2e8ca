"""Draft orders: orders staff build by hand, and their payment."""
