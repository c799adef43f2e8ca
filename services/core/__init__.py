"""The shared core every area uses: transactions, domain errors, listing, tokens, limits."""
