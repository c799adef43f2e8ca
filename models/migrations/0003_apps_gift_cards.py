from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

class Migration(base.Migration):
    dependencies = [('models', '0002_indexes')]

    initial = False

    operations = [
        ops.CreateModel(
            name='GiftCard',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('code', fields.CharField(unique=True, max_length=64)),
                ('value', fields.IntField()),
                ('balance', fields.IntField()),
                ('region', fields.ForeignKeyField('models.Region', source_field='region_id', db_constraint=True, to_field='id', related_name='gift_cards', on_delete=OnDelete.RESTRICT)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('is_disabled', fields.BooleanField(default=False)),
                ('ends_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('tax_rate', fields.FloatField(null=True)),
            ],
            options={'table': 'gift_card', 'app': 'models', 'indexes': [Index(fields=['region_id'])], 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='OAuthApp',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('display_name', fields.CharField(max_length=255)),
                ('application_name', fields.CharField(unique=True, max_length=255)),
                ('install_url', fields.CharField(null=True, max_length=2048)),
                ('uninstall_url', fields.CharField(null=True, max_length=2048)),
                ('data', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
            ],
            options={'table': 'oauth', 'app': 'models', 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
