from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

# A user has at most one live config; a deleted one (the user's, soft) frees the place.
INDEXES = [
    'CREATE UNIQUE INDEX "analytics_config_user_live" ON "analytics_config" ("user_id") WHERE deleted_at IS NULL',
]


class Migration(base.Migration):
    dependencies = [('models', '0020_gateway_events')]

    initial = False

    operations = [
        ops.CreateModel(
            name='AnalyticsConfig',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('user_id', fields.CharField(max_length=64)),
                ('opt_out', fields.BooleanField(default=False)),
                ('anonymize', fields.BooleanField(default=False)),
            ],
            options={'table': 'analytics_config', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
