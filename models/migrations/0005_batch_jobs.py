from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

# Imports find images, tags and types by value, chunk after chunk.
INDEXES = [
    ("ix_image_url", "image", "url"),
    ("ix_product_tag_value", "product_tag", "value"),
    ("ix_product_type_value", "product_type", "value"),
]


class Migration(base.Migration):
    dependencies = [('models', '0004_discounts')]

    initial = False

    operations = [
        ops.CreateModel(
            name='BatchJob',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('type', fields.CharField(max_length=100)),
                ('created_by', fields.CharField(null=True, max_length=64)),
                ('context', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('result', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('dry_run', fields.BooleanField(default=False)),
                ('pre_processed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('confirmed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('processing_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('completed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('canceled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('failed_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('lease_token', fields.CharField(null=True, max_length=64)),
                ('heartbeat_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('attempts', fields.IntField(default=0)),
                ('checkpoint', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
            ],
            options={'table': 'batch_job', 'app': 'models', 'indexes': [Index(fields=['created_by', 'created_at'])], 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.RunSQL(
            [f'CREATE INDEX "{name}" ON "{table}" ("{column}")' for name, table, column in INDEXES],
            reverse_sql=[f'DROP INDEX "{name}"' for name, _, _ in INDEXES],
        ),
    ]
