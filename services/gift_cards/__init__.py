"""Gift cards: issued, bought and spent."""
