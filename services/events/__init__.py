"""Events: what happened, as Medusa v1 names it, written with the change and handed to the
subscribers after commit."""
