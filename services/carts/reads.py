"""Reading a cart's rows for its answer in at most four statements, whatever its number of lines
(the region's own parts come from services/regions/parts.py):

1. the cart with its region, addresses and sales channel, its payment sessions joined, and how
   many shipping methods, discounts, gift cards and shipping offers of its own it has (and its
   live payment, when asked);
   UNION ALL its lines with variant, product and shipping profile: a plain cart (no discount,
   taxes computed) is read in this one statement;
2. its discounts with their rules, skipped when it has none;
3. its gift cards, skipped when it has none;
4. its lines again, only when the cart has an amount discount (their adjustments joined;
   services/carts/discounts.py stores none otherwise) or the caller needs their stored tax lines.

The first statement's union has a third branch: the cart's shipping methods with their options
and their stored tax lines, so a shipped cart costs no round trip more than an unshipped one.

A one-to-many join repeats the parent's columns on each child row; the rows are folded back by
primary key, in the order the statement sorts them (parents by creation, then their children).
Instances are built the way the ORM builds them (`_init_from_db`), so they serialize and save
exactly as queried ones do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pypika_tortoise import Table
from pypika_tortoise import functions as fn
from pypika_tortoise.terms import LiteralValue

from models import (
    Address, Cart, Discount, GiftCard, LineItem, LineItemAdjustment, LineItemTaxLine, Payment, PaymentSession, Product,
    ProductVariant, Region, SalesChannel, ShippingMethod, ShippingMethodTaxLine, ShippingOption, ShippingProfile,
)
from services.carts.variant_reads import (  # read here before services/carts/variant_reads.py; imported from here
    LockedVariants, fold_locked_variants, locked_variants_statement, read_variants,
)
from services.core.sql import Source as _Source
from services.core.sql import aliased_columns, by_creation, placeholders, typed_null
from services.core.sql import source as _source

__all__ = [
    "CartRows", "LockedVariants", "amount_discount", "fold_locked_variants", "has_free_shipping",
    "locked_variants_statement", "read_cart", "read_cart_lines", "read_region_with_default_channel", "read_variants",
]


def amount_discount(discounts: list[Discount]) -> Discount | None:
    """The cart's one discount that takes an amount off its lines (the others free shipping)."""
    return next((d for d in discounts if d.rule.type != "free_shipping"), None)


def has_free_shipping(discounts: list[Discount]) -> bool:
    return any(d.rule.type == "free_shipping" for d in discounts)


@dataclass
class CartRows:
    cart: Cart  # with region, shipping_address, billing_address and sales_channel
    payment_sessions: list[PaymentSession]
    discounts: list[Discount]  # with rule
    gift_cards: list[GiftCard]
    items: list[LineItem]  # with variant, variant.product and product.profile
    adjustments: dict[str, list[LineItemAdjustment]]  # by line id; empty without an amount discount
    shipping_methods: list[ShippingMethod]  # with shipping_option
    item_tax_lines: dict[str, list[LineItemTaxLine]] = field(default_factory=dict)  # stored; when asked for
    method_tax_lines: dict[str, list[ShippingMethodTaxLine]] = field(default_factory=dict)
    has_methods: bool = False  # whether it has shipping methods, read or not
    has_custom_options: bool = False  # whether the merchant set it shipping offers of its own (a swap's)
    payment: Payment | None = None  # its payment when not canceled; read only when asked for


async def read_cart(
    cart_id: str, *, stored_tax_lines: Callable[[Cart], bool],
    methods_wanted: Callable[[list[PaymentSession], list[Discount]], bool] | None = None, with_payment: bool = False,
    at_once: bool = False,
) -> CartRows | None:
    """The live cart's rows, or None. `stored_tax_lines(cart)`: whether its stored tax lines are
    wanted (they are not when its taxes are computed). `methods_wanted(sessions, discounts)`:
    False when the caller is about to remove the shipping methods anyway (none are read).
    `with_payment`: its payment (`cart.payment_id`, unless canceled) is joined to the first.
    `at_once`: only a cart the first statement reads whole (no discounts, gift cards or stored tax
    lines wanted) is answered, None for another too: its rows are the cart at one moment, as
    a read outside the cart's lock needs them."""
    cart_rows, line_rows, method_rows = await _cart_and_lines(cart_id, with_payment)
    if not cart_rows:
        return None
    cart, sessions, counts, payment = _fold_cart(cart_rows, with_payment)
    if at_once and (counts["discounts"] or counts["gift_cards"] or stored_tax_lines(cart)):
        return None
    discounts = await _discounts(cart) if counts["discounts"] else []
    gift_cards = await _gift_cards(cart) if counts["gift_cards"] else []
    with_taxes, with_adjustments = stored_tax_lines(cart), amount_discount(discounts) is not None
    # Read with the payment (a completion), the cart says whether its lines have stored tax lines.
    lines_taxed = with_taxes and (not with_payment or counts["item_tax_lines"] > 0)
    if lines_taxed or with_adjustments:  # the lines again, with what only such a cart needs
        items, adjustments, item_lines = await _items(cart.id, with_adjustments, lines_taxed)
        if with_taxes and not lines_taxed:
            item_lines = {item.id: [] for item in items}
    else:
        items, adjustments, item_lines = _fold_items(line_rows, False, False)
        if with_taxes:  # none stored
            item_lines = {item.id: [] for item in items}
    methods, method_lines = [], {}
    if counts["methods"] and (methods_wanted is None or methods_wanted(sessions, discounts)):
        methods, method_lines = _fold_methods(method_rows, with_taxes)
    return CartRows(
        cart=cart, payment_sessions=sessions, discounts=discounts, gift_cards=gift_cards, items=items,
        adjustments=adjustments, shipping_methods=methods, item_tax_lines=item_lines, method_tax_lines=method_lines,
        has_methods=bool(counts["methods"]), has_custom_options=bool(counts["custom_options"]), payment=payment,
    )


async def read_cart_lines(cart_id: str) -> tuple[Cart, list[LineItem], bool] | None:
    """The live cart (with its region), its lines with variant, product and profile, and whether
    it has shipping offers of its own, in the first statement of `read_cart` alone: for a reader
    that needs nothing else (the cart's shipping options)."""
    cart_rows, line_rows, _ = await _cart_and_lines(cart_id, False)
    if not cart_rows:
        return None
    cart, _, counts, _ = _fold_cart(cart_rows, False)
    return cart, _fold_items(line_rows, False, False)[0], bool(counts["custom_options"])


# The statements differ only by the cart id, so each shape is built by pypika once per process
# (building one costs more CPU than running it) and then run with the id as its one parameter.
_STATEMENTS: dict[tuple, str] = {}
_MARK = "\x00cart-id\x00"


async def _rows(shape: tuple, build: Callable[[str], Any], cart_id: str) -> list:
    db = Cart._meta.db
    key = (db.capabilities.dialect, *shape)
    sql = _STATEMENTS.get(key)
    if sql is None:
        sql = _STATEMENTS[key] = _text(build(_MARK))
    _, rows = await db.execute_query(sql, [cart_id])
    return rows


def _text(query) -> str:
    """The query's SQL, built with `_MARK` for the cart id: it must take the id once, as a parameter."""
    sql, params = query.get_parameterized_sql()
    if params != [_MARK]:
        raise RuntimeError(f"cart statement has parameters {params!r}")
    return sql


def _query():
    return Cart._meta.db.query_class


# How many rows of each table the cart has (soft-deleted ones too): 0 spares the statement that
# reads the live ones.
_COUNTED = {"methods": "shipping_method", "discounts": "cart_discounts", "gift_cards": "cart_gift_cards",
            "custom_options": "custom_shipping_option"}


def _counted(with_payment: bool) -> list[str]:
    """The counts the cart's statement carries; read with its payment (a completion, which wants
    the stored tax lines) also how many tax lines its lines have stored, so that none stored
    costs no second read of the lines."""
    return [*_COUNTED, "item_tax_lines"] if with_payment else list(_COUNTED)


def _cart_sources(with_payment: bool) -> list[_Source]:
    sources = [_source(Cart, "c"), _source(Region, "r"), _source(Address, "sa"), _source(Address, "ba"),
               _source(SalesChannel, "sc"), _source(PaymentSession, "ps")]
    return sources + [_source(Payment, "pay")] if with_payment else sources


def _line_sources() -> list[_Source]:
    return [_source(LineItem, "li"), _source(ProductVariant, "v"), _source(Product, "p"),
            _source(ShippingProfile, "pf")]


def _method_sources() -> list[_Source]:
    return [_source(ShippingMethod, "m"), _source(ShippingOption, "o"), _source(ShippingMethodTaxLine, "mt")]


def _cart_query(cart_id: str, with_payment: bool, after: list):
    """The cart's row (one per payment session), its columns followed by `after`."""
    c, r, ship, bill, channel, ps, *pay = _cart_sources(with_payment)
    query = (
        _query().from_(c.table)
        .join(r.table).on(r.table.id == c.table.region_id)
        .left_join(ship.table).on(ship.table.id == c.table.shipping_address_id)
        .left_join(bill.table).on(bill.table.id == c.table.billing_address_id)
        .left_join(channel.table).on(channel.table.id == c.table.sales_channel_id)
        .left_join(ps.table).on(ps.table.cart_id == c.table.id)
        .where((c.table.id == cart_id) & c.table.deleted_at.isnull())
    )
    if pay:
        query = query.left_join(pay[0].table).on((pay[0].table.id == c.table.payment_id)
                                                 & pay[0].table.canceled_at.isnull())
    query = query.select(LiteralValue("0").as_("part"), *(col for source in (c, r, ship, bill, channel, ps, *pay)
                                                        for col in source.select()))
    for name, table_name in _COUNTED.items():  # each table's rows of this cart, by its `cart_id`
        table = Table(table_name)
        query = query.select(_query().from_(table).select(fn.Count("*")).where(table.cart_id == c.table.id)
                             .as_(f"n_{name}"))
    if pay:
        taxed, line = Table("line_item_tax_line"), Table("line_item")
        query = query.select(_query().from_(taxed).join(line).on(line.id == taxed.item_id).select(fn.Count("*"))
                             .where(line.cart_id == c.table.id).as_("n_item_tax_lines"))
    return query.select(*after)


def _lines_query(cart_id: str, before: list, children: list):
    """The cart's lines with variant, product and profile, after the columns `before`, then each
    of `children` (source, key naming the line) joined."""
    li, v, p, pf = _line_sources()
    query = (
        _query().from_(li.table)
        .left_join(v.table).on(v.table.id == li.table.variant_id)
        .left_join(p.table).on(p.table.id == v.table.product_id)
        .left_join(pf.table).on(pf.table.id == p.table.profile_id)
        .select(*before, *li.select(), *v.select(), *p.select(), *pf.select())
        .where(li.table.cart_id == cart_id)
    )
    for child, key in children:
        query = query.left_join(child.table).on(child.table.field(key) == li.table.id).select(*child.select())
    return query


def _methods_query(cart_id: str, before: list):
    """The cart's shipping methods with their options and stored tax lines, after the columns `before`."""
    m, o, t = _method_sources()
    return (
        _query().from_(m.table)
        .join(o.table).on(o.table.id == m.table.shipping_option_id)
        .left_join(t.table).on(t.table.shipping_method_id == m.table.id)
        .select(*before, *m.select(), *o.select(), *t.select())
        .where(m.table.cart_id == cart_id)
    )


async def _cart_and_lines(cart_id: str, with_payment: bool) -> tuple[list, list, list]:
    """The cart's rows, its plain lines' rows and its shipping methods' rows, in one statement:
    each branch of the union leaves the others' columns NULL (`part` says whose a row is)."""
    db = Cart._meta.db
    dialect = db.capabilities.dialect
    key = (dialect, "cart+lines", with_payment)
    sql = _STATEMENTS.get(key)
    if sql is None:
        cart_nulls = [n for source in _cart_sources(with_payment) for n in source.nulls(dialect)]
        cart_nulls += [typed_null(dialect, "BIGINT").as_(f"n_{name}") for name in _counted(with_payment)]
        line_nulls = [n for source in _line_sources() for n in source.nulls(dialect)]
        method_nulls = [n for source in _method_sources() for n in source.nulls(dialect)]
        # Unsorted: sorting the union's wide rows costs the server more than sorting here.
        branches = (
            _cart_query(_MARK, with_payment, line_nulls + method_nulls),
            _lines_query(_MARK, [LiteralValue("1").as_("part"), *cart_nulls], []).select(*method_nulls),
            _methods_query(_MARK, [LiteralValue("2").as_("part"), *cart_nulls, *line_nulls]),
        )
        sql = _STATEMENTS[key] = " UNION ALL ".join(_text(query) for query in branches)
    _, rows = await db.execute_query(sql, [cart_id] * len(_PARTS) if dialect == "sqlite" else [cart_id])
    parts: tuple[list, list, list] = ([], [], [])
    for row in rows:
        parts[row["part"]].append(row)
    cart_rows, line_rows, method_rows = parts
    cart_rows.sort(key=by_creation("ps"))
    line_rows.sort(key=by_creation("li"))
    method_rows.sort(key=lambda row: (by_creation("m")(row), by_creation("mt")(row)))
    return cart_rows, line_rows, method_rows


_PARTS = ("cart", "lines", "methods")  # the union's branches, by `part`


def _fold_cart(rows: list, with_payment: bool) -> tuple[Cart, list[PaymentSession], dict[str, int], Payment | None]:
    c, r, ship, bill, channel, ps, *pay = _cart_sources(with_payment)
    cart = c.build(rows[0])
    joined = ((r, "region"), (ship, "shipping_address"), (bill, "billing_address"), (channel, "sales_channel"))
    for source, attr in joined:
        object.__setattr__(cart, f"_{attr}", source.build(rows[0]))
    sessions = [s for s in (ps.build(row) for row in rows) if s is not None]
    payment = pay[0].build(rows[0]) if pay else None
    return cart, sessions, {name: rows[0][f"n_{name}"] for name in _counted(with_payment)}, payment


async def _discounts(cart: Cart) -> list[Discount]:
    return list(await cart.discounts.filter(deleted_at=None).select_related("rule").order_by("created_at", "id"))


async def _gift_cards(cart: Cart) -> list[GiftCard]:
    return list(await cart.gift_cards.filter(deleted_at=None).order_by("created_at", "id"))


async def _items(cart_id: str, with_adjustments: bool, with_tax_lines: bool):
    a, t = _source(LineItemAdjustment, "a"), _source(LineItemTaxLine, "t")
    children = [(source, "item_id") for source, wanted in ((a, with_adjustments), (t, with_tax_lines)) if wanted]

    def build(cart_id: str):
        query = _lines_query(cart_id, [], children)
        for source in [_line_sources()[0]] + [child for child, _ in children]:
            query = source.order(query)
        return query

    rows = await _rows(("items", with_adjustments, with_tax_lines), build, cart_id)
    return _fold_items(rows, with_adjustments, with_tax_lines)


def _fold_items(rows: list, with_adjustments: bool, with_tax_lines: bool):
    li, v, p, pf = _line_sources()
    a, t = _source(LineItemAdjustment, "a"), _source(LineItemTaxLine, "t")
    items: dict[str, LineItem] = {}
    # Lines of one variant, variants of one product and products of one profile share one
    # instance, as they share one row.
    shared: dict[tuple[str, str], Any] = {}

    def one(source: _Source, row):
        key = (source.alias, row[source.pk_key])
        found = shared.get(key)
        if found is None and key[1] is not None:
            found = shared[key] = source.build(row)
        return found

    for row in rows:
        if row["li.id"] in items:
            continue
        item = items[row["li.id"]] = li.build(row)
        variant = one(v, row)
        object.__setattr__(item, "_variant", variant)
        if variant is not None and "_product" not in variant.__dict__:
            product = one(p, row)
            object.__setattr__(variant, "_product", product)
            if product is not None and "_profile" not in product.__dict__:
                object.__setattr__(product, "_profile", one(pf, row))
    adjustments = _children(rows, "li.id", a, items) if with_adjustments else {i: [] for i in items}
    tax_lines = _children(rows, "li.id", t, items) if with_tax_lines else {}
    return list(items.values()), adjustments, tax_lines


def _fold_methods(rows: list, with_tax_lines: bool):
    """The methods (with option) of the first statement's rows, and their stored tax lines when asked for."""
    m, o, t = _method_sources()
    methods: dict[str, ShippingMethod] = {}
    for row in rows:
        if row["m.id"] not in methods:
            method = methods[row["m.id"]] = m.build(row)
            object.__setattr__(method, "_shipping_option", o.build(row))
    tax_lines = _children(rows, "m.id", t, methods) if with_tax_lines else {}
    return list(methods.values()), tax_lines


def _children(rows: list, parent_key: str, child: _Source, parents: dict) -> dict[str, list]:
    """Each parent's distinct children, in the order the rows bring them."""
    out: dict[str, dict[str, Any]] = {pk: {} for pk in parents}
    for row in rows:
        found = child.build(row) if row[f"{child.alias}.{child.pk}"] not in out[row[parent_key]] else None
        if found is not None:
            out[row[parent_key]][found.pk] = found
    return {pk: list(children.values()) for pk, children in out.items()}


async def read_region_with_default_channel(region_id: str) -> tuple[Region | None, SalesChannel | None]:
    """A live region and the store's live default sales channel, in one statement (creating a
    cart needs both)."""
    r, sc = _source(Region, "r"), _source(SalesChannel, "sc")
    db = Cart._meta.db
    key = (db.capabilities.dialect, "region+channel")
    sql = _STATEMENTS.get(key)
    if sql is None:
        mark = placeholders(db.capabilities.dialect, 1, 1)[0]
        columns = ", ".join(aliased_columns(source.model, source.alias) for source in (r, sc))
        sql = _STATEMENTS[key] = (
            f'SELECT {columns} FROM "region" "r" LEFT JOIN "sales_channel" "sc" '
            f'ON "sc"."id" = (SELECT "default_sales_channel_id" FROM "store" LIMIT 1) AND "sc"."deleted_at" IS NULL '
            f'WHERE "r"."id" = {mark} AND "r"."deleted_at" IS NULL'
        )
    _, rows = await db.execute_query(sql, [region_id])
    if not rows:
        return None, None
    return r.build(rows[0]), sc.build(rows[0])
