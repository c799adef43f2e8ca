from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields


# The reads of a cart follow these keys (one query per relation, each by the parent's ids).
INDEXES = [
    f'CREATE INDEX "ix_{table}_{column}" ON "{table}" ("{column}")'
    for table, column in (
        ("cart", "customer_id"), ("cart_discounts", "cart_id"), ("cart_gift_cards", "cart_id"),
        ("line_item", "cart_id"), ("line_item", "order_id"), ("line_item_adjustment", "item_id"),
        ("line_item_tax_line", "item_id"), ("shipping_method", "cart_id"), ("shipping_method", "order_id"),
        ("shipping_method_tax_line", "shipping_method_id"), ("payment_session", "cart_id"),
    )
]


class Migration(base.Migration):
    dependencies = [('models', '0005_batch_jobs')]

    initial = False

    operations = [
        ops.CreateModel(
            name='Cart',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('email', fields.CharField(null=True, max_length=255)),
                ('billing_address', fields.ForeignKeyField('models.Address', source_field='billing_address_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('shipping_address', fields.ForeignKeyField('models.Address', source_field='shipping_address_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('region', fields.ForeignKeyField('models.Region', source_field='region_id', db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.RESTRICT)),
                ('customer', fields.ForeignKeyField('models.Customer', source_field='customer_id', null=True, db_constraint=True, to_field='id', related_name='carts', on_delete=OnDelete.SET_NULL)),
                ('payment_id', fields.CharField(null=True, max_length=64)),
                ('type', fields.CharField(default='default', max_length=20)),
                ('completed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('payment_authorized_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
                ('context', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('sales_channel', fields.ForeignKeyField('models.SalesChannel', source_field='sales_channel_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('discounts', fields.ManyToManyField('models.Discount', unique=True, db_constraint=True, through='cart_discounts', forward_key='discount_id', backward_key='cart_id', related_name='carts', on_delete=OnDelete.CASCADE)),
                ('gift_cards', fields.ManyToManyField('models.GiftCard', unique=True, db_constraint=True, through='cart_gift_cards', forward_key='gift_card_id', backward_key='cart_id', related_name='carts', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'cart', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='LineItem',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('cart', fields.ForeignKeyField('models.Cart', source_field='cart_id', null=True, db_constraint=True, to_field='id', related_name='items', on_delete=OnDelete.CASCADE)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('variant', fields.ForeignKeyField('models.ProductVariant', source_field='variant_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('title', fields.CharField(max_length=255)),
                ('description', fields.CharField(null=True, max_length=255)),
                ('thumbnail', fields.CharField(null=True, max_length=2048)),
                ('is_return', fields.BooleanField(default=False)),
                ('is_giftcard', fields.BooleanField(default=False)),
                ('should_merge', fields.BooleanField(default=True)),
                ('allow_discounts', fields.BooleanField(default=True)),
                ('has_shipping', fields.BooleanField(null=True)),
                ('unit_price', fields.IntField()),
                ('quantity', fields.IntField()),
                ('fulfilled_quantity', fields.IntField(null=True)),
                ('returned_quantity', fields.IntField(null=True)),
                ('shipped_quantity', fields.IntField(null=True)),
            ],
            options={'table': 'line_item', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='LineItemAdjustment',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('item', fields.ForeignKeyField('models.LineItem', source_field='item_id', db_constraint=True, to_field='id', related_name='adjustments', on_delete=OnDelete.CASCADE)),
                ('description', fields.CharField(max_length=255)),
                ('discount', fields.ForeignKeyField('models.Discount', source_field='discount_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
                ('amount', fields.IntField()),
            ],
            options={'table': 'line_item_adjustment', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='LineItemTaxLine',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('item', fields.ForeignKeyField('models.LineItem', source_field='item_id', db_constraint=True, to_field='id', related_name='tax_lines', on_delete=OnDelete.CASCADE)),
                ('rate', fields.FloatField()),
                ('name', fields.CharField(max_length=255)),
                ('code', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'line_item_tax_line', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='PaymentSession',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('cart', fields.ForeignKeyField('models.Cart', source_field='cart_id', db_constraint=True, to_field='id', related_name='payment_sessions', on_delete=OnDelete.CASCADE)),
                ('provider_id', fields.CharField(max_length=64)),
                ('is_selected', fields.BooleanField(null=True)),
                ('is_initiated', fields.BooleanField(default=False)),
                ('status', fields.CharField(default='pending', max_length=20)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('amount', fields.IntField(null=True)),
                ('payment_authorized_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('idempotency_key', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'payment_session', 'app': 'models', 'unique_together': (('cart_id', 'provider_id'),), 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='ShippingMethod',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('shipping_option', fields.ForeignKeyField('models.ShippingOption', source_field='shipping_option_id', db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.RESTRICT)),
                ('cart', fields.ForeignKeyField('models.Cart', source_field='cart_id', null=True, db_constraint=True, to_field='id', related_name='shipping_methods', on_delete=OnDelete.CASCADE)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('price', fields.IntField()),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
            ],
            options={'table': 'shipping_method', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='ShippingMethodTaxLine',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('shipping_method', fields.ForeignKeyField('models.ShippingMethod', source_field='shipping_method_id', db_constraint=True, to_field='id', related_name='tax_lines', on_delete=OnDelete.CASCADE)),
                ('rate', fields.FloatField()),
                ('name', fields.CharField(max_length=255)),
                ('code', fields.CharField(null=True, max_length=255)),
            ],
            options={'table': 'shipping_method_tax_line', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
