"""An order edit as every edit route answers it: the edit, its status, its changes with the lines
they name, its payment collection, and its totals.

Totals are the order's own (services/orders/view.py) run twice: over the order as it
is and over a copy of it whose lines are the edit's lines, so an edit can never be totalled by a
rule the order is not. `difference_due` is the edited total less the order's
current total: positive, the shopper owes it; negative, the shop owes it back. A confirmed edit
has settled its difference, so its `difference_due` is 0 even once a later edit changed the order.

Reads take a fixed number of statements whatever the number of edits or lines.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models import LineItem, LineItemAdjustment, LineItemTaxLine, OrderEdit, OrderItemChange, PaymentCollection
from services.core.errors import NotFound
from services.core.ids import fits
from services.core.listing import FindConfig, find_page
# `_totals` is the order view's own step from loaded rows to totals: the one rule both must share.
from services.orders.view import OrderView, compute_totals, load_views, read_orders, rows_by

__all__ = [
    "EditView", "edit_status", "load_edit_view", "load_edit_views", "list_edits", "EDIT_NOT_FOUND",
    "ACTIVE",
]

EDIT_NOT_FOUND = "Order edit with id {id} was not found"
# An edit that is none of confirmed, canceled or declined: an order has one at most.
ACTIVE = dict(confirmed_at=None, canceled_at=None, declined_at=None)


def edit_status(edit: OrderEdit) -> str:
    """From the timestamps, the later states winning."""
    if edit.canceled_at is not None:
        return "canceled"
    if edit.confirmed_at is not None:
        return "confirmed"
    if edit.declined_at is not None:
        return "declined"
    if edit.requested_at is not None:
        return "requested"
    return "created"


@dataclass
class EditView:
    edit: OrderEdit
    order: OrderView  # the order as it is now, with its totals
    edited: OrderView  # the same order with the edit's lines in place of its own, and its totals
    changes: list[OrderItemChange]
    change_items: dict[str, LineItem]  # by id, with variant: every line a change names that still exists
    payment_collection: PaymentCollection | None

    @property
    def status(self) -> str:
        return edit_status(self.edit)

    @property
    def items(self) -> list[LineItem]:
        return self.edited.items

    @property
    def difference_due(self) -> int:
        """Minor units; positive: to collect from the shopper, negative: to give back."""
        if self.edit.confirmed_at is not None:
            return 0
        return self.edited.totals.total - self.order.totals.total


async def load_edit_view(edit_id: str, *, message: str = EDIT_NOT_FOUND) -> EditView:
    edit = await OrderEdit.get_or_none(id=edit_id) if fits(OrderEdit, edit_id) else None
    if edit is None:
        raise NotFound(message.format(id=edit_id))
    return (await load_edit_views([edit]))[0]


async def list_edits(
    config: FindConfig, *, q: str | None = None, order_id: str | None = None,
) -> tuple[list[EditView], int]:
    """Edits newest first by default; `q` matches part of the internal note, in any case."""
    qs = OrderEdit.all()
    if q and q.strip():
        qs = qs.filter(internal_note__icontains=q.strip())
    if order_id is not None:
        qs = qs.filter(order_id=order_id)
    edits, count = await find_page(qs, replace(config, relations=()))
    return await load_edit_views(list(edits)), count


async def load_edit_views(edits: list[OrderEdit]) -> list[EditView]:
    """Views of the edits, in their order."""
    if not edits:
        return []
    edit_ids = [e.id for e in edits]
    order_ids = list(dict.fromkeys(e.order_id for e in edits))
    orders = {v.order.id: v for v in await load_views(await read_orders(order_ids))}
    items = list(
        await LineItem.filter(order_edit_id__in=edit_ids).select_related("variant").order_by("created_at", "id")
    )
    item_ids = [i.id for i in items]
    adjustments = rows_by(
        await LineItemAdjustment.filter(item_id__in=item_ids).order_by("created_at", "id"), "item_id", item_ids,
    ) if item_ids else {}
    tax_lines = rows_by(
        await LineItemTaxLine.filter(item_id__in=item_ids).order_by("created_at", "id"), "item_id", item_ids,
    ) if item_ids else {}
    changes = rows_by(
        await OrderItemChange.filter(order_edit_id__in=edit_ids, deleted_at=None).order_by("created_at", "id"),
        "order_edit_id", edit_ids,
    )
    named = {
        i for edit_changes in changes.values() for c in edit_changes
        for i in (c.line_item_id, c.original_line_item_id) if i
    }
    change_items = {i.id: i for i in await LineItem.filter(id__in=named).select_related("variant")} if named else {}
    collection_ids = [e.payment_collection_id for e in edits if e.payment_collection_id]
    collections = {
        c.id: c for c in await PaymentCollection.filter(id__in=collection_ids)
    } if collection_ids else {}
    items_of = rows_by(items, "order_edit_id", edit_ids)
    views = []
    for edit in edits:
        order = orders[edit.order_id]
        mine = items_of[edit.id]
        views.append(EditView(
            edit=edit, order=order, edited=_edited(order, mine, adjustments, tax_lines),
            changes=changes[edit.id], change_items=change_items,
            payment_collection=collections.get(edit.payment_collection_id),
        ))
    return views


def _edited(order: OrderView, items: list[LineItem], adjustments: dict, tax_lines: dict) -> OrderView:
    """The order with `items` in place of its lines, totalled by the order's own function."""
    parts = dict(
        order=order.order, items=items,
        adjustments={i.id: adjustments[i.id] for i in items}, item_tax_lines={i.id: tax_lines[i.id] for i in items},
        shipping_methods=order.shipping_methods, method_tax_lines=order.method_tax_lines,
        gift_card_transactions=order.gift_card_transactions, payments=order.payments,
    )
    return replace(order, **parts, totals=compute_totals(**parts))
