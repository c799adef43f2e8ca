"""Rows this store made between runs (a smoke test, a storefront switched early) that collide with
rows of the shop coming over: settled before the batch that brings them is written, in its
transaction, and each reported by id with what was done.

- A customer of ours whose e-mail Medusa holds as the same kind (guest or account) is merged
  into Medusa's: its carts, orders, addresses, group memberships and messages become that
  customer's, and our row goes (it was made here; Medusa's is the one the shop knows).
- An order of ours that took a number Medusa then gave one of its own keeps it: Medusa's order
  takes the next number free here (on a later run, the one it took then).

Any other row of ours that breaks a unique rule of this store stops the move with one line
naming it (`OwnRowsCollide`), nothing of that batch written.
"""

from __future__ import annotations

from datetime import datetime, timezone

from models import Address, Cart, Customer, DraftOrder, Notification, Order
from models.notification import OneTimeToken
from services.core.sql import numbered
from services.migration.medusa_v1.source import SourceError

__all__ = ["OwnRowsCollide", "COLLISIONS"]


class OwnRowsCollide(SourceError):
    """A row this store made itself blocks one of the shop's (exit 7, as for a store with a shop of its own)."""

    def __init__(self, message: str):
        super().__init__(7, message)


async def _customers(target, names: list[str], values: list[list], source_top: int = 0) -> tuple[list[str], object]:
    """Free the e-mails Medusa's customers of this batch take; after the write, merge ours into them."""
    at = {n: i for i, n in enumerate(names)}
    if not {"id", "email", "has_account"} <= set(at):
        return [], None
    live = at.get("deleted_at")
    incoming = {(str(row[at["email"]]).lower(), bool(row[at["has_account"]])): row[at["id"]]
                for row in values if live is None or row[live] is None}
    ids = [row[at["id"]] for row in values]
    ours = await Customer.filter(email__in=list({e for e, _ in incoming}), deleted_at=None).exclude(id__in=ids).values(
        "id", "email", "has_account")
    pairs = [(o["id"], incoming[(o["email"].lower(), bool(o["has_account"]))], o) for o in ours
             if (o["email"].lower(), bool(o["has_account"])) in incoming]
    if not pairs:
        return [], None
    now = datetime.now(timezone.utc)
    await Customer.filter(id__in=[p[0] for p in pairs]).update(deleted_at=now)  # the e-mail is free for Medusa's

    async def merge() -> None:
        for mine, theirs, _ in pairs:
            for model in (Cart, Address, Order, Notification, OneTimeToken):
                await model.filter(customer_id=mine).update(customer_id=theirs)
            dialect = target.client.capabilities.dialect
            await target.client.execute_query(numbered(
                dialect, 'DELETE FROM "customer_group_customers" WHERE customer_id = ? AND customer_group_id IN'
                ' (SELECT customer_group_id FROM "customer_group_customers" WHERE customer_id = ?)'), [mine, theirs])
            await target.client.execute_query(numbered(
                dialect, 'UPDATE "customer_group_customers" SET customer_id = ? WHERE customer_id = ?'), [theirs, mine])
            await Customer.filter(id=mine).delete()

    notes = [f"customer {mine} ({'account' if o['has_account'] else 'guest'} {o['email']}, made here) merged into"
             f" Medusa's {theirs}: its carts, orders and addresses are that customer's now" for mine, theirs, o in pairs]
    return notes, merge


async def _orders(target, names: list[str], values: list[list], source_top: int = 0) -> tuple[list[str], object]:
    """Medusa's orders whose number an order of ours took since the last run take the next free one."""
    at = {n: i for i, n in enumerate(names)}
    if not {"id", "display_id"} <= set(at):
        return [], None
    wanted = {row[at["display_id"]]: row for row in values}
    taken = dict(await Order.filter(display_id__in=list(wanted)).exclude(
        id__in=[row[at["id"]] for row in values]).values_list("display_id", "id"))
    if not taken:
        return [], None
    here = dict(await Order.filter(id__in=[wanted[n][at["id"]] for n in taken]).values_list("id", "display_id"))
    # Above every number of both shops, so no later order of Medusa's is taken for one of ours.
    tops = [source_top, await _top(Order), await _top(DraftOrder), *(row[at["display_id"]] for row in values)]
    highest = max(t for t in tops if t is not None)
    notes = []
    for number, mine in sorted(taken.items()):
        row = wanted[number]
        if row[at["id"]] in here:
            row[at["display_id"]] = here[row[at["id"]]]
        else:
            highest += 1
            row[at["display_id"]] = highest
        notes.append(f"order {row[at['id']]} (Medusa's #{number}) is #{row[at['display_id']]} here: order {mine}, made"
                     f" here, kept #{number}")
    return notes, None


async def _top(model) -> int | None:
    return await model.all().order_by("-display_id").first().values_list("display_id", flat=True)


# Medusa table -> what settles this store's own rows that collide with a batch of it.
COLLISIONS = {"customer": _customers, "order": _orders}
