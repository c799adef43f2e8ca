"""Fulfillment providers: the small interface a shipping service implements, and the registry that
names them by provider id (the `fulfillment_provider` rows a region enables point here).

The built-in `manual` provider is a real in-memory implementation: the shop ships by itself and
the provider only names its options. A real carrier implements the same calls and registers
itself through a plugin (services/core/plugins.py `Providers.fulfillment`); `commerce migrate` writes the rows of the built-in ones
(services/store/defaults.py).
"""

from __future__ import annotations

from typing import Protocol

from services.core.errors import NotFound
from services.core.providers import Offered

__all__ = ["FulfillmentProvider", "register", "unregister", "get_provider", "is_registered", "registered_ids",
           "configure"]


class FulfillmentProvider(Protocol):
    """`data` is the provider's own opaque JSON: an option's (one of `fulfillment_options`, kept
    on the shipping option) and a shipping method's."""

    id: str

    async def fulfillment_options(self) -> list[dict]:
        """The ways this provider ships: each a dict with an `id`, `is_return: true` for returns.
        The dashboard offers them as a shipping option's type and stores the chosen one as its data."""

    async def validate_option(self, data: dict) -> bool:
        """Whether a shipping option's data names a way this provider ships."""

    async def can_calculate(self, data: dict) -> bool:
        """Whether this provider computes the price of a `calculated` shipping option."""

    async def validate_fulfillment_data(self, option_data: dict, data: dict) -> dict:
        """A shopper's data for a shipping method of that option: the data to keep on the method."""

    async def create_fulfillment(self, method_data: dict, items: list[dict], order_id: str) -> dict:
        """Hand `items` ({item_id, quantity}) of the order to the carrier, as the shipping method's
        data says; the fulfillment's data (e.g. the carrier's reference)."""

    async def cancel_fulfillment(self, data: dict) -> dict:
        """Call back a fulfillment not yet shipped (`data`: the fulfillment's); its new data."""

    async def create_return(self, option_data: dict, return_id: str) -> dict:
        """Arrange the shipment of a return with the return option's data; the return's
        `shipping_data` (e.g. a label)."""


_PROVIDERS: dict[str, FulfillmentProvider] = {}


def register(provider: FulfillmentProvider) -> None:
    _PROVIDERS[provider.id] = provider


def unregister(provider_id: str) -> None:
    _PROVIDERS.pop(provider_id, None)


def registered_ids() -> list[str]:
    return sorted(_PROVIDERS)


# The plugins' providers (services/plugins.py), registered at start; see services/core/providers.py.
configure = Offered(register, unregister).configure


def is_registered(provider_id: str) -> bool:
    return provider_id in _PROVIDERS


def get_provider(provider_id: str) -> FulfillmentProvider:
    provider = _PROVIDERS.get(provider_id)
    if provider is None:
        raise NotFound(f"Could not find a fulfillment provider with id: {provider_id}")
    return provider


def _register_builtins() -> None:
    from services.fulfillment.manual import ManualProvider

    register(ManualProvider())


_register_builtins()
