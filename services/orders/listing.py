"""Finding orders: the back office's list, a customer's own list, and a shopper's look-up by
display id and email.

A page costs a fixed number of statements: the page's ids (filters stay ORM filters), its
count when the page does not tell it, then the orders and everything below them as
services/orders/view.py reads them, once for the whole page; or, when the answer shows only the
orders' columns, totals and one-row relations (the dashboard's order table), the lean page of
services/orders/list_reads.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime

from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

from services.core.errors import NotFound
from models import Address, Customer, Order
from services.core.listing import FindConfig, date_filters, find_page_ids
from services.core.search_pages import AnyOf, find_page_ids_of_any
from services.orders.list_reads import ListedOrder, read_listed, reads_lean
from services.orders.view import AFTER_SALE_RELATIONS, OrderView, load_views, read_orders

__all__ = ["OrderFilter", "filtered_orders", "list_orders", "lookup_order"]

_DISPLAY_ID = re.compile(r"^#?\s*(\d{1,9})$")


@dataclass
class OrderFilter:
    q: str | None = None
    id: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    fulfillment_status: list[str] = field(default_factory=list)
    payment_status: list[str] = field(default_factory=list)
    display_id: int | None = None
    cart_id: str | None = None
    customer_id: str | None = None
    email: str | None = None
    region_id: list[str] = field(default_factory=list)
    currency_code: str | None = None
    tax_rate: float | None = None
    sales_channel_id: list[str] = field(default_factory=list)
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None
    canceled_at: dict[str, datetime | None] | None = None


def filtered_orders(f: OrderFilter) -> QuerySet:
    qs = Order.filter(
        **date_filters(created_at=f.created_at, updated_at=f.updated_at, canceled_at=f.canceled_at)
    )
    for column in ("id", "status", "fulfillment_status", "payment_status", "region_id", "sales_channel_id"):
        if getattr(f, column):
            qs = qs.filter(**{f"{column}__in": getattr(f, column)})
    plain = {
        "display_id": f.display_id, "cart_id": f.cart_id, "customer_id": f.customer_id, "tax_rate": f.tax_rate,
        "email__iexact": f.email.strip() if f.email else None,
        "currency_code": f.currency_code.lower() if f.currency_code else None,
    }
    qs = qs.filter(**{k: v for k, v in plain.items() if v is not None})
    if f.q:
        qs = qs.filter(_search(f.q.strip()))
    return qs


def _search(q: str) -> Q:
    """`q` over the order's email, its shipping first name and its customer's names and phone,
    or its number (`1042` or `#1042`). Unlike Medusa v1, an order without a customer or a
    shipping address can match, and the other filters still apply. Each of those is its own
    query, on its own index (migration 0029: trigram indexes on PostgreSQL), rather than one
    condition over the orders joined to their customers and addresses, which tests every order."""
    return Q(id__in=AnyOf(*(Order.filter(place).values("id") for place in _search_places(q))))


def _search_places(q: str) -> list[Q]:
    """The places `_search` looks in, each a filter of orders, the one most likely to show a broad
    search at least cost first (see `find_page_ids_of_any`): a name's orders through the customers
    that bear it (an index of each customer's orders), or, for a `q` with `@` or `.`, the e-mails."""
    customers = Customer.filter(Q(first_name__icontains=q) | Q(last_name__icontains=q) | Q(phone__icontains=q))
    addresses = Address.filter(first_name__icontains=q)
    email, named = Q(email__icontains=q), Q(customer_id__in=Subquery(customers.values("id")))
    places = [
        *([email, named] if "@" in q or "." in q else [named, email]),
        Q(shipping_address_id__in=Subquery(addresses.values("id"))),
    ]
    number = _DISPLAY_ID.match(q)
    if number:
        places.append(Q(display_id=int(number.group(1))))
    return places


async def _page_ids(f: OrderFilter, config: FindConfig) -> tuple[list, int]:
    """The page's order ids and the count. A search reads each place it looks in with the other
    filters, in the list's order, up to the page's end (services/core/search_pages.py
    `find_page_ids_of_any`): a name that thousands of orders match finds the newest of them along
    the date index, rather than reading and sorting them all."""
    q = f.q.strip() if f.q else ""
    if not q:
        return await find_page_ids(filtered_orders(f), config)
    unsearched = filtered_orders(replace(f, q=None))
    return await find_page_ids_of_any(unsearched, _search_places(q), config, estimated_by=filtered_orders(f))


async def list_orders(f: OrderFilter, config: FindConfig) -> tuple[list[OrderView | ListedOrder], int]:
    """One page of orders with their relations and totals, and the total count. An answer that
    shows no row below the orders is read lean (`reads_lean`); otherwise lines are read with
    their variants only when the answer shows lines, and after-sale rows only when it shows them."""
    ids, count = await _page_ids(f, config)
    if reads_lean(config.relations):
        return await read_listed(ids, config.relations), count
    orders = await read_orders(ids)
    shown = {r.split(".")[0] for r in config.relations}
    return await load_views(orders, line_detail=bool(shown & {"items", "returnable_items"}),
                            after_sale=bool(shown & AFTER_SALE_RELATIONS)), count


async def lookup_order(display_id: int, email: str, postal_code: str | None = None) -> OrderView:
    """The order with that number and email (and shipping postal code, when given: Medusa v1
    accepts it and ignores it). Anything else is the same NotFound, which tells nothing."""
    ids = await Order.filter(display_id=display_id, email__iexact=email.strip()).limit(1).values_list("id", flat=True)
    order = (await read_orders(list(ids)) or [None])[0]
    if order is None or (postal_code is not None and not _same_postal_code(order, postal_code)):
        raise NotFound("Not Found")
    return (await load_views([order]))[0]


def _same_postal_code(order, postal_code: str) -> bool:
    # Spaces and case do not make a different code: "SW1A 1AA" is "sw1a1aa".
    address = order.shipping_address
    if address is None or address.postal_code is None:
        return False
    return "".join(address.postal_code.split()).casefold() == "".join(postal_code.split()).casefold()
