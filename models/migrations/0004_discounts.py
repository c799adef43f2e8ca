from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields


# A live code is unique (a soft-deleted discount frees its code), and the reads follow these keys.
INDEXES = [
    'CREATE UNIQUE INDEX "discount_code_live" ON "discount" (code) WHERE deleted_at IS NULL',
    'CREATE INDEX "ix_discount_rule_id" ON "discount" ("rule_id")',
    'CREATE INDEX "ix_discount_parent_discount_id" ON "discount" ("parent_discount_id")',
    'CREATE INDEX "ix_discount_regions_discount_id" ON "discount_regions" ("discount_id")',
    'CREATE INDEX "ix_discount_condition_discount_rule_id" ON "discount_condition" ("discount_rule_id")',
] + [
    f'CREATE INDEX "ix_{table}_condition_id" ON "{table}" ("condition_id")'
    for table in (
        "discount_condition_product", "discount_condition_product_type", "discount_condition_product_tag",
        "discount_condition_product_collection", "discount_condition_customer_group",
    )
]


class Migration(base.Migration):
    dependencies = [('models', '0003_apps_gift_cards')]

    initial = False

    operations = [
        ops.CreateModel(
            name='DiscountRule',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('description', fields.TextField(null=True, unique=False)),
                ('type', fields.CharField(max_length=20)),
                ('value', fields.IntField()),
                ('allocation', fields.CharField(null=True, max_length=10)),
            ],
            options={'table': 'discount_rule', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='Discount',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('code', fields.CharField(max_length=255)),
                ('is_dynamic', fields.BooleanField(default=False)),
                ('is_disabled', fields.BooleanField(default=False)),
                ('rule', fields.ForeignKeyField('models.DiscountRule', source_field='rule_id', db_constraint=True, to_field='id', related_name='discounts', on_delete=OnDelete.RESTRICT)),
                ('parent_discount', fields.ForeignKeyField('models.Discount', source_field='parent_discount_id', null=True, db_constraint=True, to_field='id', related_name='children', on_delete=OnDelete.CASCADE)),
                ('starts_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('ends_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('valid_duration', fields.CharField(null=True, max_length=64)),
                ('usage_limit', fields.IntField(null=True)),
                ('usage_count', fields.IntField(default=0)),
                ('regions', fields.ManyToManyField('models.Region', unique=True, db_constraint=True, through='discount_regions', forward_key='region_id', backward_key='discount_id', related_name='discounts', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'discount', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='DiscountCondition',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('type', fields.CharField(max_length=30)),
                ('operator', fields.CharField(max_length=10)),
                ('discount_rule', fields.ForeignKeyField('models.DiscountRule', source_field='discount_rule_id', db_constraint=True, to_field='id', related_name='conditions', on_delete=OnDelete.CASCADE)),
                ('products', fields.ManyToManyField('models.Product', unique=True, db_constraint=True, through='discount_condition_product', forward_key='product_id', backward_key='condition_id', related_name='discount_conditions', on_delete=OnDelete.CASCADE)),
                ('product_types', fields.ManyToManyField('models.ProductType', unique=True, db_constraint=True, through='discount_condition_product_type', forward_key='product_type_id', backward_key='condition_id', related_name='discount_conditions', on_delete=OnDelete.CASCADE)),
                ('product_tags', fields.ManyToManyField('models.ProductTag', unique=True, db_constraint=True, through='discount_condition_product_tag', forward_key='product_tag_id', backward_key='condition_id', related_name='discount_conditions', on_delete=OnDelete.CASCADE)),
                ('product_collections', fields.ManyToManyField('models.ProductCollection', unique=True, db_constraint=True, through='discount_condition_product_collection', forward_key='product_collection_id', backward_key='condition_id', related_name='discount_conditions', on_delete=OnDelete.CASCADE)),
                ('customer_groups', fields.ManyToManyField('models.CustomerGroup', unique=True, db_constraint=True, through='discount_condition_customer_group', forward_key='customer_group_id', backward_key='condition_id', related_name='discount_conditions', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'discount_condition', 'app': 'models', 'unique_together': (('type', 'operator', 'discount_rule_id'),), 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
