"""Calculate Cart Taxes, `POST /store/carts/:id/taxes`: the cart with
its taxes computed through its region's tax provider even when the region's taxes are not
automatic. Nothing is stored on the cart (Medusa v1 stores tax lines only when a completion
starts), so a later read of the cart shows its usual taxes again.

The provider is called by a job (jobs/taxes.py, asked for through the outbox), so a slow tax
service never holds a web worker for long: the request waits for the job a bounded time
(`wait_seconds`, the TAX_JOB_WAIT_SECONDS setting), then the answer is one of
- the cart with the provider's tax lines and the totals they make (200 `{cart}`);
- `job` is not None and `view` is None: the job has not finished (no worker is up, the broker is
  unreachable, the provider is slow); the route answers 202 with `Retry-After` and the job's id
  and status. Repeating the request takes the same job up again, and answers the cart at once
  when it has finished;
- the provider's refusal of the cart (a DomainError, mapped as any other), or an
  UnexpectedState (500) when the job failed for good; a repeat then asks for a new job.

A job is for one state of the cart, its `fingerprint`: a hash of everything a provider may look
at (lines, prices, quantities, discounts, shipping methods and address, customer, the region and
its version). A request reuses the newest job of the last REUSE_SECONDS for the same cart and
fingerprint that has not failed, rather than asking for another. If the cart changed between the
request's read and the job's, the job's lines are for a state the cart has left: the request
starts over within its wait.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone

import orjson

from services.core import outbox
from models import Job
from services.core import errors
from services.carts.locks import lock_cart
from services.carts.view import CartView, load_cart_view, with_tax_lines
from services.core.db import atomic
from services.core.errors import DomainError, UnexpectedState
from services.regions.tax_providers import TaxInput, get_tax_provider
from services.regions.taxes import TaxLine

__all__ = ["TAX_ACTOR", "REUSE_SECONDS", "TaxCalculation", "calculate_cart_taxes", "run_tax_calculation",
           "fingerprint"]

TAX_ACTOR = "calculate_cart_taxes"
REUSE_SECONDS = 600
_ROUNDS = 3  # reads of a cart that keeps changing under its jobs, before answering "not yet"
_REUSABLE = ("pending", "enqueued", "running", "retrying", "succeeded")
_FINISHED = ("succeeded", "failed")
_KINDS = {cls.kind: cls for cls in (
    errors.InvalidData, errors.NotAllowed, errors.NotFound, errors.Duplicate, errors.Conflict, errors.Unauthorized,
    errors.PaymentError, errors.UnexpectedState,
)}


@dataclass
class TaxCalculation:
    job: Job
    view: CartView | None  # the cart with the provider's taxes; None while the job has not finished


async def calculate_cart_taxes(cart_id: str, *, wait_seconds: float) -> TaxCalculation:
    """The cart with its provider's taxes, waiting at most `wait_seconds` (seconds) for the job."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(wait_seconds, 0.0)
    reuse = True
    for _ in range(_ROUNDS):
        view = await load_cart_view(cart_id)
        get_tax_provider(view.cart.region.tax_provider_id)  # an unknown provider is this request's answer
        state = fingerprint(view)
        job = await _wait(await _job_for(view.cart.id, state, reuse=reuse), deadline)
        if job.status == "failed":
            raise UnexpectedState("The taxes of the cart could not be calculated; repeat the request to try again")
        if job.status != "succeeded":
            return TaxCalculation(job, None)
        result = job.result or {}
        if "error" in result:
            raise _error(result["error"])
        if result.get("fingerprint") == state:
            return TaxCalculation(job, with_tax_lines(view, _lines(result["items"]), _lines(result["shipping_methods"])))
        reuse = False  # that job saw another state of the cart: the next round asks for a new one
    return TaxCalculation(job, None)


async def run_tax_calculation(cart_id: str) -> dict:
    """The job's work: the cart's tax lines from its region's provider, with the fingerprint of
    the cart they are for. A refusal (DomainError) is its outcome; anything else is retried."""
    try:
        view = await load_cart_view(cart_id)
        items, methods = await get_tax_provider(view.cart.region.tax_provider_id).tax_lines(tax_input(view))
    except DomainError as e:
        return {"error": {"type": e.kind, "message": e.message, "code": e.code}}
    return {"fingerprint": fingerprint(view), "items": _dump(items), "shipping_methods": _dump(methods)}


def tax_input(view: CartView) -> TaxInput:
    """What of the cart its tax provider computes on."""
    discounts = {i.id: view.totals.items[i.id].discount_total for i in view.items}
    return TaxInput(view.cart, view.items, view.shipping_methods, discounts, view.region.overrides)


def fingerprint(view: CartView) -> str:
    """A hash of the cart's state as a tax provider may see it."""
    cart, region, address = view.cart, view.cart.region, view.cart.shipping_address
    products = [i.variant.product if i.variant is not None else None for i in view.items]
    state = {
        "region": [region.id, region.updated_at, region.tax_provider_id, region.tax_rate, region.currency_code],
        "customer": [cart.customer_id, cart.email],
        "address": address and [address.country_code, address.province, address.postal_code, address.city,
                                address.address_1],
        "items": [
            [i.id, i.variant_id, p and p.id, p and p.type_id, i.is_return, i.unit_price, i.includes_tax, i.quantity,
             view.totals.items[i.id].discount_total]
            for i, p in zip(view.items, products)
        ],
        "shipping_methods": [[m.id, m.shipping_option_id, m.price, m.includes_tax] for m in view.shipping_methods],
    }
    return hashlib.sha256(orjson.dumps(state)).hexdigest()


async def _job_for(cart_id: str, state: str, *, reuse: bool) -> Job:
    """The job computing this state of the cart: a recent one that has not failed, else a new one."""
    async with atomic():
        await lock_cart(cart_id, editable=False)  # two requests for one cart find one job
        if reuse:
            job = await Job.filter(
                actor_name=TAX_ACTOR, args=[cart_id, state], status__in=_REUSABLE,
                created_at__gte=datetime.now(timezone.utc) - timedelta(seconds=REUSE_SECONDS),
            ).order_by("-created_at").first()
            if job is not None:
                return job
        return await outbox.enqueue(TAX_ACTOR, cart_id, state)


async def _wait(job: Job, deadline: float) -> Job:
    """The job once finished, or as it stands at the deadline (loop time)."""
    loop = asyncio.get_running_loop()
    pause, read = 0.01, False
    while job.status not in _FINISHED:
        remaining = deadline - loop.time()
        if remaining <= 0:
            return job if read else await Job.get(id=job.id)
        await asyncio.sleep(min(pause, remaining))
        pause = min(pause * 2, 0.25)
        job, read = await Job.get(id=job.id), True
    return job


def _dump(lines: dict[str, list[TaxLine]]) -> dict[str, list[dict]]:
    return {owner: [asdict(line) for line in owned] for owner, owned in lines.items()}


def _lines(dumped: dict[str, list[dict]]) -> dict[str, list[TaxLine]]:
    return {owner: [TaxLine(**line) for line in owned] for owner, owned in dumped.items()}


def _error(recorded: dict) -> DomainError:
    return _KINDS.get(recorded.get("type"), UnexpectedState)(recorded["message"], code=recorded.get("code"))
