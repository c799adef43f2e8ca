"""Where an invitation's link may send its token. The token makes its holder a user with the
invite's role, so the store's `invite_link_template` must keep it on the shop's own dashboard (or
an origin the operator allowed): a template pointing elsewhere would mail every future invitee's
token to that site."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from services.core.errors import InvalidData

__all__ = ["check_invite_link_template", "safe_invite_link_template"]

log = logging.getLogger("commerce.notifications")


def check_invite_link_template(template: str, origins: Iterable[str]) -> None:
    """An absolute http(s) link whose origin is one of `origins` (`*`: any); else InvalidData."""
    allowed = {o.strip().rstrip("/").lower() for o in origins}
    try:
        parts = urlsplit(template.strip())
    except ValueError:  # e.g. an unbalanced IPv6 bracket
        parts = None
    origin = f"{parts.scheme}://{parts.netloc}".lower() if parts else ""
    if parts and parts.scheme.lower() in ("http", "https") and parts.netloc and ("*" in allowed or origin in allowed):
        return
    raise InvalidData(
        "invite_link_template must be an http(s) link on the dashboard's origin "
        f"({', '.join(sorted(allowed - {'*'}))}); INVITE_LINK_ORIGINS allows others"
    )


def safe_invite_link_template(template: str | None, origins: Iterable[str]) -> str | None:
    """The stored template if it is allowed, else None (the dashboard's own invite page): one set
    before templates were checked, or written into the database, never takes a token elsewhere."""
    if not template:
        return None
    try:
        check_invite_link_template(template, origins)
    except InvalidData:
        log.warning("the store's invite_link_template is not on an allowed origin: using the dashboard's invite page")
        return None
    return template
