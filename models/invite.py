"""Invites to join the shop's team. The invite's token is never stored: it is a JWT signed with
the server's secret over the invite's id, email, role and nonce, so it can be shown again to an
admin (the dashboard copies invite links) and a resend, which changes the nonce, ends every
earlier link."""

from tortoise import fields

from models.base import SoftDeletable

__all__ = ["Invite"]


class Invite(SoftDeletable):
    ID_PREFIX = "invite"

    user_email = fields.CharField(max_length=255)  # lower-cased; one live invite an email (migration index)
    role = fields.CharField(max_length=20, default="member")
    accepted = fields.BooleanField(default=False)
    nonce = fields.CharField(max_length=32)
    expires_at = fields.DatetimeField()

    class Meta:
        table = "invite"
