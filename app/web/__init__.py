"""The web tier's machinery shared by both interfaces: auth, sessions, errors, queries, CORS."""
