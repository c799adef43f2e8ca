"""The process's payment gateways beyond the built-in `system` and `manual`: those the plugins
offer (services/plugins.py; Stripe is the built-in plugin's, when STRIPE_API_KEY is set), each
registered by its id, which a region's payment providers name."""

from __future__ import annotations

from models import PaymentProvider as ProviderRow
from services.core.providers import Offered, install_rows
from services.payments import register, registered_ids, unregister

__all__ = ["configure", "install"]

# Registers the plugins' gateways; one offered by the previous configure and not now (its key
# removed) is unregistered (services/core/providers.py).
configure = Offered(register, unregister).configure


async def install() -> None:
    """Every registered provider has its row, installed, so regions can list it and
    GET /admin/store/payment-providers shows it (services/core/providers.py)."""
    await install_rows(ProviderRow, registered_ids())
