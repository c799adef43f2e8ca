"""The tokens the team's messages carry, both JWTs the dashboard decodes in the browser (it reads
`user_email` from an invite's, `email` from a reset's), both HS256 with the server's JWT secret.

- An invite's token is computed from its row, never stored: the same row gives the same token
  (the admin copies it from the list), and a new nonce (a resend) ends every earlier one.
- A password-reset token also holds 256 random bits; only its hash is kept (one_time_tokens),
  spent once, 15 minutes.

The `domain` claim keeps each kind from passing for another, or for a sign-in token.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from models import Invite
from services.core.one_time_tokens import TOKEN_TTL
from services.core.tokens import issue_jwt, new_secret, read_jwt, sign_jwt

__all__ = ["INVITE_TTL", "invite_token", "invite_claims", "reset_token", "reset_claims", "nonce_matches"]

INVITE_TTL = timedelta(days=7)  # as Medusa v1, from the invite's creation or latest resend
_INVITE, _RESET = "invite", "user_password_reset"


def invite_token(secret: str, invite: Invite) -> str:
    """The invite's token: deterministic, valid until the invite's `expires_at`."""
    expires = int(invite.expires_at.timestamp())
    return sign_jwt(secret, {
        "invite_id": invite.id, "role": invite.role, "user_email": invite.user_email, "nonce": invite.nonce,
        "domain": _INVITE, "iat": expires - int(INVITE_TTL.total_seconds()), "exp": expires,
    })


def invite_claims(secret: str, token: str) -> dict | None:
    """The claims of an invite token signed here, expired or not (the row says whether it is live)."""
    claims = read_jwt(secret, token, verify_exp=False) if isinstance(token, str) else None
    if not claims or claims.get("domain") != _INVITE or not isinstance(claims.get("invite_id"), str):
        return None
    return claims


def nonce_matches(invite: Invite, claims: dict) -> bool:
    nonce = claims.get("nonce")
    return isinstance(nonce, str) and hmac.compare_digest(nonce.encode(), invite.nonce.encode())


def reset_token(secret: str, email: str) -> str:
    return issue_jwt(secret, {"email": email, "domain": _RESET, "jti": new_secret(32)}, TOKEN_TTL)


def reset_claims(secret: str, token: str) -> dict | None:
    """The claims of a live reset token signed here; None for anything else."""
    claims = read_jwt(secret, token) if isinstance(token, str) and token.count(".") == 2 else None
    if not claims or claims.get("domain") != _RESET or not isinstance(claims.get("email"), str):
        return None
    return claims
