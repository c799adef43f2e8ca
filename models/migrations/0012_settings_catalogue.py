from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

# One live invite an email; a category's handle is unique; prices are read by their list; the
# link tables are also read from their other side.
INDEXES = [
    'CREATE UNIQUE INDEX "invite_user_email_live" ON "invite" ("user_email") WHERE deleted_at IS NULL',
    'CREATE UNIQUE INDEX "product_category_handle" ON "product_category" ("handle")',
    'CREATE INDEX "ix_product_category_parent_category_id" ON "product_category" ("parent_category_id")',
    'CREATE INDEX "ix_money_amount_price_list_id" ON "money_amount" ("price_list_id")',
    'CREATE INDEX "ix_product_category_product_product_id" ON "product_category_product" ("product_id")',
    'CREATE INDEX "ix_publishable_api_key_sales_channel_sales_channel_id" '
    'ON "publishable_api_key_sales_channel" ("sales_channel_id")',
    'CREATE INDEX "ix_price_list_customer_groups_customer_group_id" ON "price_list_customer_groups" ("customer_group_id")',
]


class Migration(base.Migration):
    dependencies = [('models', '0011_return_reasons_notes')]

    initial = False

    operations = [
        ops.CreateModel(
            name='Invite',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('user_email', fields.CharField(max_length=255)),
                ('role', fields.CharField(default='member', max_length=20)),
                ('accepted', fields.BooleanField(default=False)),
                ('nonce', fields.CharField(max_length=32)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'invite', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='PriceList',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('name', fields.CharField(max_length=255)),
                ('description', fields.TextField(default='', unique=False)),
                ('type', fields.CharField(default='sale', max_length=20)),
                ('status', fields.CharField(default='draft', max_length=20)),
                ('starts_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('ends_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('includes_tax', fields.BooleanField(default=False)),
                ('customer_groups', fields.ManyToManyField('models.CustomerGroup', unique=True, db_constraint=True, through='price_list_customer_groups', forward_key='customer_group_id', backward_key='price_list_id', related_name='price_lists', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'price_list', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ProductCategory',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('name', fields.CharField(max_length=255)),
                ('description', fields.TextField(default='', unique=False)),
                ('handle', fields.CharField(max_length=255)),
                ('is_active', fields.BooleanField(default=False)),
                ('is_internal', fields.BooleanField(default=False)),
                ('rank', fields.IntField(default=0)),
                ('parent_category', fields.ForeignKeyField('models.ProductCategory', source_field='parent_category_id', null=True, db_constraint=True, to_field='id', related_name='category_children', on_delete=OnDelete.CASCADE)),
                ('products', fields.ManyToManyField('models.Product', unique=True, db_constraint=True, through='product_category_product', forward_key='product_id', backward_key='product_category_id', related_name='categories', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'product_category', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='PublishableApiKey',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('title', fields.CharField(max_length=255)),
                ('created_by', fields.CharField(null=True, max_length=64)),
                ('revoked_by', fields.CharField(null=True, max_length=64)),
                ('revoked_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('sales_channels', fields.ManyToManyField('models.SalesChannel', unique=True, db_constraint=True, through='publishable_api_key_sales_channel', forward_key='sales_channel_id', backward_key='publishable_key_id', related_name='publishable_api_keys', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'publishable_api_key', 'app': 'models', 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
