from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields


class Migration(base.Migration):
    dependencies = [('models', '0019_events_webhooks')]

    initial = False

    operations = [
        ops.CreateModel(
            name='GatewayEvent',
            fields=[
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=255)),
                ('provider_id', fields.CharField(max_length=64)),
                ('type', fields.CharField(max_length=100)),
                ('data', fields.JSONField(encoder=JSON_DUMPS, decoder=loads)),
                ('received_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('handled_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('outcome', fields.TextField(null=True, unique=False)),
            ],
            options={'table': 'gateway_event', 'app': 'models', 'pk_attr': 'id'},
            bases=['Model'],
        ),
    ]
