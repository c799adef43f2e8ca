"""Payment providers: the small interface a payment gateway implements, and the registry that
names them by provider id (the `payment_provider` rows of a region point here).

The built-in providers (`system`, `manual`) are real in-memory implementations: they keep no
state outside the session row, and authorize at once, as Medusa v1's do. A real gateway
implements the same calls and is offered by a plugin (services/core/plugins.py `Providers.payment`,
registered by services/payments/gateways.py): Stripe (services/payments/stripe/, the built-in stripe
plugin) when STRIPE_API_KEY is set, and any a shop's plugin offers (docs/plugins.md).
"""

from __future__ import annotations

from typing import Protocol

from models import Cart, PaymentSession
from services.core.errors import NotFound

__all__ = [
    "PaymentProvider", "register", "unregister", "get_provider", "is_registered", "registered_ids",
    "authorizes_in_process", "in_process_ids",
]


class PaymentProvider(Protocol):
    """Amounts are minor units of the cart's region currency. `data` is the provider's own
    opaque JSON, stored on the session."""

    id: str

    async def initiate(self, amount: int, cart: Cart, *, idempotency_key: str | None = None) -> dict:
        """Start a payment for `amount` on the gateway; answer the session's data. The key names
        this start of this session: a retry of it comes with the same key (a gateway may use it
        to make one payment), a new start with another."""

    async def update_amount(self, session: PaymentSession, amount: int, cart: Cart) -> dict:
        """The cart's total changed: the session's new data."""

    async def update(self, data: dict, changes: dict) -> dict:
        """The shopper's changes (e.g. a card token): what to merge into the session's data."""

    async def authorize(self, session: PaymentSession) -> tuple[str, dict]:
        """(status, data); status is one of authorized|pending|requires_more|error|canceled."""

    async def delete(self, session: PaymentSession) -> None:
        """Forget the gateway-side payment of an initiated session."""

    async def retrieve(self, session: PaymentSession) -> dict:
        """The gateway's current view of the payment."""

    async def capture(self, data: dict) -> dict:
        """Take the authorized money; `data` is the payment's data, the answer its new data."""

    async def cancel(self, data: dict) -> dict:
        """Release an authorized payment that will not be captured; the payment's new data."""

    async def refund(self, data: dict, amount: int, idempotency_key: str) -> dict:
        """Give `amount` of the captured money back; the payment's new data. The same key comes
        with every retry of one refund: a gateway uses it to refund once."""

    async def saved_methods(self, customer_id: str) -> list[dict]:
        """The customer's payment methods saved at the gateway (cards on file); none by default."""


def authorizes_in_process(provider_id: str | None) -> bool:
    """True for a provider without a gateway (`in_process = True` on the class: `system`,
    `manual`): its authorization is nothing but the rows written for it, so a completion may
    authorize and place in one transaction, and a failed placing leaves no authorization behind.
    A gateway's authorization outlives a rolled-back transaction: it is committed on its own."""
    provider = _PROVIDERS.get(provider_id) if provider_id else None
    return bool(getattr(provider, "in_process", False))


def in_process_ids() -> list[str]:
    return sorted(i for i in _PROVIDERS if authorizes_in_process(i))


_PROVIDERS: dict[str, PaymentProvider] = {}


def register(provider: PaymentProvider) -> None:
    _PROVIDERS[provider.id] = provider


def unregister(provider_id: str) -> None:
    _PROVIDERS.pop(provider_id, None)


def is_registered(provider_id: str) -> bool:
    return provider_id in _PROVIDERS


def registered_ids() -> list[str]:
    return sorted(_PROVIDERS)


def get_provider(provider_id: str) -> PaymentProvider:
    provider = _PROVIDERS.get(provider_id)
    if provider is None:
        raise NotFound(f"Could not find a payment provider with id: {provider_id}")
    return provider


def _register_builtins() -> None:
    from services.payments.manual import ManualProvider
    from services.payments.system import SystemProvider

    register(SystemProvider())
    register(ManualProvider())


_register_builtins()

