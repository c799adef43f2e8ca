"""Long work as Dramatiq actors (thin: load, call a service, record the outcome) and the outbox
that hands it to the broker. Actor modules are imported by `workers.broker.load_actors()`."""
