"""What every entity shares: a prefixed id, timestamps, soft delete and metadata."""

from tortoise import fields
from tortoise.models import Model

from models.ids import new_id

__all__ = ["Entity", "SoftDeletable", "Timestamped"]


class Timestamped(Model):
    created_at = fields.DatetimeField(auto_now_add=True)
    updated_at = fields.DatetimeField(auto_now=True)

    class Meta:
        abstract = True


class Entity(Timestamped):
    """A row with a string id `<prefix>_<ULID>`; an id given by the caller is kept."""

    id = fields.CharField(primary_key=True, max_length=64)
    metadata = fields.JSONField(null=True)

    ID_PREFIX = ""

    class Meta:
        abstract = True

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id(self.ID_PREFIX)
        super().__init__(**kwargs)


class SoftDeletable(Entity):
    deleted_at = fields.DatetimeField(null=True)

    class Meta:
        abstract = True
