from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

# An inventory item's SKU is unique among live items (Medusa's unique index; a deleted item frees it).
INDEXES = [
    'CREATE UNIQUE INDEX "inventory_item_sku_live" ON "inventory_item" ("sku") WHERE deleted_at IS NULL',
    'CREATE INDEX "ix_inventory_level_item" ON "inventory_level" ("inventory_item_id")',
]


class Migration(base.Migration):
    dependencies = [('models', '0023_migration_marks')]

    initial = False

    operations = [
        ops.CreateModel(
            name='InventoryItem',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('sku', fields.TextField(null=True, unique=False)),
                ('origin_country', fields.TextField(null=True, unique=False)),
                ('hs_code', fields.TextField(null=True, unique=False)),
                ('mid_code', fields.TextField(null=True, unique=False)),
                ('material', fields.TextField(null=True, unique=False)),
                ('weight', fields.IntField(null=True)),
                ('length', fields.IntField(null=True)),
                ('height', fields.IntField(null=True)),
                ('width', fields.IntField(null=True)),
                ('requires_shipping', fields.BooleanField(default=True)),
                ('description', fields.TextField(null=True, unique=False)),
                ('title', fields.TextField(null=True, unique=False)),
                ('thumbnail', fields.TextField(null=True, unique=False)),
            ],
            options={'table': 'inventory_item', 'app': 'models', 'pk_attr': 'id', 'table_description': 'What is stocked, its sku is unique among live items (migration index).'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='InventoryLevel',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('inventory_item_id', fields.CharField(max_length=64)),
                ('location_id', fields.CharField(db_index=True, max_length=64)),
                ('stocked_quantity', fields.IntField(default=0)),
                ('reserved_quantity', fields.IntField(default=0)),
                ('incoming_quantity', fields.IntField(default=0)),
            ],
            options={'table': 'inventory_level', 'app': 'models', 'unique_together': (('inventory_item_id', 'location_id'),), 'pk_attr': 'id', 'table_description': "An item's stock at one location, in units. available = stocked - reserved."},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ProductVariantInventoryItem',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('inventory_item_id', fields.CharField(db_index=True, max_length=64)),
                ('variant_id', fields.CharField(db_index=True, max_length=64)),
                ('required_quantity', fields.IntField(default=1)),
            ],
            options={'table': 'product_variant_inventory_item', 'app': 'models', 'unique_together': (('variant_id', 'inventory_item_id'),), 'pk_attr': 'id', 'table_description': 'A variant is made of `required_quantity` units of an inventory item.'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ReservationItem',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('line_item_id', fields.CharField(null=True, db_index=True, max_length=64)),
                ('inventory_item_id', fields.CharField(db_index=True, max_length=64)),
                ('location_id', fields.CharField(db_index=True, max_length=64)),
                ('quantity', fields.IntField()),
                ('external_id', fields.TextField(null=True, unique=False)),
                ('description', fields.TextField(null=True, unique=False)),
                ('created_by', fields.TextField(null=True, unique=False)),
            ],
            options={'table': 'reservation_item', 'app': 'models', 'pk_attr': 'id', 'table_description': "Units of an item held at a location, for an order's line or by hand."},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='SalesChannelLocation',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('sales_channel_id', fields.CharField(db_index=True, max_length=64)),
                ('location_id', fields.CharField(db_index=True, max_length=64)),
            ],
            options={'table': 'sales_channel_location', 'app': 'models', 'unique_together': (('sales_channel_id', 'location_id'),), 'pk_attr': 'id', 'table_description': 'A sales channel sells from a stock location.'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='StockLocation',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('name', fields.TextField(unique=False)),
                ('address_id', fields.CharField(null=True, max_length=64)),
            ],
            options={'table': 'stock_location', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='StockLocationAddress',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('address_1', fields.TextField(unique=False)),
                ('address_2', fields.TextField(null=True, unique=False)),
                ('company', fields.TextField(null=True, unique=False)),
                ('city', fields.TextField(null=True, unique=False)),
                ('country_code', fields.CharField(max_length=2)),
                ('phone', fields.TextField(null=True, unique=False)),
                ('province', fields.TextField(null=True, unique=False)),
                ('postal_code', fields.TextField(null=True, unique=False)),
            ],
            options={'table': 'stock_location_address', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.AddField(
            model_name='Store',
            name='default_location_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
