"""How far a move from Medusa v1 has come: per entity, the source's time up to which its rows
are here, so the next run reads only rows changed since (services/migration/medusa_v1/marks.py)."""

from tortoise import fields
from tortoise.models import Model

__all__ = ["MigrationMark"]


class MigrationMark(Model):
    entity = fields.CharField(primary_key=True, max_length=200)  # the report's name of the entity
    source_table = fields.CharField(max_length=200)
    snapshot_at = fields.DatetimeField()  # the source's clock when the run that finished it began
    high_water = fields.DatetimeField(null=True)  # the newest updated_at it read
    finished_at = fields.DatetimeField()

    class Meta:
        table = "migration_mark"
