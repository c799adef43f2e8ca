"""Who may do what in the back office: the team's one rule. Medusa v1 checks no role; here the
team, invitations and settings that shape the team's credential links are an `admin`'s job."""

from __future__ import annotations

from models import User
from services.core.errors import NotAllowed

__all__ = ["require_admin"]


def require_admin(actor: User | None, doing: str) -> None:
    """`doing` completes "Only an admin can …" (e.g. "invite users")."""
    if actor is None or actor.role != "admin":
        raise NotAllowed(f"Only an admin can {doing}")
