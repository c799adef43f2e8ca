"""Tax providers: the small interface a tax service implements, and the
registry that names them by provider id. A region's `tax_provider_id` names its provider; none
means the built-in `system` provider, which taxes from the region's own rates (services/regions/taxes.py).

A provider answers tax lines, never amounts: the totals are computed from them in one place
(services/carts/totals.py). It is called only by the tax-calculation job (services/carts/taxes.py), so a
slow or failing tax service never holds a web request longer than its bounded wait.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from services.core.errors import NotFound
from services.regions.taxes import TaxLine, system_lines

if TYPE_CHECKING:
    from services.carts.view import CartView

__all__ = ["TaxProvider", "SystemTaxProvider", "register_tax_provider", "unregister_tax_provider",
           "get_tax_provider", "SYSTEM"]

SYSTEM = "system"

Lines = dict[str, list[TaxLine]]


class TaxProvider(Protocol):
    id: str

    async def tax_lines(self, view: CartView) -> tuple[Lines, Lines]:
        """The cart's tax lines by line id and by shipping method id (rates are percentages).
        A DomainError is the cart's fault (an address the service refuses, say) and is answered
        as such; any other exception is retried."""


class SystemTaxProvider:
    id = SYSTEM

    async def tax_lines(self, view: CartView) -> tuple[Lines, Lines]:
        return system_lines(view.cart.region, view.region.overrides, view.items, view.shipping_methods)


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
