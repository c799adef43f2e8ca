"""The shared core every area uses: transactions (db) and the database's passing trouble
(db_outages), domain errors, listing, the clock, ids, tokens, passwords, one-time tokens, rate
limits and small value rules (handles, durations, metadata). It imports no area."""
