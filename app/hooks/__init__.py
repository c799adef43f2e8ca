"""Routes a payment gateway calls (webhooks): neither /admin nor /store, authenticated by the
gateway's signature instead of a user."""
