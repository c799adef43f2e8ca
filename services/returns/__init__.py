"""Returns: items coming back from an order, asked for by the merchant or the shopper, received
(restocked and refunded) or canceled."""
