from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields
from tortoise.indexes import Index

# Undispatched events are few and found by the outbox's jobs; deliveries due for a retry are found
# by the scheduler's sweep (the model's index on status, next_attempt_at).
INDEXES = [
    'CREATE INDEX "ix_event_undispatched" ON "event" ("created_at") WHERE dispatched_at IS NULL',
]


class Migration(base.Migration):
    dependencies = [('models', '0018_swaps')]

    initial = False

    operations = [
        ops.CreateModel(
            name='Event',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('name', fields.CharField(max_length=100)),
                ('data', fields.JSONField(default=dict, encoder=JSON_DUMPS, decoder=loads)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('dispatched_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'event', 'app': 'models', 'indexes': [Index(fields=['name', 'created_at'])], 'pk_attr': 'id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='EventReceipt',
            fields=[
                ('id', fields.IntField(generated=True, primary_key=True, unique=True, db_index=True)),
                ('event_id', fields.CharField(max_length=64)),
                ('subscriber_id', fields.CharField(max_length=100)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
            ],
            options={'table': 'event_receipt', 'app': 'models', 'unique_together': (('event_id', 'subscriber_id'),), 'pk_attr': 'id', 'table_description': "A subscriber handled an event: written with the subscriber's own changes."},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='WebhookDelivery',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('event_id', fields.CharField(max_length=64)),
                ('event_name', fields.CharField(max_length=100)),
                ('endpoint_id', fields.CharField(max_length=64)),
                ('status', fields.CharField(default='queued', max_length=20)),
                ('attempts', fields.IntField(default=0)),
                ('next_attempt_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('last_status_code', fields.IntField(null=True)),
                ('last_error', fields.TextField(null=True, unique=False)),
                ('attempt_log', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('delivered_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'webhook_delivery', 'app': 'models', 'unique_together': (('event_id', 'endpoint_id'),), 'indexes': [Index(fields=['endpoint_id', 'created_at']), Index(fields=['status', 'next_attempt_at'])], 'pk_attr': 'id'},
            bases=['Entity'],
        ),
        ops.CreateModel(
            name='WebhookEndpoint',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('url', fields.CharField(max_length=2048)),
                ('description', fields.CharField(null=True, max_length=500)),
                ('events', fields.JSONField(default=list, encoder=JSON_DUMPS, decoder=loads)),
                ('secret', fields.CharField(max_length=200)),
                ('previous_secret', fields.CharField(null=True, max_length=200)),
                ('previous_secret_expires_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('status', fields.CharField(default='enabled', max_length=20)),
                ('disabled_reason', fields.CharField(null=True, max_length=500)),
                ('failing_since', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('last_success_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'webhook_endpoint', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
