"""Invites to join the team.

An admin invites an email with a role; the invitee receives a link whose token (a JWT computed
from the invite's row, services/users/team_tokens.py) lets them choose their names and password
once, within 7 days. Inviting an email again, or resending, gives the invite a new nonce and
expiry: every earlier link stops working. As adding a user (services/users/team.py), inviting,
resending and deleting invites is an admin's job.

Unlike Medusa v1: an invite for an email that a user holds in any case is refused; an unknown
invite on resend is a 404; an accepted invite is kept (accepted, deleted) rather than erased.
"""

from __future__ import annotations

from tortoise.exceptions import IntegrityError

from models import Invite, User
from models.user import USER_ROLES
from services.core import clock
from services.core.db import atomic
from services.core.errors import InvalidData, NotFound
from services.core.passwords import hash_password_async
from services.core.tokens import new_secret
from services.events import names as ev
from services.events.bus import emit
from services.users.roles import require_admin
from services.users.team_tokens import INVITE_TTL, invite_claims, invite_token, nonce_matches
from services.users.users import normalize_email

__all__ = [
    "list_invites", "invite_user", "resend_invite", "delete_invite", "accept_invite", "TOKEN_NOT_VALID",
    "INVALID_INVITE",
]

TOKEN_NOT_VALID = "Token is not valid"
INVALID_INVITE = "Invalid invite"
_HAS_ACCOUNT = "Can't invite a user with an existing account"
_ALREADY_JOINED = "User already joined"
_NOT_FOUND = "Invite doesn't exist"


async def list_invites(actor: User, secret: str) -> list[tuple[Invite, str | None]]:
    """Every invite waiting for an answer, expired ones too (the dashboard marks those), each
    with its token: only for an admin, as a token lets whoever holds it join with the role."""
    invites = await Invite.filter(deleted_at=None, accepted=False).order_by("created_at", "id")
    return [(i, invite_token(secret, i) if actor.role == "admin" else None) for i in invites]


def _renew(invite: Invite) -> None:
    invite.nonce = new_secret(16)
    invite.expires_at = clock.now() + INVITE_TTL


async def _send(invite: Invite) -> None:
    """Medusa's `invite.created`, in the caller's transaction: the notifications hear it and send
    the link, whose token is made from the invite's row when the message leaves (never in the
    event, which webhooks hear too)."""
    await emit(ev.INVITE_CREATED, id=invite.id, user_email=invite.user_email, role=invite.role)


async def invite_user(actor: User, email: str, role: str) -> Invite:
    """Invite the email, or renew its waiting invite (new role, link and expiry); either way a
    message goes out once the transaction commits."""
    require_admin(actor, "invite users")
    email = normalize_email(email)
    if role not in USER_ROLES:
        raise InvalidData(f"role must be one of the following values: {', '.join(USER_ROLES)}")
    try:
        return await _invite(email, role)
    except IntegrityError:  # another request invited the email meanwhile: renew theirs
        return await _invite(email, role)


async def _invite(email: str, role: str) -> Invite:
    async with atomic():
        if await User.filter(email=email, deleted_at=None).exists():
            raise InvalidData(_HAS_ACCOUNT)
        invite = await Invite.select_for_update().get_or_none(user_email=email, deleted_at=None)
        if invite is None:
            invite = Invite(user_email=email, role=role)
            _renew(invite)
            await invite.save()
        else:
            invite.role = role
            _renew(invite)
            await invite.save(update_fields=["role", "nonce", "expires_at", "updated_at"])
        await _send(invite)
    return invite


async def resend_invite(actor: User, invite_id: str) -> Invite:
    """A new link and 7 more days; earlier links stop working."""
    require_admin(actor, "resend invites")
    async with atomic():
        invite = await Invite.select_for_update().get_or_none(id=invite_id, deleted_at=None, accepted=False)
        if invite is None:
            raise NotFound(_NOT_FOUND)
        _renew(invite)
        await invite.save(update_fields=["nonce", "expires_at", "updated_at"])
        await _send(invite)
    return invite


async def delete_invite(actor: User, invite_id: str) -> None:
    """End the invite (its links stop working); an unknown or ended invite is no error."""
    require_admin(actor, "delete invites")
    await Invite.filter(id=invite_id, deleted_at=None).update(deleted_at=clock.now())


async def accept_invite(
    secret: str, token: str, *, password: str, first_name: str | None = None, last_name: str | None = None,
) -> User:
    """The invitee's new user, with the invite's email and role. The invite is ended by a
    conditional update in the user's transaction: of two accepts racing, exactly one makes a user."""
    claims = invite_claims(secret, token)
    if claims is None:
        raise InvalidData(TOKEN_NOT_VALID)
    if not password:
        raise InvalidData("password should not be empty")
    # Checked before hashing, so a stream of stale links costs no scrypt work.
    if await _live_invite(claims) is None:
        raise InvalidData(INVALID_INVITE)
    password_hash = await hash_password_async(password)
    try:
        async with atomic():
            invite = await _live_invite(claims)
            now = clock.now()
            ended = invite is not None and await Invite.filter(
                id=invite.id, nonce=invite.nonce, deleted_at=None, accepted=False, expires_at__gt=now,
            ).update(accepted=True, deleted_at=now, updated_at=now)
            if not ended:
                raise InvalidData(INVALID_INVITE)
            if await User.filter(email=invite.user_email, deleted_at=None).exists():
                raise InvalidData(_ALREADY_JOINED)
            user = await User.create(
                email=invite.user_email, role=invite.role, first_name=first_name, last_name=last_name,
                password_hash=password_hash,
            )
    except IntegrityError:  # the email's user was added meanwhile (live users' emails are unique)
        raise InvalidData(_ALREADY_JOINED) from None
    return user


async def _live_invite(claims: dict) -> Invite | None:
    invite = await Invite.get_or_none(
        id=claims["invite_id"], deleted_at=None, accepted=False, expires_at__gt=clock.now(),
    )
    if invite is None or not nonce_matches(invite, claims) or claims.get("user_email") != invite.user_email:
        return None
    return invite
