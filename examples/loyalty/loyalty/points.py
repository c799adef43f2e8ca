"""The rules of loyalty points, in one place: earning on an order, taking back on a refund,
adjusting by hand, expiring. The handlers (loyalty/routes.py), the subscriber
(loyalty/subscribers.py) and the job (loyalty/jobs.py) only call these.

Every change writes a ledger row under a unique key and moves the balance by a conditional UPDATE
(an F-expression, `balance >= n` for a debit), in one transaction (services.core.db.atomic, which
joins the event dispatch's own, services/events/dispatch.py): run twice, the second run finds its
key and does nothing; run at once by two processes, the balance is never read, changed and
written back, and never goes below zero."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import timedelta

from tortoise.expressions import F

from services.core import clock
from services.core.db import atomic
from services.core.errors import NotAllowed, NotFound

from loyalty.models import LoyaltyAccount, LoyaltyEntry
from loyalty.settings import LoyaltySettings, current

__all__ = [
    "Account", "points_for", "earn_for_order", "take_back_for_refund", "adjust", "account", "expire_due",
    "RECENT_ENTRIES",
]

RECENT_ENTRIES = 20  # entries an account's view shows, newest first


@dataclass(frozen=True)
class Account:
    customer_id: str
    balance: int
    entries: list[LoyaltyEntry]


def points_for(amount: int, settings: LoyaltySettings) -> int:
    """Points for `amount` minor units: `points_per_unit` per 100, rounded down."""
    return max(0, math.floor(amount * settings.points_per_unit / 100))


async def _open_account(customer_id: str) -> None:
    # INSERT … ON CONFLICT DO NOTHING (INSERT OR IGNORE on SQLite): two first credits cannot clash.
    await LoyaltyAccount.bulk_create([LoyaltyAccount(customer_id=customer_id)], ignore_conflicts=True)


async def _credit(customer_id: str, points: int) -> None:
    await _open_account(customer_id)
    await LoyaltyAccount.filter(customer_id=customer_id).update(balance=F("balance") + points)


async def _debit(customer_id: str, points: int) -> bool:
    """`points` taken if the balance holds them all; False (nothing taken) if not."""
    changed = await LoyaltyAccount.filter(customer_id=customer_id, balance__gte=points).update(
        balance=F("balance") - points)
    return changed == 1


async def _take_up_to(customer_id: str, points: int) -> int:
    """As many of `points` as the balance holds, taken; how many. The balance read only bounds the
    conditional UPDATE: one that finds it lowered meanwhile tries again with less."""
    while True:
        balance = await LoyaltyAccount.filter(customer_id=customer_id).first().values_list("balance", flat=True)
        take = min(points, balance or 0)
        if take <= 0:
            return 0
        if await _debit(customer_id, take):
            return take


async def earn_for_order(order_id: str) -> LoyaltyEntry | None:
    """The points of a placed order's total for its customer, once (key "order:<id>"); None when
    already earned, or the order is gone, has no customer or earns nothing."""
    from models import Order
    from services.orders.totals_reads import load_totals

    key = f"order:{order_id}"
    if await LoyaltyEntry.exists(key=key):
        return None
    order = await Order.filter(id=order_id).first().values("customer_id")
    if order is None or not order["customer_id"]:
        return None
    total = (await load_totals([order_id]))[order_id].total
    settings = current()
    points = points_for(total, settings)
    if points <= 0:
        return None
    async with atomic():
        entry = await LoyaltyEntry.create(
            key=key, customer_id=order["customer_id"], points=points, amount=total, reason="order placed",
            order_id=order_id, expires_at=clock.now() + timedelta(seconds=settings.points_lifetime_seconds))
        await _credit(order["customer_id"], points)
    return entry


async def take_back_for_refund(refund_id: str) -> LoyaltyEntry | None:
    """Points taken back for a refund, once (key "refund:<id>"): the order's earned points in the
    proportion the refund bears to the total they were counted from, no more than the order's
    points not yet taken back, and no more than the balance holds. None when already done or the
    order earned nothing."""
    from models import Refund

    key = f"refund:{refund_id}"
    if await LoyaltyEntry.exists(key=key):
        return None
    refund = await Refund.filter(id=refund_id).first().values("order_id", "amount")
    if refund is None or not refund["order_id"]:
        return None
    earned = await LoyaltyEntry.get_or_none(key=f"order:{refund['order_id']}")
    if earned is None or not earned.amount:
        return None
    taken_before = -sum(await LoyaltyEntry.filter(order_id=earned.order_id, key__startswith="refund:")
                        .values_list("points", flat=True))
    due = min(earned.points * refund["amount"] // earned.amount, earned.points - taken_before)
    async with atomic():
        taken = await _take_up_to(earned.customer_id, max(0, due))
        return await LoyaltyEntry.create(
            key=key, customer_id=earned.customer_id, points=-taken, amount=refund["amount"], reason="order refunded",
            order_id=earned.order_id, refund_id=refund_id)


async def _customer_exists(customer_id: str) -> bool:
    from models import Customer

    return await Customer.exists(id=customer_id)


async def adjust(customer_id: str, points: int, reason: str) -> Account:
    """An admin's change of a customer's balance by `points` (+ or -). NotFound for an unknown
    customer; NotAllowed when the balance does not hold what is taken (nothing changes)."""
    if not await _customer_exists(customer_id):
        raise NotFound(f"Customer with id: {customer_id} was not found")
    async with atomic():
        if points > 0:
            await _credit(customer_id, points)
        elif not await _debit(customer_id, -points):
            raise NotAllowed(f"The customer's loyalty balance holds fewer than {-points} points")
        await LoyaltyEntry.create(key=f"adjust:{uuid.uuid4().hex}", customer_id=customer_id, points=points,
                                  reason=reason)
    return await account(customer_id)


async def account(customer_id: str, *, known: bool = True) -> Account:
    """A customer's balance (0 before any points) and latest entries. With `known=False` the
    customer is looked up first (NotFound when there is none): the admin's view of any id."""
    if not known and not await _customer_exists(customer_id):
        raise NotFound(f"Customer with id: {customer_id} was not found")
    balance = await LoyaltyAccount.filter(customer_id=customer_id).first().values_list("balance", flat=True)
    entries = await LoyaltyEntry.filter(customer_id=customer_id).order_by("-id").limit(RECENT_ENTRIES)
    return Account(customer_id, balance or 0, entries)


async def _expire(entry_id: int) -> bool:
    async with atomic():
        if not await LoyaltyEntry.filter(id=entry_id, expired=False).update(expired=True):
            return False  # another sweep had it
        entry = await LoyaltyEntry.get(id=entry_id)
        taken = await _take_up_to(entry.customer_id, entry.points)
        await LoyaltyEntry.create(key=f"expiry:{entry_id}", customer_id=entry.customer_id, points=-taken,
                                  reason="points expired", order_id=entry.order_id)
    return True


async def expire_due(batch: int = 500) -> int:
    """Earned entries past their `expires_at`, each marked expired once and its points taken from
    the balance as far as it holds them; how many. Each entry in a transaction of its own, so a
    sweep stopped half-way keeps what it did and the next finishes."""
    expired = 0
    while True:
        due = await (LoyaltyEntry.filter(expired=False, points__gt=0, expires_at__lte=clock.now())
                     .order_by("id").limit(batch).values_list("id", flat=True))
        for entry_id in due:
            expired += await _expire(entry_id)
        if len(due) < batch:
            return expired
