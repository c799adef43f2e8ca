"""The `system` provider Medusa v1 always has: no gateway, every payment authorized at once.
Selectable in any region."""

from __future__ import annotations

from models import Cart, PaymentSession

__all__ = ["SystemProvider"]


class SystemProvider:
    id = "system"
    in_process = True  # no gateway: authorizing can roll back with the order (services/payments/__init__.py)

    async def initiate(self, amount: int, cart: Cart, *, idempotency_key: str | None = None) -> dict:
        return {}

    async def update_amount(self, session: PaymentSession, amount: int, cart: Cart) -> dict:
        return dict(session.data or {})

    async def update(self, data: dict, changes: dict) -> dict:
        return {}

    async def authorize(self, session: PaymentSession) -> tuple[str, dict]:
        return "authorized", {}

    async def delete(self, session: PaymentSession) -> None:
        return None

    async def retrieve(self, session: PaymentSession) -> dict:
        return {}

    async def capture(self, data: dict) -> dict:
        return {}

    async def cancel(self, data: dict) -> dict:
        return {}

    async def refund(self, data: dict, amount: int, idempotency_key: str) -> dict:
        return {}

    async def saved_methods(self, customer_id: str) -> list[dict]:
        return []
