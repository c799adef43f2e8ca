from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

# The rows each order read follows from its parent.
INDEXES = [
    'CREATE INDEX "ix_fulfillment_item_item_id" ON "fulfillment_item" ("item_id")',
    'CREATE INDEX "ix_tracking_link_fulfillment_id" ON "tracking_link" ("fulfillment_id")',
    'CREATE INDEX "ix_return_item_return_id" ON "return_item" ("return_id")',
    'CREATE INDEX "ix_shipping_method_return_id" ON "shipping_method" ("return_id")',
    'CREATE INDEX "ix_notification_parent_id" ON "notification" ("parent_id")',
]

class Migration(base.Migration):
    dependencies = [('models', '0013_job_heartbeats')]

    initial = False

    operations = [
        ops.CreateModel(
            name='Fulfillment',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('swap_id', fields.CharField(null=True, max_length=64)),
                ('claim_order_id', fields.CharField(null=True, max_length=64)),
                ('provider_id', fields.CharField(max_length=100)),
                ('location_id', fields.CharField(null=True, max_length=64)),
                ('no_notification', fields.BooleanField(null=True)),
                ('tracking_numbers', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('shipped_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'fulfillment', 'app': 'models', 'indexes': [Index(fields=['order_id'])], 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='FulfillmentItem',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('fulfillment', fields.ForeignKeyField('models.Fulfillment', source_field='fulfillment_id', db_constraint=True, to_field='id', related_name='items', on_delete=OnDelete.CASCADE)),
                ('item_id', fields.CharField(max_length=64)),
                ('quantity', fields.IntField()),
            ],
            options={'table': 'fulfillment_item', 'app': 'models', 'unique_together': (('fulfillment_id', 'item_id'),), 'pk_attr': 'id', 'table_description': "How many units of one line a fulfillment holds (Medusa's key: fulfillment and item)."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Refund',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('payment_id', fields.CharField(null=True, max_length=64)),
                ('amount', fields.BigIntField()),
                ('note', fields.TextField(null=True, unique=False)),
                ('reason', fields.CharField(max_length=20)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'refund', 'app': 'models', 'indexes': [Index(fields=['order_id'])], 'pk_attr': 'id', 'table_description': "Money given back for an order: taken off its payments' `amount_refunded` in the same"},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='Return',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('status', fields.CharField(default='requested', max_length=20)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('swap_id', fields.CharField(null=True, max_length=64)),
                ('claim_order_id', fields.CharField(null=True, max_length=64)),
                ('location_id', fields.CharField(null=True, max_length=64)),
                ('shipping_data', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('refund_amount', fields.BigIntField(default=0)),
                ('received_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('no_notification', fields.BooleanField(null=True)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'return', 'app': 'models', 'indexes': [Index(fields=['order_id'])], 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='ReturnItem',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('return_id', fields.CharField(max_length=64)),
                ('item_id', fields.CharField(max_length=64)),
                ('quantity', fields.IntField()),
                ('is_requested', fields.BooleanField(default=True)),
                ('requested_quantity', fields.IntField(null=True)),
                ('received_quantity', fields.IntField(null=True)),
                ('reason', fields.ForeignKeyField('models.ReturnReason', source_field='reason_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('note', fields.TextField(null=True, unique=False)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
            ],
            options={'table': 'return_item', 'app': 'models', 'unique_together': (('return_id', 'item_id'),), 'pk_attr': 'id', 'table_description': "One line in a return: how many were asked for and how many arrived (Medusa's key: return"},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='TrackingLink',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('fulfillment', fields.ForeignKeyField('models.Fulfillment', source_field='fulfillment_id', db_constraint=True, to_field='id', related_name='tracking_links', on_delete=OnDelete.CASCADE)),
                ('tracking_number', fields.CharField(max_length=255)),
                ('url', fields.CharField(null=True, max_length=2048)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'tracking_link', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.AddField(
            model_name='Notification',
            name='parent_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.AddField(
            model_name='ShippingMethod',
            name='return_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
