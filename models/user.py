"""Back-office users who sign in to /admin."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["User", "USER_ROLES"]

USER_ROLES = ("admin", "member", "developer")


class User(SoftDeletable):
    ID_PREFIX = "usr"

    email = fields.CharField(max_length=255)  # lower-cased; unique among live users (migration index)
    first_name = fields.CharField(max_length=255, null=True)
    last_name = fields.CharField(max_length=255, null=True)
    role = fields.CharField(max_length=20, default="member")
    password_hash = fields.CharField(max_length=255, null=True)
    # A token written here by hand (Medusa's documented way) still authenticates; on first use
    # it is moved into api_token_hash so that no usable secret stays at rest.
    api_token = fields.CharField(max_length=255, null=True)
    api_token_hash = fields.CharField(max_length=64, null=True, unique=True)

    class Meta:
        table = "user"
