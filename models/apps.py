"""Third-party applications that authorize against the store through OAuth."""

from tortoise import fields
from tortoise.models import Model

from models.ids import new_id

__all__ = ["OAuthApp"]


class OAuthApp(Model):
    id = fields.CharField(primary_key=True, max_length=64)
    display_name = fields.CharField(max_length=255)
    application_name = fields.CharField(max_length=255, unique=True)
    install_url = fields.CharField(max_length=2048, null=True)
    uninstall_url = fields.CharField(max_length=2048, null=True)
    data = fields.JSONField(null=True)

    class Meta:
        table = "oauth"

    def __init__(self, **kwargs):
        if not kwargs.get("id"):
            kwargs["id"] = new_id("oauth")
        super().__init__(**kwargs)
