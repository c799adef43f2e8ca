"""Moving a shop over from another system into this store."""
