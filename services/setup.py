"""The services' composition root: one `configure(settings)` that every process calls at start-up
(the web processes in app/server.py, the worker processes in workers/boot.py, each `commerce`
command in workers/cli.py, the scheduler among them), so no process can forget a part.

It hands each area what it reads of the process's settings (file storage, the line and metadata
bounds, inventory locations, webhooks, the payment gateways, the notification provider, the batch
jobs' takeover, what a completion answers), loads the plugins (services/plugins.py: the built-in
Stripe, SMTP and S3 ones and those PLUGINS names) and hands each area the providers they offer, and
registers the event subscribers, the areas' and the plugins'. A module directly in `services/`
sits above every area (tests/test_layers.py): it may wire any of them, and an area never imports it."""

from __future__ import annotations

from typing import Callable

from models import FulfillmentProvider, TaxProvider
from services import batch_jobs, files, fulfillment, inventory, notifications, plugins, webhooks
from services.carts import line_limits
from services.catalog import search_engines
from services.checkout.answers import Answers, use_answers
from services.checkout.paid import subscribe_checkout
from services.core import metadata
from services.core.providers import install_rows
from services.events import subscribers
from services.notifications.subscriber import subscribe_notifications
from services.orders.gateway_refunds import subscribe_orders
from services.payments import gateways
from services.regions import tax_providers
from services.webhooks.subscriber import subscribe_webhooks

__all__ = ["configure", "install_providers", "SUBSCRIBERS"]

# The areas' subscribers, each a function given `subscribe` (services/events/subscribers.py): an
# area that must hear about what happens below it adds its own here. The plugins' come after.
SUBSCRIBERS: tuple[Callable[[Callable], None], ...] = (
    subscribe_notifications,
    subscribe_webhooks,
    subscribe_checkout,  # completes a cart Stripe says is paid
    subscribe_orders,  # records a refund made in Stripe's dashboard
)


def configure(settings, *, answers: Answers) -> None:
    """Set every area up from the process's settings (app.config.Settings), with the providers the
    plugins offer, and register the event subscribers; calling it again re-reads the settings (the
    subscribers are registered once). A plugin that cannot be loaded raises
    services.plugins.PluginError, one line naming it, before anything is set up.
    `answers`: what a completed cart answers (app/shapes/completion.py), handed in by the caller
    because the web tier sits above the services; a key a job finishes replays the route's body."""
    active = plugins.load(settings)  # imported, their settings checked
    offers = plugins.offered(active)  # Stripe's gateways with STRIPE_API_KEY, SMTP with SMTP_HOST …
    one = {kind: plugins.choose(kind, [(n, getattr(p, kind)) for n, p in offers if getattr(p, kind) is not None],
                                getattr(settings, f"{setting}_provider"), f"{setting.upper()}_PROVIDER")
           for kind, setting in (("notification", "notification"), ("files", "file"), ("search", "search"))}
    plugins.use(active)
    use_answers(answers)
    files.configure(settings, one["files"])  # uploads, imports, exports: a plugin's store, else the local directory
    line_limits.configure(settings)  # MAX_LINES_PER_ORDER, for the services that add lines
    metadata.configure(settings)  # METADATA_MAX_BYTES, for every write of metadata
    inventory.configure(settings)  # INVENTORY_LOCATIONS, for the routes and jobs that change stock
    webhooks.configure(settings)  # which addresses webhooks may reach, timeouts
    gateways.configure(p for _, o in offers for p in o.payment)  # Stripe when STRIPE_API_KEY is set …
    fulfillment.configure(p for _, o in offers for p in o.fulfillment)
    tax_providers.configure(p for _, o in offers for p in o.tax)
    search_engines.configure(one["search"])  # None: the database's own
    notifications.configure(  # SMTP or a plugin's provider, else the recording one; the templates
        settings, one["notification"], template_dirs=[a.plugin.templates for a in active if a.plugin.templates])
    batch_jobs.configure(settings)  # JOB_TAKEOVER_SECONDS, when a silent run's lease is taken over
    subscribers.load_subscribers((*SUBSCRIBERS, *plugins.subscriber_registrations(active)))


async def install_providers() -> None:
    """The rows that list this process's payment, fulfillment and tax providers (each web process
    at start): a provider a plugin no longer offers shows as not installed."""
    await gateways.install()
    await install_rows(FulfillmentProvider, fulfillment.registered_ids())
    await install_rows(TaxProvider, tax_providers.registered_ids())
