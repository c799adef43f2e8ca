"""Tax providers: the small interface a tax service implements, and the
registry that names them by provider id. A region's `tax_provider_id` names its provider; none
means the built-in `system` provider, which taxes from the region's own rates (services/regions/taxes.py).

A provider answers tax lines, never amounts: the totals are computed from them in one place
(services/carts/totals.py). It is called only by the tax-calculation job (services/carts/taxes.py), so a
slow or failing tax service never holds a web request longer than its bounded wait. It computes on a
`TaxInput`, what of a cart a tax service may look at, which carts hand it: the interface lives with
the regions that name their provider, and needs nothing of the carts above them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from models import Cart, LineItem, ShippingMethod
from services.core.errors import NotFound
from services.core.providers import Offered
from services.regions.taxes import Overrides, TaxLine, system_lines

__all__ = ["TaxInput", "TaxProvider", "SystemTaxProvider", "register_tax_provider", "unregister_tax_provider",
           "get_tax_provider", "SYSTEM", "configure", "registered_ids"]

SYSTEM = "system"

Lines = dict[str, list[TaxLine]]


@dataclass(frozen=True)
class TaxInput:
    """What a provider computes a cart's taxes on (the cart's fingerprint in services/carts/taxes.py
    covers all of it)."""

    cart: Cart  # with region, shipping_address and billing_address
    items: list[LineItem]  # with variant and variant.product
    shipping_methods: list[ShippingMethod]  # with shipping_option
    item_discounts: dict[str, int]  # each line's discount, minor units, by line id
    overrides: Overrides  # the region's rates attached to products, product types and shipping options


class TaxProvider(Protocol):
    id: str

    async def tax_lines(self, cart: TaxInput) -> tuple[Lines, Lines]:
        """The cart's tax lines by line id and by shipping method id (rates are percentages).
        A DomainError is the cart's fault (an address the service refuses, say) and is answered
        as such; any other exception is retried."""


class SystemTaxProvider:
    id = SYSTEM

    async def tax_lines(self, cart: TaxInput) -> tuple[Lines, Lines]:
        return system_lines(cart.cart.region, cart.overrides, cart.items, cart.shipping_methods)


_PROVIDERS: dict[str, TaxProvider] = {SYSTEM: SystemTaxProvider()}


def register_tax_provider(provider: TaxProvider) -> None:
    _PROVIDERS[provider.id] = provider


def unregister_tax_provider(provider_id: str) -> None:
    if provider_id != SYSTEM:
        _PROVIDERS.pop(provider_id, None)


def get_tax_provider(provider_id: str | None) -> TaxProvider:
    """The provider of that id; None is the system provider."""
    provider = _PROVIDERS.get(provider_id or SYSTEM)
    if provider is None:
        raise NotFound(f"Could not find a tax provider with id: {provider_id}")
    return provider


def registered_ids() -> list[str]:
    return sorted(_PROVIDERS)


# The plugins' providers (services/plugins.py), registered at start; see services/core/providers.py.
configure = Offered(register_tax_provider, unregister_tax_provider).configure
