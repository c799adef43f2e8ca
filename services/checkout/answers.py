"""How a cart completion shows what it did: the web tier's shapes of an order, a cart and a swap,
handed in by each process's composition root (app/server.py, workers/boot.py) at start-up, so
that the route, the retry actor and Stripe's completions store the same body for a key without
the services or the jobs importing the web tier; and the answers a completion ends with, built
with them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol

import orjson

from models import IdempotencyKey
from services.core import idempotency
from services.core.db import write_now
from services.core.errors import DomainError
from services.orders.view import OrderView

__all__ = [
    "Answers", "use_answers", "configured_answers", "Completion", "Answer", "finish", "stored_answer",
    "order_answer", "placed_answer", "swap_answer", "cart_answer",
]


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


@dataclass
class Completion:
    """What a completion answered for its key (`replayed`: a finished key's stored answer)."""
    key: str
    status: int
    body: Any
    replayed: bool = False


@dataclass(frozen=True)
class Answer:
    """The answer that ends a completion: its status and how its body is built with the answers
    (`reads`: by reading the database; one that does not is built from what the run holds)."""
    status: int
    build: Callable[[Answers], Awaitable[Any]]
    reads: bool = True


async def finish(key: IdempotencyKey, answer: Answer, answers: Answers) -> Completion:
    """The key finished with the answer, as JSON text would carry it, so the first answer and every
    replay are the same. An answer read from the database is read after the transaction's put-off
    writes are sent (services/core/db.py), so it shows them."""
    if answer.reads:
        await write_now()
    body = orjson.loads(orjson.dumps(await answer.build(answers)))
    await idempotency.finish(key, answer.status, body)
    return Completion(key.idempotency_key, answer.status, body)


def stored_answer(status: int, body: Any) -> Answer:
    async def build(answers: Answers) -> Any:
        return body
    return Answer(status, build, reads=False)


def order_answer(order_id: str) -> Answer:
    async def build(answers: Answers) -> Any:
        return {"type": "order", "data": await answers.order(order_id)}
    return Answer(200, build)


def placed_answer(view: OrderView) -> Answer:
    async def build(answers: Answers) -> Any:
        return {"type": "order", "data": await answers.placed_order(view)}
    return Answer(200, build, reads=False)


def swap_answer(swap_id: str) -> Answer:
    async def build(answers: Answers) -> Any:
        return {"type": "swap", "data": await answers.swap(swap_id)}
    return Answer(200, build)


def cart_answer(cart_id: str, **extra: Any) -> Answer:
    """The cart, when the shopper still has something to do (`extra`: e.g. its payment status)."""
    async def build(answers: Answers) -> Any:
        return {"data": await answers.cart(cart_id), **extra, "type": "cart"}
    return Answer(200, build)
