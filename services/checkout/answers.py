"""How a cart completion shows what it did: the web tier's shapes of an order, a cart and a swap,
handed in by each process's composition root (app/server.py, workers/boot.py) at start-up, so
that the route, the retry actor and Stripe's completions store the same body for a key without
the services or the jobs importing the web tier."""

from __future__ import annotations

from typing import Any, Protocol

from services.core.errors import DomainError
from services.orders.view import OrderView

__all__ = ["Answers", "use_answers", "configured_answers"]


class Answers(Protocol):
    """How the web tier shows an order and a cart (the key stores exactly what was answered)."""

    async def order(self, order_id: str) -> dict: ...

    async def cart(self, cart_id: str) -> dict: ...

    async def swap(self, swap_id: str) -> dict: ...

    async def placed_order(self, view: OrderView) -> dict:
        """An order just placed, from its view (the same body as `order` of its id)."""

    def refused(self, error: DomainError) -> tuple[int, Any]:
        """The status and body a refusal stored for the key answers."""


_answers: Answers | None = None


def use_answers(answers: Answers) -> None:
    """The answers this process's completions give (called once at start-up)."""
    global _answers
    _answers = answers


def configured_answers() -> Answers:
    """The answers handed in at start-up; a process that never handed them in cannot complete a
    cart outside a request (its set-up is wrong, not the cart)."""
    if _answers is None:
        raise RuntimeError("no checkout answers configured: the process's start-up calls use_answers")
    return _answers
