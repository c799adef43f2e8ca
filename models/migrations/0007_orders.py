from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

# Reads follow these keys: an order's lines and methods by order_id, payments by cart and order,
# a customer's orders, an admin's newest-first list.
INDEXES = [
    f'CREATE INDEX "ix_{table}_{column}" ON "{table}" ("{column}")'
    for table, column in (
        ("orders", "customer_id"), ("orders", "email"), ("orders", "created_at"), ("orders", "region_id"),
        ("order_discounts", "order_id"), ("order_gift_cards", "order_id"), ("payment", "cart_id"),
        ("payment", "order_id"), ("gift_card_transaction", "order_id"), ("draft_order", "cart_id"),
        ("notification", "customer_id"),
    )
]
SEED = ["INSERT INTO \"display_sequence\" (\"name\", \"value\") VALUES ('order', 0)"]


class Migration(base.Migration):
    dependencies = [('models', '0006_carts')]

    initial = False

    operations = [
        ops.CreateModel(
            name='DisplaySequence',
            fields=[
                ('name', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=50)),
                ('value', fields.IntField(default=0)),
            ],
            options={'table': 'display_sequence', 'app': 'models', 'pk_attr': 'name', 'table_description': 'Named counters: the one named order numbers orders and draft orders alike (display_id).'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='DraftOrder',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('status', fields.CharField(default='open', max_length=20)),
                ('display_id', fields.IntField(unique=True)),
                ('cart', fields.ForeignKeyField('models.Cart', source_field='cart_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('order_id', fields.CharField(null=True, unique=True, max_length=64)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('completed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('no_notification_order', fields.BooleanField(null=True)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'draft_order', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='GiftCardTransaction',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('gift_card', fields.ForeignKeyField('models.GiftCard', source_field='gift_card_id', db_constraint=True, to_field='id', related_name='transactions', on_delete=OnDelete.RESTRICT)),
                ('order_id', fields.CharField(max_length=64)),
                ('amount', fields.IntField()),
                ('is_taxable', fields.BooleanField(null=True)),
                ('tax_rate', fields.FloatField(null=True)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'gift_card_transaction', 'app': 'models', 'unique_together': (('gift_card_id', 'order_id'),), 'pk_attr': 'id', 'table_description': "An amount taken from a gift card's balance by an order."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='Notification',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('event_name', fields.CharField(max_length=100)),
                ('resource_type', fields.CharField(null=True, max_length=50)),
                ('resource_id', fields.CharField(null=True, max_length=64)),
                ('customer_id', fields.CharField(null=True, max_length=64)),
                ('to', fields.CharField(max_length=255)),
                ('subject', fields.CharField(null=True, max_length=500)),
                ('body', fields.TextField(null=True, unique=False)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('provider_id', fields.CharField(null=True, max_length=50)),
                ('status', fields.CharField(default='pending', max_length=20)),
                ('attempts', fields.IntField(default=0)),
                ('last_error', fields.TextField(null=True, unique=False)),
                ('sent_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'notification', 'app': 'models', 'indexes': [Index(fields=['resource_type', 'resource_id']), Index(fields=['status', 'created_at'])], 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='OneTimeToken',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('kind', fields.CharField(max_length=50)),
                ('token_hash', fields.CharField(unique=True, max_length=64)),
                ('customer_id', fields.CharField(null=True, max_length=64)),
                ('email', fields.CharField(null=True, max_length=255)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('used_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'one_time_token', 'app': 'models', 'indexes': [Index(fields=['kind', 'customer_id'])], 'pk_attr': 'id', 'table_description': 'A single-use, expiring secret, stored as its SHA-256 only.'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='Order',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('status', fields.CharField(default='pending', max_length=20)),
                ('fulfillment_status', fields.CharField(default='not_fulfilled', max_length=20)),
                ('payment_status', fields.CharField(default='not_paid', max_length=20)),
                ('display_id', fields.IntField(unique=True)),
                ('cart_id', fields.CharField(null=True, unique=True, max_length=64)),
                ('customer', fields.ForeignKeyField('models.Customer', source_field='customer_id', db_constraint=True, to_field='id', related_name='orders', on_delete=OnDelete.RESTRICT)),
                ('email', fields.CharField(max_length=255)),
                ('billing_address', fields.ForeignKeyField('models.Address', source_field='billing_address_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('shipping_address', fields.ForeignKeyField('models.Address', source_field='shipping_address_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('region', fields.ForeignKeyField('models.Region', source_field='region_id', db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.RESTRICT)),
                ('currency_code', fields.CharField(max_length=3)),
                ('tax_rate', fields.FloatField(null=True)),
                ('draft_order_id', fields.CharField(null=True, max_length=64)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('no_notification', fields.BooleanField(null=True)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
                ('external_id', fields.CharField(null=True, max_length=255)),
                ('sales_channel', fields.ForeignKeyField('models.SalesChannel', source_field='sales_channel_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('discounts', fields.ManyToManyField('models.Discount', unique=True, db_constraint=True, through='order_discounts', forward_key='discount_id', backward_key='order_id', related_name='orderss', on_delete=OnDelete.CASCADE)),
                ('gift_cards', fields.ManyToManyField('models.GiftCard', unique=True, db_constraint=True, through='order_gift_cards', forward_key='gift_card_id', backward_key='order_id', related_name='orderss', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'orders', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='Payment',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('cart_id', fields.CharField(null=True, max_length=64)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('swap_id', fields.CharField(null=True, max_length=64)),
                ('amount', fields.IntField()),
                ('currency_code', fields.CharField(max_length=3)),
                ('amount_refunded', fields.IntField(default=0)),
                ('provider_id', fields.CharField(max_length=100)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('captured_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'payment', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
        ops.RunSQL(SEED, reverse_sql=['DELETE FROM "display_sequence"']),
    ]
