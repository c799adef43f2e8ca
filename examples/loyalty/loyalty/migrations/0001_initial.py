"""The loyalty tables. A plugin's migrations depend on nothing of the core's (no foreign key
into its tables), so the plugin can be added to a shop, or taken away, at any time."""

from tortoise import fields, migrations
from tortoise.indexes import Index
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    initial = True

    operations = [
        ops.CreateModel(
            name='LoyaltyAccount',
            fields=[
                ('customer_id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('balance', fields.BigIntField(default=0)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
            ],
            options={'table': 'loyalty_account', 'app': 'loyalty', 'pk_attr': 'customer_id'},
            bases=['Model'],
        ),
        ops.CreateModel(
            name='LoyaltyEntry',
            fields=[
                ('id', fields.BigIntField(primary_key=True, unique=True, db_index=True)),
                ('key', fields.CharField(unique=True, max_length=140)),
                ('customer_id', fields.CharField(max_length=64)),
                ('points', fields.BigIntField()),
                ('amount', fields.BigIntField(null=True)),
                ('reason', fields.CharField(max_length=255)),
                ('order_id', fields.CharField(null=True, max_length=64)),
                ('refund_id', fields.CharField(null=True, max_length=64)),
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('expires_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('expired', fields.BooleanField(default=False)),
            ],
            options={'table': 'loyalty_entry', 'app': 'loyalty', 'pk_attr': 'id',
                     'indexes': [Index(fields=['customer_id', 'created_at']), Index(fields=['expired', 'expires_at'])]},
            bases=['Model'],
        ),
    ]
