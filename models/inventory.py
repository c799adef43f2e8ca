"""Stock in several places (setting INVENTORY_LOCATIONS): stock locations with their address,
inventory items with a level per location, reservations, and the links to variants and sales
channels. Tables and columns as Medusa 1.20's inventory and stock-location modules.

Ids are plain text columns, not foreign keys, as Medusa's modules keep them. Locations and
inventory items are soft-deleted (fulfilments and orders keep naming them); levels,
reservations and the two link tables are deleted outright, so a live row is simply a row and
every conditional update on a level needs no `deleted_at` test."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = [
    "InventoryItem", "InventoryLevel", "ProductVariantInventoryItem", "ReservationItem",
    "SalesChannelLocation", "StockLocation", "StockLocationAddress",
]


class StockLocationAddress(SoftDeletable):
    ID_PREFIX = "laddr"

    address_1 = fields.TextField()
    address_2 = fields.TextField(null=True)
    company = fields.TextField(null=True)
    city = fields.TextField(null=True)
    country_code = fields.CharField(max_length=2)
    phone = fields.TextField(null=True)
    province = fields.TextField(null=True)
    postal_code = fields.TextField(null=True)

    class Meta:
        table = "stock_location_address"


class StockLocation(SoftDeletable):
    ID_PREFIX = "sloc"

    name = fields.TextField()
    address_id = fields.CharField(max_length=64, null=True)

    class Meta:
        table = "stock_location"


class InventoryItem(SoftDeletable):
    """What is stocked, its sku is unique among live items (migration index)."""

    ID_PREFIX = "iitem"

    sku = fields.TextField(null=True)
    origin_country = fields.TextField(null=True)
    hs_code = fields.TextField(null=True)
    mid_code = fields.TextField(null=True)
    material = fields.TextField(null=True)
    weight = fields.IntField(null=True)
    length = fields.IntField(null=True)
    height = fields.IntField(null=True)
    width = fields.IntField(null=True)
    requires_shipping = fields.BooleanField(default=True)
    description = fields.TextField(null=True)
    title = fields.TextField(null=True)
    thumbnail = fields.TextField(null=True)

    class Meta:
        table = "inventory_item"


class InventoryLevel(SoftDeletable):
    """An item's stock at one location, in units. available = stocked - reserved."""

    ID_PREFIX = "ilev"

    inventory_item_id = fields.CharField(max_length=64)
    location_id = fields.CharField(max_length=64, db_index=True)
    stocked_quantity = fields.IntField(default=0)
    reserved_quantity = fields.IntField(default=0)
    incoming_quantity = fields.IntField(default=0)

    class Meta:
        table = "inventory_level"
        unique_together = (("inventory_item_id", "location_id"),)


class ReservationItem(SoftDeletable):
    """Units of an item held at a location, for an order's line or by hand."""

    ID_PREFIX = "resitem"

    line_item_id = fields.CharField(max_length=64, null=True, db_index=True)
    inventory_item_id = fields.CharField(max_length=64, db_index=True)
    location_id = fields.CharField(max_length=64, db_index=True)
    quantity = fields.IntField()
    external_id = fields.TextField(null=True)
    description = fields.TextField(null=True)
    created_by = fields.TextField(null=True)

    class Meta:
        table = "reservation_item"


class ProductVariantInventoryItem(SoftDeletable):
    """A variant is made of `required_quantity` units of an inventory item."""

    ID_PREFIX = "pvitem"

    inventory_item_id = fields.CharField(max_length=64, db_index=True)
    variant_id = fields.CharField(max_length=64, db_index=True)
    required_quantity = fields.IntField(default=1)

    class Meta:
        table = "product_variant_inventory_item"
        unique_together = (("variant_id", "inventory_item_id"),)


class SalesChannelLocation(SoftDeletable):
    """A sales channel sells from a stock location."""

    ID_PREFIX = "scloc"

    sales_channel_id = fields.CharField(max_length=64, db_index=True)
    location_id = fields.CharField(max_length=64, db_index=True)

    class Meta:
        table = "sales_channel_location"
        unique_together = (("sales_channel_id", "location_id"),)
