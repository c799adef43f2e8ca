from models.migrations import _base as base
from tortoise.migrations import operations as ops
from tortoise import fields


class Migration(base.Migration):
    dependencies = [('models', '0022_product_search')]

    initial = False

    operations = [
        ops.CreateModel(
            name='MigrationMark',
            fields=[
                ('entity', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=200)),
                ('source_table', fields.CharField(max_length=200)),
                ('snapshot_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
                ('high_water', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('finished_at', fields.DatetimeField(auto_now=False, auto_now_add=False)),
            ],
            options={'table': 'migration_mark', 'app': 'models', 'pk_attr': 'entity'},
            bases=['Model'],
        ),
    ]
