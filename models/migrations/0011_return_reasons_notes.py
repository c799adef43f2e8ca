from models.migrations import _base as base
from tortoise.migrations import operations as ops
from orjson import loads
from tortoise.fields.base import OnDelete
from tortoise.fields.data import JSON_DUMPS
from tortoise import fields

# A return reason's value is unique among live reasons (a deleted one frees it); children are read
# by their parent, notes by the resource they are written on.
INDEXES = [
    'CREATE UNIQUE INDEX "return_reason_value_live" ON "return_reason" ("value") WHERE deleted_at IS NULL',
    'CREATE INDEX "ix_return_reason_parent_return_reason_id" ON "return_reason" ("parent_return_reason_id")',
    'CREATE INDEX "ix_note_resource_id" ON "note" ("resource_id")',
]


class Migration(base.Migration):
    dependencies = [('models', '0010_bigint_amounts')]

    initial = False

    operations = [
        ops.CreateModel(
            name='Note',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('value', fields.TextField(unique=False)),
                ('resource_type', fields.CharField(max_length=255)),
                ('resource_id', fields.CharField(max_length=255)),
                ('author', fields.ForeignKeyField('models.User', source_field='author_id', null=True, db_constraint=True, to_field='id', related_name=False, on_delete=OnDelete.SET_NULL)),
            ],
            options={'table': 'note', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.CreateModel(
            name='ReturnReason',
            fields=[
                ('created_at', fields.DatetimeField(auto_now=False, auto_now_add=True)),
                ('updated_at', fields.DatetimeField(auto_now=True, auto_now_add=False)),
                ('id', fields.CharField(primary_key=True, unique=True, db_index=True, max_length=64)),
                ('metadata', fields.JSONField(null=True, encoder=JSON_DUMPS, decoder=loads)),
                ('deleted_at', fields.DatetimeField(null=True, auto_now=False, auto_now_add=False)),
                ('value', fields.CharField(max_length=255)),
                ('label', fields.CharField(max_length=255)),
                ('description', fields.TextField(null=True, unique=False)),
                ('parent_return_reason', fields.ForeignKeyField('models.ReturnReason', source_field='parent_return_reason_id', null=True, db_constraint=True, to_field='id', related_name='return_reason_children', on_delete=OnDelete.CASCADE)),
            ],
            options={'table': 'return_reason', 'app': 'models', 'pk_attr': 'id'},
            bases=['SoftDeletable'],
        ),
        ops.RunSQL(INDEXES, reverse_sql=[f'DROP INDEX "{sql.split(chr(34))[1]}"' for sql in INDEXES]),
    ]
