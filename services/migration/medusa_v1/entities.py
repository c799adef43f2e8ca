"""What is copied, in the order it must be written: each Medusa table, our table, and how a row
changes on the way.

A column is copied when both sides have it (our schema keeps Medusa's names); `derive` adds
columns computed from the source row; `dropped` names Medusa's columns we do not keep, and why.
Medusa tables listed in LEFT_OUT are not copied by design; any other table or column the source
has that is neither copied nor named here belongs to a plugin and is listed in the report.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from models import (
    Address, Country, Currency, Customer, CustomerGroup, FulfillmentProvider, Image, InventoryItem, InventoryLevel,
    Invite, MoneyAmount, PaymentProvider, PriceList, Product, ProductCategory, ProductCollection, ProductOption,
    ProductOptionValue, ProductTag, ProductType, ProductVariant, ProductVariantInventoryItem, PublishableApiKey, Region,
    ReservationItem, ReturnReason, SalesChannel, SalesChannelLocation, ShippingOption, ShippingOptionRequirement,
    ShippingProfile, StockLocation, StockLocationAddress, Store, TaxProvider, TaxRate, User,
)
from services.core.tokens import digest

__all__ = ["Entity", "ENTITIES", "JOINED", "LEFT_OUT", "link"]

Row = dict


@dataclass(frozen=True)
class Entity:
    name: str                      # as the report names it
    source: str                    # Medusa's table
    model: type | None = None      # our model; None: a link table, `table` and `columns` say which
    table: str | None = None
    columns: tuple[str, ...] = ()  # a link table's columns (its rows are their own key)
    select: Callable | None = None  # source -> SQL, when the rows need a join or a filter
    skipped_by_design: str = ""     # why rows of `source` left out by `select` are not copied
    key: tuple[str, ...] = ("id",)
    copy_key: bool = True           # False: our row keeps its own id (matched on `key`)
    only: tuple[str, ...] | None = None  # copy just these columns (and the key)
    adds: tuple[str, ...] = ()      # columns `select` joins in from another table
    derive: dict[str, Callable[[Row], object]] = field(default_factory=dict)
    reads: tuple[str, ...] = ()     # the source's columns `derive` reads instead of copying them
    dropped: dict[str, str] = field(default_factory=dict)
    skip: Callable[[Row], str | None] | None = None  # a reason to leave this row out
    # Medusa deletes these rows outright (a cart's lines, a link): on a re-run, ours that the
    # source no longer has go too (found by walking both key lists; `select` gives each key once).
    prune: bool = False

    @property
    def target(self) -> str:
        return self.table or self.model._meta.db_table


LEFT_OUT = {
    "migrations": "Medusa's own schema history",
    "idempotency_key": "in-flight requests of the old server",
    "staged_job": "queued work of the old server",
    "batch_job": "imports and exports of the old server",
    "analytics_config": "the admin's telemetry setting",
    "oauth": "app installations of the old server",
    "notification_provider": "providers are configured here, not copied",
    "discount_rule_products": "Medusa's legacy product list of a rule, replaced by discount conditions",
    "payment_collection_sessions": "sessions of payment collections are made anew when a payment is asked for",
    "order_sales_channel": "Medusa's v2-flag copy of each order's sales_channel_id, which comes along",
}


def _q(name: str) -> str:
    return '"' + name + '"'


def _plain(table: str, order: str = "id") -> Callable:
    return lambda source: f"SELECT * FROM {_q(table)} ORDER BY {order}"


def link(name: str, table: str, *columns: str, kept_by: str | None = None) -> Entity:
    """A link table's rows (live ones, where Medusa soft-deletes links), and only those `kept_by` names."""
    def select(source) -> str:
        where = ["deleted_at IS NULL"] if source.has(table, "deleted_at") else []
        where += [kept_by] if kept_by else []
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        return f"SELECT * FROM {_q(table)}{clause} ORDER BY {', '.join(columns)}"

    why = "links to rows not moved" if kept_by else "links removed in Medusa (soft-deleted)"
    return Entity(name, table, table=table, columns=columns, key=columns, select=select, skipped_by_design=why,
                  prune=True)


def live(name: str, table: str, model: type, key: tuple[str, ...] = ("id",), prune: bool = True) -> Entity:
    """Rows Medusa soft-deletes (or deletes outright) and we delete outright (models/inventory.py):
    only its live rows come over; on a re-run ours that it no longer holds live go (`prune`; or
    stock.py's own pruning). Keyed by `key` where the rows are unique by it here: a row deleted in
    Medusa and made again under a new id then takes the old one's place rather than clashing."""
    def select(source) -> str:
        where = " WHERE deleted_at IS NULL" if source.has(table, "deleted_at") else ""
        return f"SELECT * FROM {_q(table)}{where} ORDER BY id"

    return Entity(name, table, model, select=select, key=key, prune=prune,
                  skipped_by_design="deleted in Medusa (deleted outright here)")


def _api_token_hash(row: Row) -> str | None:
    # Medusa keeps API tokens in clear; we keep only their SHA-256, which the same token matches.
    return digest(row["api_token"]) if row.get("api_token") else None


def _invite_nonce(row: Row) -> str:
    # Our invite links are signed with our own secret: the same nonce on every run keeps a re-run
    # from ending links sent since the first one.
    return hashlib.sha256(f"medusa-invite:{row['id']}".encode()).hexdigest()[:32]


def _products(source) -> str:
    if source.has("product_shipping_profile"):  # 1.20 moved the profile into a link table
        return ("SELECT p.*, psp.profile_id FROM product p "
                "LEFT JOIN product_shipping_profile psp ON psp.product_id = p.id ORDER BY p.id")
    return "SELECT * FROM product ORDER BY id"


def _prices(source) -> str:
    if source.has("product_variant_money_amount"):  # 1.17 moved a price's variant into a link table
        return ("SELECT ma.*, pvma.variant_id FROM money_amount ma "
                "LEFT JOIN product_variant_money_amount pvma "
                "ON pvma.money_amount_id = ma.id AND pvma.deleted_at IS NULL ORDER BY ma.id")
    return "SELECT * FROM money_amount ORDER BY id"


def _no_variant(row: Row) -> str | None:
    return None if row.get("variant_id") else "a price of no variant (Medusa's pricing-module leftovers)"


ENTITIES: tuple[Entity, ...] = (
    # settings
    Entity("currencies", "currency", Currency, key=("code",), select=_plain("currency", "code")),
    Entity("payment providers", "payment_provider", PaymentProvider),
    Entity("fulfillment providers", "fulfillment_provider", FulfillmentProvider),
    Entity("tax providers", "tax_provider", TaxProvider),
    Entity("sales channels", "sales_channel", SalesChannel),
    Entity("store", "store", Store),
    link("store currencies", "store_currencies", "store_id", "currency_code"),
    Entity("regions", "region", Region),
    link("region payment providers", "region_payment_providers", "region_id", "provider_id"),
    link("region fulfillment providers", "region_fulfillment_providers", "region_id", "provider_id"),
    # Countries are reference data we already hold: only their region comes over.
    Entity("countries", "country", Country, key=("iso_2",), copy_key=False, only=("region_id",),
           select=_plain("country", "iso_2"),
           dropped={c: "our own country reference data is kept" for c in ("id", "iso_3", "num_code", "name", "display_name")}),
    Entity("shipping profiles", "shipping_profile", ShippingProfile),
    Entity("shipping options", "shipping_option", ShippingOption),
    Entity("shipping option requirements", "shipping_option_requirement", ShippingOptionRequirement),
    Entity("return reasons", "return_reason", ReturnReason,
           select=_plain("return_reason", "parent_return_reason_id NULLS FIRST, id")),
    Entity("publishable API keys", "publishable_api_key", PublishableApiKey),
    link("publishable API key channels", "publishable_api_key_sales_channel", "publishable_key_id", "sales_channel_id"),
    # people
    Entity("users", "user", User, derive={"api_token": lambda row: None, "api_token_hash": _api_token_hash}),
    Entity("invites", "invite", Invite, derive={"nonce": _invite_nonce},
           select=lambda source: ("SELECT * FROM invite WHERE NOT accepted AND deleted_at IS NULL "
                                  "AND expires_at > now() ORDER BY id"),
           skipped_by_design="accepted, deleted or expired",
           dropped={"token": "Medusa's invite links end; the admin resends open invites from the dashboard"}),
    Entity("customer groups", "customer_group", CustomerGroup),
    Entity("customers", "customer", Customer),
    Entity("addresses", "address", Address),
    link("customer group members", "customer_group_customers", "customer_group_id", "customer_id"),
    # catalogue
    Entity("collections", "product_collection", ProductCollection),
    Entity("product types", "product_type", ProductType),
    Entity("product tags", "product_tag", ProductTag),
    Entity("images", "image", Image),
    Entity("categories", "product_category", ProductCategory,
           select=_plain("product_category", "mpath NULLS FIRST, id"),
           dropped={"mpath": "the tree is kept by parent_category_id"}),
    Entity("products", "product", Product, select=_products, adds=("profile_id",)),
    # 1.20 keeps a product's profile in a link table, which has no `updated_at`, and moving a
    # product to another profile leaves the product's row as it was: the links are read whole
    # every run, so such a move arrives on a re-run.
    Entity("product shipping profiles", "product_shipping_profile", Product, copy_key=False, only=("profile_id",),
           select=_plain("product_shipping_profile", "product_id"), reads=("product_id",),
           derive={"id": lambda row: row["product_id"]},
           dropped={c: "a link row keeps only the two rows it links" for c in ("created_at", "updated_at", "deleted_at")}),
    link("product tags (links)", "product_tags", "product_id", "product_tag_id"),
    link("product images", "product_images", "product_id", "image_id"),
    link("product channels", "product_sales_channel", "product_id", "sales_channel_id"),
    link("product categories (links)", "product_category_product", "product_category_id", "product_id"),
    Entity("product options", "product_option", ProductOption),
    Entity("variants", "product_variant", ProductVariant),
    Entity("option values", "product_option_value", ProductOptionValue),
    Entity("price lists", "price_list", PriceList),
    link("price list groups", "price_list_customer_groups", "price_list_id", "customer_group_id"),
    Entity("prices", "money_amount", MoneyAmount, select=_prices, adds=("variant_id",), skip=_no_variant),
    Entity("tax rates", "tax_rate", TaxRate),
    link("tax rate products", "product_tax_rate", "rate_id", "product_id"),
    link("tax rate product types", "product_type_tax_rate", "rate_id", "product_type_id"),
    link("tax rate shipping options", "shipping_tax_rate", "rate_id", "shipping_option_id"),
    # Stock per location: Medusa 1.20's inventory and stock-location modules (multi-warehouse). A
    # shop without them has only the two link tables, empty. Our tables keep the modules' names
    # and columns (1.8 on). What Medusa deleted of the links and levels goes in stock.py, which
    # keeps what our switch-on added here; there, too, the variants' stock follows the levels.
    Entity("stock location addresses", "stock_location_address", StockLocationAddress),
    Entity("stock locations", "stock_location", StockLocation),
    live("sales channel locations", "sales_channel_location", SalesChannelLocation, ("sales_channel_id", "location_id"),
         prune=False),
    Entity("inventory items", "inventory_item", InventoryItem),
    live("variant inventory items", "product_variant_inventory_item", ProductVariantInventoryItem,
         ("variant_id", "inventory_item_id"), prune=False),
    live("inventory levels", "inventory_level", InventoryLevel, ("inventory_item_id", "location_id"), prune=False),
    live("reservations", "reservation_item", ReservationItem),
)

# Medusa tables read through another entity's join (not copied as rows of their own).
JOINED = {
    "product_variant_money_amount": "prices",
    "payment_collection_payments": "payments",
}

