"""The plugins that ship inside the package, declared through the same interface as a shop's own
(services/core/plugins.py) and loaded first in every process (services/plugins.py BUILT_IN). Each is
on only when its settings are: Stripe with STRIPE_API_KEY, SMTP with SMTP_HOST, S3 with S3_BUCKET.
Their settings keep their documented names (docs/configuration.md), read with the core's.

Like the composition root, this module sits above every area: it names parts of several."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from services.core.plugins import Plugin, PluginContext, Providers, Schedule

__all__ = ["stripe", "smtp", "s3"]


def _version() -> str:
    try:
        return version("commerce")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0"


def _stripe_providers(ctx: PluginContext) -> Providers | None:
    if not ctx.core.stripe_api_key:
        return None
    from services.payments.stripe import build_providers

    return Providers(payment=tuple(build_providers(ctx.core)))


def _stripe_schedules(ctx: PluginContext) -> tuple[Schedule, ...]:
    if not ctx.core.stripe_api_key:
        return ()
    # Holds of carts without an order released, carts paid without a webhook handed to checkout.
    return (Schedule("reconcile_stripe_intents", every=3600.0, args=(ctx.core.stripe_abandoned_minutes,),
                     queue="maintenance"),)


def _smtp_providers(ctx: PluginContext) -> Providers | None:
    if not ctx.core.smtp_host:
        return None
    from services.notifications.smtp import SmtpProvider

    return Providers(notification=SmtpProvider.from_settings(ctx.core))


def _s3_providers(ctx: PluginContext) -> Providers | None:
    if not ctx.core.s3_bucket:
        return None
    from services.files.s3 import S3FileStorage

    return Providers(files=S3FileStorage.from_settings(ctx.core))


stripe = Plugin(
    "stripe", _version(), description="Stripe payments, as medusa-payment-stripe 6.x (docs/payments.md)",
    routes=("app.hooks.stripe:bp",),  # POST /stripe/hooks, Stripe's webhook
    jobs=("jobs.payments",),  # the webhook's events handled, the intents reconciled
    schedules=_stripe_schedules, providers=_stripe_providers, built_in=True,
)
smtp = Plugin("smtp", _version(), description="messages sent by e-mail over SMTP", providers=_smtp_providers,
              built_in=True)
s3 = Plugin("s3", _version(), description="files in an S3-compatible bucket", providers=_s3_providers,
            built_in=True)
