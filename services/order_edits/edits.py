"""Order edits: the back office proposes changes to a placed order, the shopper confirms or
declines them. One function per use case; each runs in one
transaction that first locks the order's row, so everything done to one order's edits happens
one request at a time (and two edits can never be active at once).

What each use case may do from each status is the table TRANSITIONS below; creating an edit
needs no active edit of the order (else 400 invalid_data), and its note changes in any status.

Departures from Medusa v1, on purpose:
- lines change only while the edit is `created`: once the shopper has been asked, what they were
  shown (and the amount they may have paid) stays as it is; cancel and start another edit;
- asking again changes nothing (Medusa makes a second payment collection each time);
- an edit that would leave the order without a line is refused at request and at confirmation
  (Medusa v1 could leave an order with no lines);
- confirming swaps the lines in one transaction with the order locked (Medusa runs the two
  updates in parallel), moves stock by the difference, and ends the edit's payment collection:
  its payments become the order's, or, when the back office confirms without it, it is
  canceled so it can no longer be paid;
- canceling or declining cancels the payment the shopper may have authorized for the edit;
- a canceled order cannot be edited.
A negative difference (money owed back to the shopper) is shown as `difference_due` and nothing
more: refunds are not part of this back end yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from models import LineItem, Order, OrderEdit, OrderItemChange
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotAllowed, NotFound
from services.core.ids import fits
from services.order_edits.items import (
    add_line, apply_stock, change_quantity, clone_order_items, delete_edit_lines, remove_line, undo_change,
)
from services.order_edits.totals import ACTIVE, EDIT_NOT_FOUND, EditView, edit_status, load_edit_view, load_edit_views
from services.orders.view import ADMIN_NOT_FOUND
from services.payments.collections import create_collection, is_authorized, release, settle
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "create_edit", "update_edit", "delete_edit", "add_item", "update_item", "remove_item", "delete_change",
    "request_confirmation", "cancel_edit", "confirm_edit", "complete_edit", "decline_edit", "REQUESTED_EVENT",
    "TRANSITIONS",
]

REQUESTED_EVENT = ev.ORDER_EDIT_REQUESTED  # the notifications hear it and ask the shopper to confirm
NO_ITEMS = "An order edit cannot remove every item of the order; cancel the order instead"


@dataclass(frozen=True)
class Transition:
    allowed: tuple[str, ...]  # the statuses it may start from
    to: str | None  # the status it leaves the edit in, where a repeat changes nothing (None: deleted)
    refusal: str  # 400 not_allowed from any other status (Medusa's texts, with {id} and {status})


_LINES = "Can not update an item on the order edit {id} with the status {status}"
# Statuses from services/order_edits/totals.edit_status.
TRANSITIONS = {
    "add_item": Transition(("created",), "created", "Can not add an item to the edit with status {status}"),
    "update_item": Transition(("created",), "created", _LINES),
    "remove_item": Transition(("created",), "created", _LINES),
    # sic "and": Medusa's text
    "delete_change": Transition(("created",), "created", "Cannot delete and item change from a {status} order edit"),
    "delete": Transition(("created",), None, "Cannot delete order edit with status {status}"),
    "request": Transition(
        ("created",), "requested", "Cannot request confirmation on an order edit with status {status}",
    ),
    "confirm": Transition(("created", "requested"), "confirmed", "Cannot confirm an order edit with status {status}"),
    "complete": Transition(("requested",), "confirmed", "Cannot complete an order edit with status {status}"),
    "decline": Transition(("requested",), "declined", "Cannot decline an order edit with status {status}."),
    "cancel": Transition(("created", "requested"), "canceled", "Cannot cancel order edit with status {status}"),
}


def _may(edit: OrderEdit, use_case: str) -> bool:
    """True when the edit may go through `use_case` now; False when that already happened (a
    repeat changes nothing); NotAllowed from any other status."""
    transition = TRANSITIONS[use_case]
    status = edit_status(edit)
    if status in transition.allowed:
        return True
    if status == transition.to:
        return False
    raise NotAllowed(transition.refusal.format(id=edit.id, status=status))


async def _lock(edit_id: str) -> tuple[OrderEdit | None, Order | None]:
    """The edit, read again once its order's row is locked (the caller is inside `atomic()`);
    (None, None) when there is no such edit."""
    edit = await OrderEdit.get_or_none(id=edit_id) if fits(OrderEdit, edit_id) else None
    if edit is None:
        return None, None
    order = await Order.filter(id=edit.order_id).select_for_update().first()
    return await OrderEdit.get(id=edit_id), order


async def _locked(edit_id: str) -> tuple[OrderEdit, Order]:
    edit, order = await _lock(edit_id)
    if edit is None:
        raise NotFound(EDIT_NOT_FOUND.format(id=edit_id))
    return edit, order


def _open_order(order: Order) -> None:
    if order.status == "canceled":
        raise NotAllowed("Cannot edit a canceled order")


# ---------------------------------------------------------------- the edit

async def create_edit(order_id: str, created_by: str, internal_note: str | None = None) -> EditView:
    """A `created` edit of the order holding a copy of each of its lines."""
    async with atomic():
        order = None
        if fits(Order, order_id):
            order = await Order.filter(id=order_id).select_for_update().first()
        if order is None:
            raise NotFound(ADMIN_NOT_FOUND.format(id=order_id))
        _open_order(order)
        if await OrderEdit.filter(order_id=order.id, **ACTIVE).exists():
            raise InvalidData(f"An active order edit already exists for the order {order_id}")
        edit = await OrderEdit.create(order_id=order.id, created_by=created_by, internal_note=internal_note)
        await clone_order_items(order.id, edit.id)
        await emit(ev.ORDER_EDIT_CREATED, id=edit.id)
    return await load_edit_view(edit.id)


async def update_edit(edit_id: str, internal_note: str | None) -> EditView:
    """The back office's note; any status (Medusa's rule)."""
    async with atomic():
        edit, _ = await _locked(edit_id)
        if internal_note is not None:
            edit.internal_note = internal_note
            await edit.save(update_fields=["internal_note", "updated_at"])
    return await load_edit_view(edit_id)


async def delete_edit(edit_id: str) -> None:
    """Delete a `created` edit with its lines and changes; a missing edit is not an error."""
    async with atomic():
        edit, _ = await _lock(edit_id)
        if edit is None:
            return
        _may(edit, "delete")
        await OrderItemChange.filter(order_edit_id=edit.id).delete()
        await delete_edit_lines(edit.id)
        await edit.delete()


# ---------------------------------------------------------------- its lines

async def add_item(edit_id: str, variant_id: str, quantity: int, metadata: dict | None = None) -> EditView:
    async with atomic():
        edit, order = await _locked(edit_id)
        _may(edit, "add_item")
        await add_line(edit, order, variant_id, quantity, metadata)
        # Read inside the transaction: totals that leave the amount range roll the change back.
        return await load_edit_view(edit_id)


async def update_item(edit_id: str, item_id: str, quantity: int) -> EditView:
    async with atomic():
        edit, order = await _locked(edit_id)
        _may(edit, "update_item")
        await change_quantity(edit, order, item_id, quantity)
        # Read inside the transaction: totals that leave the amount range roll the change back.
        return await load_edit_view(edit_id)


async def remove_item(edit_id: str, item_id: str) -> EditView:
    async with atomic():
        edit, order = await _locked(edit_id)
        _may(edit, "remove_item")
        await remove_line(edit, order, item_id)
    return await load_edit_view(edit_id)


async def delete_change(edit_id: str, change_id: str) -> None:
    async with atomic():
        edit, order = await _locked(edit_id)
        _may(edit, "delete_change")
        await undo_change(edit, order, change_id)


# ---------------------------------------------------------------- transitions

async def request_confirmation(edit_id: str, requested_by: str, description: str | None = None) -> EditView:
    """Ask the shopper to confirm: `requested`, a payment collection of `difference_due` when the
    shopper owes money, and the message `order-edit.requested` to the order's email (unless the
    order is marked `no_notification`). Asking again changes nothing."""
    async with atomic():
        edit, order = await _locked(edit_id)
        if _may(edit, "request"):
            await _request(edit, order, requested_by, description)
    return await load_edit_view(edit_id)


async def _request(edit: OrderEdit, order: Order, requested_by: str, description: str | None) -> None:
    _open_order(order)
    if not await OrderItemChange.filter(order_edit_id=edit.id, deleted_at=None).exists():
        raise InvalidData("Cannot request a confirmation on an edit with no changes")
    view = (await load_edit_views([edit]))[0]
    if not view.items:
        raise NotAllowed(NO_ITEMS)
    edit.requested_at, edit.requested_by = clock.now(), requested_by
    due = view.difference_due
    if due > 0:
        edit.payment_collection_id = (await create_collection(order, due, requested_by, description)).id
    await edit.save(update_fields=["requested_at", "requested_by", "payment_collection_id", "updated_at"])
    if not order.no_notification:  # nor the event then, as before the notifications heard it
        await emit(
            REQUESTED_EVENT, id=edit.id, order_id=order.id, display_id=order.display_id, difference_due=due,
            currency_code=order.currency_code, payment_collection_id=edit.payment_collection_id,
        )


async def cancel_edit(edit_id: str, canceled_by: str) -> EditView:
    async with atomic():
        edit, _ = await _locked(edit_id)
        if _may(edit, "cancel"):
            edit.canceled_at, edit.canceled_by = clock.now(), canceled_by
            await edit.save(update_fields=["canceled_at", "canceled_by", "updated_at"])
            await emit(ev.ORDER_EDIT_CANCELED, id=edit.id)
            if edit.payment_collection_id:
                await release(edit.payment_collection_id)
    return await load_edit_view(edit_id)


async def confirm_edit(edit_id: str, confirmed_by: str) -> EditView:
    """The back office confirms for the shopper (e.g. agreed by phone), with or without the
    request and the payment (Medusa's rule: the store side is the one that checks payment)."""
    async with atomic():
        edit, order = await _locked(edit_id)
        if _may(edit, "confirm"):
            await _confirm(edit, order, confirmed_by)
    return await load_edit_view(edit_id)


async def complete_edit(edit_id: str, customer_id: str | None) -> EditView:
    """The shopper confirms a requested edit; an amount due must be authorized first."""
    async with atomic():
        edit, order = await _locked(edit_id)
        if _may(edit, "complete"):
            if edit.payment_collection_id and not await is_authorized(edit.payment_collection_id):
                raise NotAllowed("Unable to complete an order edit if the payment is not authorized")
            await _confirm(edit, order, customer_id)
    return await load_edit_view(edit_id)


async def decline_edit(edit_id: str, customer_id: str | None, reason: str | None = None) -> EditView:
    async with atomic():
        edit, _ = await _locked(edit_id)
        if _may(edit, "decline"):
            edit.declined_at, edit.declined_by, edit.declined_reason = clock.now(), customer_id, reason
            await edit.save(update_fields=["declined_at", "declined_by", "declined_reason", "updated_at"])
            await emit(ev.ORDER_EDIT_DECLINED, id=edit.id)
            if edit.payment_collection_id:
                await release(edit.payment_collection_id)
    return await load_edit_view(edit_id)


async def _confirm(edit: OrderEdit, order: Order, confirmed_by: str | None) -> None:
    """The edit's lines become the order's in place of its current ones (which stay, detached,
    for the edit's history), inside the caller's transaction with the order locked."""
    _open_order(order)
    if not await LineItem.filter(order_edit_id=edit.id).exists():
        raise NotAllowed(NO_ITEMS)
    await apply_stock(order.id, edit.id, order.sales_channel_id)
    await LineItem.filter(order_id=order.id).update(order_id=None)
    await LineItem.filter(order_edit_id=edit.id).update(order_id=order.id)
    if edit.payment_collection_id:
        await settle(edit.payment_collection_id, order.id)
    edit.confirmed_at, edit.confirmed_by = clock.now(), confirmed_by
    await edit.save(update_fields=["confirmed_at", "confirmed_by", "updated_at"])
    await emit(ev.ORDER_EDIT_CONFIRMED, id=edit.id)
