"""Payment collections: an amount to collect outside a cart, here the difference an order edit
leaves due, and the store routes a shopper pays it through (Medusa v1's
`/store/payment-collections`: get, one session for a provider, authorize that session).

States: `not_paid` (made) → `awaiting` (an authorization did not go through yet) → `authorized`
(a Payment row holds the money, `authorized_amount` = `amount`); `canceled` once the edit is
canceled or declined, or confirmed by the back office without this payment. Amounts are minor
units of the collection's currency. The providers are those of services/payments, given the
collection's session where a cart's is expected (the built-in ones only read its `data`) and no
cart.

Departures from Medusa v1, on purpose: a shopper whose authorization failed may start a session
again (Medusa allows sessions on `not_paid` only); authorizing an authorized session answers it
again; ending the collection cancels its authorized payments at the provider and drops its
initiated sessions, so no money stays held for an edit that will not happen.
"""

from __future__ import annotations


from tortoise.query_utils import Prefetch

from models import Order, Payment, PaymentCollection, PaymentCollectionSession, PaymentProvider
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound, PaymentError
from services.core.ids import fits
from services.payments import get_provider

__all__ = [
    "create_collection", "get_collection", "set_session", "authorize_session", "is_authorized", "settle", "release",
    "NOT_FOUND", "OPEN_STATUSES",
]

NOT_FOUND = "Payment collection with id {id} was not found"
OPEN_STATUSES = ("not_paid", "awaiting")  # a shopper may still pay
_ALWAYS_AVAILABLE = "system"  # Medusa's core resolves it whatever the region lists (as carts do)


async def create_collection(order: Order, amount: int, created_by: str, description: str | None) -> PaymentCollection:
    """A collection of `amount` in the order's region and currency, for an order edit."""
    return await PaymentCollection.create(
        type="order_edit", status="not_paid", amount=amount, region_id=order.region_id,
        currency_code=order.currency_code, created_by=created_by, description=description,
    )


async def get_collection(collection_id: str) -> PaymentCollection:
    """The live collection with its region and sessions."""
    found = None
    if fits(PaymentCollection, collection_id):
        found = await PaymentCollection.filter(id=collection_id, deleted_at=None).select_related(
            "region"
        ).prefetch_related(
            Prefetch("payment_sessions", queryset=PaymentCollectionSession.all().order_by("created_at", "id"))
        ).first()
    if found is None:
        raise NotFound(NOT_FOUND.format(id=collection_id))
    return found


async def _lock(collection_id: str) -> PaymentCollection:
    found = None
    if fits(PaymentCollection, collection_id):
        found = await PaymentCollection.filter(id=collection_id, deleted_at=None).select_for_update().first()
    if found is None:
        raise NotFound(NOT_FOUND.format(id=collection_id))
    return found


async def set_session(collection_id: str, provider_id: str) -> PaymentCollection:
    """The shopper pays with this provider: one session for the whole amount, initiated at the
    provider; sessions of other providers are dropped."""
    async with atomic():
        collection = await _lock(collection_id)
        if collection.status not in OPEN_STATUSES:
            raise NotAllowed(f"Cannot set payment sessions for a payment collection with status {collection.status}")
        offered = fits(PaymentProvider, provider_id) and await PaymentProvider.filter(
            regions__id=collection.region_id, id=provider_id
        ).exists()
        if provider_id != _ALWAYS_AVAILABLE and not offered:
            raise InvalidData("Payment provider not found")
        provider = get_provider(provider_id)
        kept = None
        for session in await PaymentCollectionSession.filter(payment_collection_id=collection.id):
            if session.provider_id == provider_id:
                kept = session
            else:
                await _drop(session)
        if kept is not None:
            if kept.is_initiated:  # started again from scratch: a failed attempt leaves nothing behind
                await provider.delete(kept)
            kept.data = await provider.initiate(collection.amount, None)
            kept.amount, kept.is_selected, kept.is_initiated, kept.status = collection.amount, True, True, "pending"
            await kept.save()
        else:
            await PaymentCollectionSession.create(
                payment_collection_id=collection.id, provider_id=provider_id, is_selected=True, is_initiated=True,
                status="pending", data=await provider.initiate(collection.amount, None), amount=collection.amount,
            )
    return await get_collection(collection_id)


async def authorize_session(collection_id: str, session_id: str) -> PaymentCollectionSession:
    """Authorize the session at its provider. Authorized: a Payment of the session's amount
    (`payment_collection_id` set) and the collection `authorized`. Otherwise the session keeps
    the provider's status, the collection is `awaiting`, and a PaymentError is raised."""
    async with atomic():
        collection = await _lock(collection_id)
        session = None
        if fits(PaymentCollectionSession, session_id):
            session = await PaymentCollectionSession.get_or_none(id=session_id, payment_collection_id=collection.id)
        if session is None:
            raise NotFound(f"Payment session with id {session_id} was not found")
        if session.payment_authorized_at is not None:
            return session
        if collection.status not in OPEN_STATUSES:
            raise NotAllowed(f"Cannot authorize a payment of a payment collection with status {collection.status}")
        status, data = await get_provider(session.provider_id).authorize(session)
        session.status, session.data = status, data
        if status == "authorized":
            session.payment_authorized_at = clock.now()
            await Payment.create(
                payment_collection_id=collection.id, amount=session.amount, currency_code=collection.currency_code,
                provider_id=session.provider_id, data=data,
            )
            collection.status, collection.authorized_amount = "authorized", session.amount
        else:
            collection.status = "awaiting"
        await session.save()
        await collection.save(update_fields=["status", "authorized_amount", "updated_at"])
    if session.status != "authorized":
        raise PaymentError(f'Failed to authorize Payment Session id "{session_id}"')
    return session


async def is_authorized(collection_id: str) -> bool:
    return await PaymentCollection.filter(id=collection_id, status="authorized").exists()


async def settle(collection_id: str, order_id: str) -> None:
    """Inside the transaction confirming an edit: an authorized collection's payments become the
    order's; a collection not paid is canceled (the back office confirmed without it)."""
    collection = await _lock(collection_id)
    if collection.status == "authorized":
        await Payment.filter(payment_collection_id=collection.id).update(order_id=order_id)
    else:
        await release(collection_id)


async def release(collection_id: str) -> None:
    """Inside the caller's transaction: end the collection. Its authorized payments are canceled
    at their provider and its initiated sessions dropped there; the rows stay as a record."""
    collection = await _lock(collection_id)
    if collection.status == "canceled":
        return
    for payment in await Payment.filter(payment_collection_id=collection.id, canceled_at=None, captured_at=None):
        payment.data = await get_provider(payment.provider_id).cancel(dict(payment.data or {}))
        payment.canceled_at = clock.now()
        await payment.save(update_fields=["data", "canceled_at", "updated_at"])
    for session in await PaymentCollectionSession.filter(payment_collection_id=collection.id, is_initiated=True):
        if session.payment_authorized_at is None:
            await get_provider(session.provider_id).delete(session)
            session.status = "canceled"
            await session.save(update_fields=["status", "updated_at"])
    collection.status = "canceled"
    await collection.save(update_fields=["status", "updated_at"])


async def _drop(session: PaymentCollectionSession) -> None:
    if session.is_initiated:
        await get_provider(session.provider_id).delete(session)
    await session.delete()
