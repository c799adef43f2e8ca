"""Orders: reading, listing, totals, display ids and claims."""
