"""The `manual` provider (medusa-payment-manual): the shop takes the money
outside the system; the session's data carries the status, and authorizing succeeds at once."""

from __future__ import annotations

from models import Cart, PaymentSession

__all__ = ["ManualProvider"]


class ManualProvider:
    id = "manual"
    in_process = True  # no gateway: authorizing can roll back with the order (services/payments/__init__.py)

    async def initiate(self, amount: int, cart: Cart, *, idempotency_key: str | None = None) -> dict:
        return {"status": "pending"}

    async def update_amount(self, session: PaymentSession, amount: int, cart: Cart) -> dict:
        return dict(session.data or {})

    async def update(self, data: dict, changes: dict) -> dict:
        return dict(changes)

    async def authorize(self, session: PaymentSession) -> tuple[str, dict]:
        return "authorized", {"status": "authorized"}

    async def delete(self, session: PaymentSession) -> None:
        return None

    async def retrieve(self, session: PaymentSession) -> dict:
        return dict(session.data or {})

    async def capture(self, data: dict) -> dict:
        return {"status": "captured"}

    async def cancel(self, data: dict) -> dict:
        return {"status": "canceled"}

    async def refund(self, data: dict, amount: int, idempotency_key: str) -> dict:
        return dict(data)

    async def saved_methods(self, customer_id: str) -> list[dict]:
        return []
