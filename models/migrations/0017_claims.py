from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

# A claim's and a swap's rows are read from their parent; a tag is reused by its value.
INDEXES = [
    'CREATE INDEX "ix_line_item_claim_order_id" ON "line_item" ("claim_order_id")',
    'CREATE INDEX "ix_line_item_swap_id" ON "line_item" ("swap_id")',
    'CREATE INDEX "ix_shipping_method_claim_order_id" ON "shipping_method" ("claim_order_id")',
    'CREATE INDEX "ix_shipping_method_swap_id" ON "shipping_method" ("swap_id")',
    'CREATE INDEX "ix_claim_image_claim_item_id" ON "claim_image" ("claim_item_id")',
    'CREATE INDEX "ix_claim_item_tags_item_id" ON "claim_item_tags" ("item_id")',
    'CREATE INDEX "ix_fulfillment_claim_order_id" ON "fulfillment" ("claim_order_id")',
    'CREATE INDEX "ix_return_claim_order_id" ON "return" ("claim_order_id")',
    'CREATE UNIQUE INDEX "claim_tag_value_live" ON "claim_tag" ("value") WHERE deleted_at IS NULL',
]


class Migration(base.Migration):
    dependencies = [('models', '0016_notification_parents')]

    initial = False

    operations = [
        ops.CreateModel(
            name='ClaimOrder',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('order_id', fields.CharField(max_length=64)),
                ('type', fields.CharField(max_length=20)),
                ('payment_status', fields.CharField(default='na', max_length=20)),
                ('fulfillment_status', fields.CharField(default='not_fulfilled', max_length=20)),
                ('shipping_address_id', fields.CharField(null=True, max_length=64)),
                ('refund_amount', fields.BigIntField(null=True)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('no_notification', fields.BooleanField(null=True)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'claim_order', 'app': 'models', 'indexes': [Index(fields=['order_id'])], 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ClaimTag',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('value', fields.CharField(max_length=255)),
            ],
            options={'table': 'claim_tag', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ClaimItem',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('claim_order_id', fields.CharField(max_length=64)),
                ('item_id', fields.CharField(max_length=64)),
                ('variant_id', fields.CharField(null=True, max_length=64)),
                ('reason', fields.CharField(max_length=30)),
                ('note', fields.TextField(null=True, unique=False)),
                ('quantity', fields.IntField()),
                ('tags', fields.ManyToManyField('models.ClaimTag', unique=True, db_constraint=True, through='claim_item_tags', forward_key='tag_id', backward_key='item_id', related_name='claim_items', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'claim_item', 'app': 'models', 'indexes': [Index(fields=['claim_order_id'])], 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ClaimImage',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('claim_item', fields.ForeignKeyField('models.ClaimItem', source_field='claim_item_id', db_constraint=True, to_field='id', related_name='images', on_delete=OnDelete.CASCADE)),
                ('url', fields.CharField(max_length=2048)),
            ],
            options={'table': 'claim_image', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.AddField(
            model_name='LineItem',
            name='claim_order_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.AddField(
            model_name='LineItem',
            name='swap_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.AddField(
            model_name='ShippingMethod',
            name='claim_order_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.AddField(
            model_name='ShippingMethod',
            name='swap_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
