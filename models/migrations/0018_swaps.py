from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

# A swap's rows are read from it (its new lines and shipping were indexed with the claims);
# a swap is found by its cart at completion and by its order on the order page.
INDEXES = [
    'CREATE INDEX "ix_fulfillment_swap_id" ON "fulfillment" ("swap_id")',
    'CREATE INDEX "ix_return_swap_id" ON "return" ("swap_id")',
    'CREATE INDEX "ix_payment_swap_id" ON "payment" ("swap_id")',
    'CREATE UNIQUE INDEX "swap_cart_id" ON "swap" ("cart_id")',
]


class Migration(base.Migration):
    dependencies = [('models', '0017_claims')]

    initial = False

    operations = [
        ops.CreateModel(
            name='CustomShippingOption',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('shipping_option', fields.ForeignKeyField('models.ShippingOption', source_field='shipping_option_id', db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.RESTRICT)),
                ('cart_id', fields.CharField(null=True, max_length=64)),
                ('price', fields.BigIntField()),
            ],
            options={'table': 'custom_shipping_option', 'app': 'models', 'indexes': [Index(fields=['cart_id'])], 'pk_attr': 'id', 'table_description': "A shipping option offered on one cart at a price set for it (a swap's, a draft order's)."},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='Swap',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('order_id', fields.CharField(max_length=64)),
                ('fulfillment_status', fields.CharField(default='not_fulfilled', max_length=20)),
                ('payment_status', fields.CharField(default='not_paid', max_length=20)),
                ('difference_due', fields.BigIntField(null=True)),
                ('shipping_address_id', fields.CharField(null=True, max_length=64)),
                ('cart_id', fields.CharField(null=True, max_length=64)),
                ('confirmed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('no_notification', fields.BooleanField(null=True)),
                ('allow_backorder', fields.BooleanField(default=False)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'swap', 'app': 'models', 'indexes': [Index(fields=['order_id'])], 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
