"""The processes: web, worker and scheduler, the broker they share, and the `commerce` CLI."""
