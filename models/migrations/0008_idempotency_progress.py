from models.migrations import _base as base
from tortoise.migrations import operations as ops
from tortoise import fields

class Migration(base.Migration):
    dependencies = [('models', '0007_orders')]

    initial = False

    operations = [
        ops.AddField(
            model_name='IdempotencyKey',
            name='updated_at',
            field=fields.DatetimeField(null=True, auto_now=False, auto_now_add=False),
        ),
    ]
