"""Admin order operations under an `Idempotency-Key`, with cart completion's contract
(services/core/idempotency.py): the key is adopted or made and always echoed; the same key for
another request is a 422, a key in use a 409 with Retry-After, a finished key replays its answer.

A refusal (a domain error) lets the key go, so the same key may be sent again once the order is
right. Anything else is a transient failure (a provider or the database went away): the key is
let go too, and the answer is a 503 with Retry-After; the operation is written so that the retry
finishes the work (see services/orders/capture.py). The checkout's sweep of stalled keys resumes
cart completions only: these are finished by the client's retry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import orjson

from services.core import idempotency
from services.core.idempotency import Busy, KeyInUse, KeyReused, Mismatch, Replay
from services.core.errors import DomainError, InvalidData, UnexpectedState

__all__ = ["Keyed", "run_keyed", "ProviderUnavailable"]

log = logging.getLogger("commerce.orders")

RETRY_AFTER_SECONDS = 2


class ProviderUnavailable(UnexpectedState):
    """The work stopped for a reason that is not the client's; retrying finishes it."""

    def __init__(self, key: str | None = None):
        super().__init__(
            "The operation could not finish now (a provider or the database did not answer); nothing was left "
            "half-done. Retry the request, with the same Idempotency-Key.", code="provider_unavailable",
        )
        self.idempotency_key = key
        self.retry_after = RETRY_AFTER_SECONDS


@dataclass
class Keyed:
    key: str
    body: Any
    replayed: bool = False


async def run_keyed(
    value: str | None, *, path: str, body: Any, params: dict, run: Callable[[], Awaitable[Any]],
) -> Keyed:
    """Run `run` (which answers the JSON body of a 200) once for the key `value`."""
    if value is not None and not 0 < len(value) <= idempotency.MAX_KEY_LENGTH:
        refusal = InvalidData(f"Idempotency-Key must be 1 to {idempotency.MAX_KEY_LENGTH} characters")
        refusal.idempotency_key = value
        raise refusal
    state = await idempotency.begin(value, "POST", path, body, params)
    if isinstance(state, Mismatch):
        raise KeyReused(state.key)
    if isinstance(state, Busy):
        raise KeyInUse(state.key, state.retry_after)
    if isinstance(state, Replay):
        return Keyed(state.key, state.body, replayed=True)
    key = state.key
    try:
        # As JSON text would carry it, so the first answer and every replay are the same.
        answer = orjson.loads(orjson.dumps(await run()))
    except DomainError as refusal:
        await _let_go(key, 400)
        refusal.idempotency_key = key.idempotency_key
        raise
    except Exception as e:
        log.warning("%s under key %s stopped: %s", path, key.idempotency_key, e)
        await _let_go(key, 503)
        raise ProviderUnavailable(key.idempotency_key) from e
    await idempotency.finish(key, 200, answer)
    return Keyed(key.idempotency_key, answer)


async def _let_go(key, status: int) -> None:
    try:
        await idempotency.release(key, refused_status=status)
    except Exception as e:  # the database is gone too: the key's lease runs out on its own
        log.warning("key %s not let go: %s", key.idempotency_key, e)
