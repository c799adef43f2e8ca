"""The services' composition root: one `configure(settings)` that every process calls at start-up
(the web processes in app/server.py, the worker processes in workers/boot.py, each `commerce`
command in workers/cli.py, the scheduler among them), so no process can forget a part.

It hands each area what it reads of the process's settings (file storage, the line and metadata
bounds, inventory locations, webhooks, the payment gateways, the notification provider, the batch
jobs' takeover, what a completion answers) and registers the event subscribers. A module directly in `services/` sits above
every area (tests/test_layers.py): it may wire any of them, and an area never imports it."""

from __future__ import annotations

from typing import Callable

from services import batch_jobs, files, inventory, notifications, webhooks
from services.carts import line_limits
from services.checkout.answers import Answers, use_answers
from services.checkout.paid import subscribe_checkout
from services.core import metadata
from services.events import subscribers
from services.notifications.subscriber import subscribe_notifications
from services.orders.gateway_refunds import subscribe_orders
from services.payments import gateways
from services.webhooks.subscriber import subscribe_webhooks

__all__ = ["configure", "SUBSCRIBERS"]

# The areas' subscribers, each a function given `subscribe` (services/events/subscribers.py): an
# area that must hear about what happens below it adds its own here. The shop's own come after,
# from the `commerce.subscribers` entry points.
SUBSCRIBERS: tuple[Callable[[Callable], None], ...] = (
    subscribe_notifications,
    subscribe_webhooks,
    subscribe_checkout,  # completes a cart Stripe says is paid
    subscribe_orders,  # records a refund made in Stripe's dashboard
)


def configure(settings, *, answers: Answers) -> None:
    """Set every area up from the process's settings (app.config.Settings) and register the event
    subscribers; calling it again re-reads the settings (the subscribers are registered once).
    `answers`: what a completed cart answers (app/shapes/completion.py), handed in by the caller
    because the web tier sits above the services; a key a job finishes replays the route's body."""
    use_answers(answers)
    files.configure(settings)  # uploads, imports, exports
    line_limits.configure(settings)  # MAX_LINES_PER_ORDER, for the services that add lines
    metadata.configure(settings)  # METADATA_MAX_BYTES, for every write of metadata
    inventory.configure(settings)  # INVENTORY_LOCATIONS, for the routes and jobs that change stock
    webhooks.configure(settings)  # which addresses webhooks may reach, timeouts
    gateways.configure(settings)  # Stripe when STRIPE_API_KEY is set, and the entry points' gateways
    notifications.configure(settings)  # SMTP or the recording provider, the links' bases, the message templates
    batch_jobs.configure(settings)  # JOB_TAKEOVER_SECONDS, when a silent run's lease is taken over
    subscribers.load_subscribers(SUBSCRIBERS)
