from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

# An edit's lines and changes are read by the edit; an order's edits by the order.
INDEXES = [
    f'CREATE INDEX "ix_{table}_{column}" ON "{table}" ("{column}")'
    for table, column in (
        ("line_item", "order_edit_id"), ("order_edit", "order_id"), ("order_item_change", "order_edit_id"),
        ("payment_collection_session", "payment_collection_id"), ("payment", "payment_collection_id"),
    )
]


class Migration(base.Migration):
    dependencies = [('models', '0008_idempotency_progress')]

    initial = False

    operations = [
        ops.CreateModel(
            name='OrderEdit',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('order', fields.ForeignKeyField('models.Order', source_field='order_id', db_constraint=True, to_field='id', related_name='edits', on_delete=OnDelete.CASCADE)),
                ('internal_note', fields.TextField(null=True, unique=False)),
                ('created_by', fields.CharField(max_length=64)),
                ('requested_by', fields.CharField(null=True, max_length=64)),
                ('requested_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('confirmed_by', fields.CharField(null=True, max_length=64)),
                ('confirmed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('declined_by', fields.CharField(null=True, max_length=64)),
                ('declined_reason', fields.TextField(null=True, unique=False)),
                ('declined_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('canceled_by', fields.CharField(null=True, max_length=64)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('payment_collection_id', fields.CharField(null=True, max_length=64)),
            ],
            options={'table': 'order_edit', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='OrderItemChange',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('type', fields.CharField(max_length=20)),
                ('order_edit', fields.ForeignKeyField('models.OrderEdit', source_field='order_edit_id', db_constraint=True, to_field='id', related_name='changes', on_delete=OnDelete.CASCADE)),
                ('original_line_item_id', fields.CharField(null=True, max_length=64)),
                ('line_item_id', fields.CharField(null=True, max_length=64)),
            ],
            options={'table': 'order_item_change', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='PaymentCollection',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('type', fields.CharField(default='order_edit', max_length=20)),
                ('status', fields.CharField(default='not_paid', max_length=30)),
                ('description', fields.TextField(null=True, unique=False)),
                ('amount', fields.IntField()),
                ('authorized_amount', fields.IntField(null=True)),
                ('region', fields.ForeignKeyField('models.Region', source_field='region_id', db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.RESTRICT)),
                ('currency_code', fields.CharField(max_length=3)),
                ('created_by', fields.CharField(max_length=64)),
            ],
            options={'table': 'payment_collection', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='PaymentCollectionSession',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('payment_collection', fields.ForeignKeyField('models.PaymentCollection', source_field='payment_collection_id', db_constraint=True, to_field='id', related_name='payment_sessions', on_delete=OnDelete.CASCADE)),
                ('provider_id', fields.CharField(max_length=64)),
                ('is_selected', fields.BooleanField(null=True)),
                ('is_initiated', fields.BooleanField(default=False)),
                ('status', fields.CharField(default='pending', max_length=20)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('amount', fields.IntField()),
                ('payment_authorized_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'payment_collection_session', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.AddField(
            model_name='LineItem',
            name='order_edit_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.AddField(
            model_name='LineItem',
            name='original_item_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.AddField(
            model_name='Payment',
            name='payment_collection_id',
            field=fields.CharField(null=True, max_length=64),
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
