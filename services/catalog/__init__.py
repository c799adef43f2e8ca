"""The catalogue: products, collections and prices."""
