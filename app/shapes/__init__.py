"""The JSON shapes of the resources, as both interfaces answer them."""
