"""The domain: one module per area. No web framework here; transactions begin and end here."""
