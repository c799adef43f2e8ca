"""Reference data Medusa v1 ships: ISO 4217 currencies and ISO 3166 countries."""
