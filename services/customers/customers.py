"""Customers: sign-in, look-ups, and the back office's list, create and update."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q, Subquery
from tortoise.queryset import QuerySet

from models import Address, Customer, CustomerGroup, Order
from services.core.db import atomic
from services.core.sql import insert_unless_taken
from services.core.errors import Duplicate, InvalidData, NotFound, Unauthorized
from services.core.listing import FindConfig, date_filters, find_one, find_page, find_plain_page
from services.core.passwords import dummy_hash, hash_password_async, strengthen_hash, verify_password_async
from services.core.tokens import STORE_JWT_TTL, issue_jwt, password_stamp, stamp_matches
from services.core.updates import apply_changes, save_changes
from services.users.users import normalize_email
from services.events import names as ev
from services.events.bus import emit

__all__ = [
    "authenticate_customer", "account_exists", "get_customer", "issue_store_jwt", "still_signed_in",
    "CUSTOMER_RELATIONS",
    "CustomerFilter", "list_customers", "create_customer", "update_customer", "attach_billing_addresses",
    "KEEP", "guest_customer",
]

# What the store's sign-in and current-customer routes show with a customer.
CUSTOMER_RELATIONS = ("shipping_addresses",)
ORDERS = "orders"
# `billing_address_id` is a plain column (see models/customer.py): this relation is attached here.
BILLING_ADDRESS = "billing_address"
ACCOUNT_EXISTS = "A customer with the given email already has an account. Log in instead"
KEEP: Any = object()  # an update argument left as KEEP leaves its column as it is


@dataclass
class CustomerFilter:
    q: str | None = None  # case-insensitive, over email, first_name and last_name
    has_account: bool | None = None
    groups: list[str] = field(default_factory=list)  # customers in any of these groups
    created_at: dict[str, datetime | None] | None = None
    updated_at: dict[str, datetime | None] | None = None


# ---------------------------------------------------------------- store sign-in

async def authenticate_customer(email: str, password: str) -> Customer:
    """The registered customer with that email and password; the same Unauthorized otherwise."""
    customer = await Customer.get_or_none(
        email=(email or "").strip().lower(), has_account=True, deleted_at=None
    )
    ok = await verify_password_async(password, customer.password_hash if customer else dummy_hash())
    if customer is None or not ok:
        raise Unauthorized("Unauthorized")
    await strengthen_hash(Customer, customer, password)  # a hash moved from Medusa v1 is replaced by ours
    return customer


async def account_exists(email: str) -> bool:
    return await Customer.filter(
        email=(email or "").strip().lower(), has_account=True, deleted_at=None
    ).exists()


def issue_store_jwt(secret: str, customer: Customer) -> str:
    claims = {"customer_id": customer.id, "domain": "store", "stamp": password_stamp(secret, customer.password_hash)}
    return issue_jwt(secret, claims, STORE_JWT_TTL)


async def still_signed_in(secret: str, customer_id: str, stamp: object) -> bool:
    """Whether a session or JWT of this customer still stands: the password is unchanged since
    the sign-in. One query of one column by primary key, on every signed-in request. (A deleted
    customer's routes answer 404 further on, as in Medusa v1.)"""
    found = await Customer.filter(id=customer_id).limit(1).values_list("password_hash", flat=True)
    return bool(found) and stamp_matches(secret, found[0], stamp)


# ---------------------------------------------------------------- reading

async def get_customer(customer_id: str, relations: tuple[str, ...] = ()) -> Customer:
    customer = await find_one(Customer.filter(id=customer_id, deleted_at=None), _orm_relations(relations))
    if customer is None:
        raise NotFound(f"Customer with id: {customer_id} was not found")
    await attach_billing_addresses([customer], relations)
    await attach_order_rows([customer], relations)
    return customer


def _filtered(f: CustomerFilter) -> QuerySet:
    qs = Customer.filter(deleted_at=None, **date_filters(created_at=f.created_at, updated_at=f.updated_at))
    if f.q:
        qs = qs.filter(Q(email__icontains=f.q) | Q(first_name__icontains=f.q) | Q(last_name__icontains=f.q))
    if f.has_account is not None:
        qs = qs.filter(has_account=f.has_account)
    if f.groups:
        # A customer in two of the groups would be joined twice; select each once.
        members = Customer.filter(groups__id__in=f.groups, groups__deleted_at=None).values_list("id", flat=True)
        qs = qs.filter(id__in=Subquery(members))
    return qs


async def list_customers(f: CustomerFilter, config: FindConfig) -> tuple[list[Customer], int]:
    """One page of live customers and the total count; statements do not grow with the page.
    Without relations (the dashboard's list), the statements are built once per filter and page."""
    if not config.relations:
        return await find_plain_page(Customer, repr(f), lambda: _filtered(f), config)
    customers, count = await find_page(
        _filtered(f), replace(config, relations=_orm_relations(config.relations))
    )
    await attach_billing_addresses(customers, config.relations)
    await attach_order_rows(customers, config.relations)
    return customers, count


def _orm_relations(relations: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(r for r in relations if r.split(".")[0] not in (BILLING_ADDRESS, ORDERS))


async def attach_order_rows(customers: list[Customer], relations: tuple[str, ...]) -> None:
    """Set `customer.order_rows` when the `orders` relation was asked for: each order's columns
    (a dict, as the ORM reads them), oldest first, one statement for all. Medusa v1's relation
    shows orders as rows, without lines or totals, and a customer of years has hundreds: built as
    model instances they cost most of the customer page."""
    if ORDERS not in relations:
        return
    rows: dict[str, list[dict]] = {c.id: [] for c in customers}
    for row in await Order.filter(customer_id__in=list(rows)).order_by("created_at", "id").values():
        rows[row["customer_id"]].append(row)
    for customer in customers:
        customer.order_rows = rows[customer.id]


async def attach_billing_addresses(customers: list[Customer], relations: tuple[str, ...]) -> None:
    """Set `customer.billing_address` (one query for all) when the relation was asked for."""
    if BILLING_ADDRESS not in relations:
        return
    ids = {c.billing_address_id for c in customers if c.billing_address_id}
    found = {a.id: a for a in await Address.filter(id__in=ids, deleted_at=None)} if ids else {}
    for customer in customers:
        customer.billing_address = found.get(customer.billing_address_id)


# ---------------------------------------------------------------- writing

async def create_customer(
    *, email: str, first_name: str | None, last_name: str | None, password: str,
    phone: str | None = None, metadata: dict | None = None,
) -> Customer:
    """A registered customer (`has_account`). A guest row with the same email does not block it."""
    email = normalize_email(email)
    password_hash = await hash_password_async(password)
    try:
        async with atomic():
            if await _registered(email).exists():
                raise Duplicate(ACCOUNT_EXISTS)
            customer = await Customer.create(
                email=email, first_name=first_name, last_name=last_name, phone=phone, metadata=metadata,
                password_hash=password_hash, has_account=True,
            )
            await emit(ev.CUSTOMER_CREATED, id=customer.id)  # never the hash (Medusa sends the whole row)
            return customer
    except IntegrityError:  # another request registered the email between the check and the insert
        raise Duplicate(ACCOUNT_EXISTS) from None


def _registered(email: str) -> QuerySet:
    return Customer.filter(email=email, has_account=True, deleted_at=None)


async def update_customer(
    customer_id: str, relations: tuple[str, ...] = (), *, email: str | None = None, first_name: Any = KEEP,
    last_name: Any = KEEP, phone: Any = KEEP, password: str | None = None, metadata: dict | None = None,
    group_ids: list[str] | None = None,
) -> Customer:
    """Change a customer and return it with `relations`; `group_ids` replaces the whole membership
    (`[]` leaves every group). Everything is checked before anything is written, in one transaction."""
    password_hash = await hash_password_async(password) if password else None
    try:
        async with atomic():
            customer = await Customer.select_for_update().get_or_none(id=customer_id, deleted_at=None)
            if customer is None:
                raise NotFound(f"Customer with id: {customer_id} was not found")
            changed = await _changed_email(customer, email)
            groups = await _groups(group_ids) if group_ids is not None else None
            columns = {"first_name": first_name, "last_name": last_name, "phone": phone, "email": changed}
            updates = {k: v for k, v in columns.items() if v is not KEEP}
            if password_hash:
                updates["password_hash"] = password_hash
            # A given name, phone or password is written (and customer.updated emitted) even when it is the
            # one stored: only the email is compared first (_changed_email).
            customer.update_from_dict(updates)
            written = await save_changes(customer, [*updates, *apply_changes(customer, {}, metadata=metadata)])
            if groups is not None:
                await customer.groups.clear()
                await customer.groups.add(*groups)
            if written or groups is not None:
                await emit(ev.CUSTOMER_UPDATED, id=customer.id)
    except IntegrityError:
        if email is None:  # not the email index: leave it to the web tier's generic mapping
            raise
        raise Duplicate("A customer with the given email already exists.") from None
    return await get_customer(customer_id, relations)


async def _changed_email(customer: Customer, email: str | None) -> Any:
    """The new email (lower-cased), or KEEP when it is absent or the same as now."""
    if email is None:
        return KEEP
    email = normalize_email(email)
    if email == customer.email:
        return KEEP
    if customer.has_account:
        raise InvalidData("Email cannot be changed when the user has registered their account")
    if await Customer.filter(email=email, has_account=False, deleted_at=None).exclude(id=customer.id).exists():
        raise Duplicate("A customer with the given email already exists.")
    return email


async def _groups(group_ids: list[str]) -> list[CustomerGroup]:
    wanted = list(dict.fromkeys(group_ids))
    groups = await CustomerGroup.filter(id__in=wanted, deleted_at=None) if wanted else []
    missing = [g for g in wanted if g not in {group.id for group in groups}]
    if missing:
        raise NotFound(f"Customer_group with customer_group_id {', '.join(missing)} does not exist.")
    return groups


async def guest_customer(email: str) -> Customer:
    """The guest customer (no account) with this email, created on first use (checkout, draft
    orders); a registered customer with the same email is a different customer, as in Medusa v1."""
    email = normalize_email(email)
    # Written unless the email has its guest already (the unique live (email, has_account)), which
    # is then read: one statement for a new guest, two for a known one, and a race for the same
    # email is lost without an error (it waits for the other insert, then reads its row).
    customer = Customer(email=email, has_account=False)
    if await insert_unless_taken(customer):
        return customer
    return await Customer.get(email=email, has_account=False, deleted_at=None)
