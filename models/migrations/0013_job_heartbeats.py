from models.migrations import _base as base
from tortoise.migrations import operations as ops
from tortoise import fields

# A running job's heartbeat (taken over when it stops); rate-limit counters in the database, for
# when Redis cannot be reached, and the scheduler's once-per-interval leases.

class Migration(base.Migration):
    dependencies = [('models', '0012_settings_catalogue')]

    initial = False

    operations = [
        ops.CreateModel(
            name='RateCounter',
            fields=[
                ('key', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=200)),
                ('count', fields.IntField(default=0)),
                ('expires_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'rate_counter', 'app': 'models', 'pk_attr': 'key'},
            bases=['Model'],
        ),
        ops.AddField(
            model_name='Job',
            name='heartbeat_at',
            field=fields.DatetimeField(null=True, auto_now=False, auto_now_add=False),
        ),
    ]
