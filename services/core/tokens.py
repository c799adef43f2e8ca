"""Signed bearer tokens (JWT, HS256) and opaque secrets, and how they are kept at rest."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

import jwt

__all__ = [
    "issue_jwt", "sign_jwt", "read_jwt", "new_secret", "digest", "password_stamp", "stamp_matches", "ADMIN_JWT_TTL",
    "STORE_JWT_TTL",
]

ADMIN_JWT_TTL = 24 * 3600  # seconds, as Medusa v1
STORE_JWT_TTL = 30 * 24 * 3600


def issue_jwt(secret: str, claims: dict, ttl: int) -> str:
    now = int(time.time())
    return jwt.encode({**claims, "iat": now, "exp": now + ttl}, secret, algorithm="HS256")


def sign_jwt(secret: str, claims: dict) -> str:
    """A token over exactly these claims (no clock read): the same claims give the same token."""
    return jwt.encode(claims, secret, algorithm="HS256")


def read_jwt(secret: str, token: str, *, verify_exp: bool = True) -> dict | None:
    """The claims of a valid, unexpired token; None for anything else. `verify_exp=False`: an
    expired token's claims too (for a caller whose own record says when it ends)."""
    try:
        return jwt.decode(
            token, secret, algorithms=["HS256"], options={"require": ["exp"], "verify_exp": verify_exp},
        )
    except jwt.PyJWTError:
        return None


def new_secret(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def digest(value: str) -> str:
    """SHA-256 hex: how API tokens and session ids are stored (high-entropy, so no salt is needed)."""
    return hashlib.sha256(value.encode()).hexdigest()


def password_stamp(secret: str, password_hash: str | None) -> str:
    """A short keyed fingerprint of a stored password hash (never the hash itself), written into
    each session and JWT at sign-in (Django's session auth hash): a new password changes it, so
    every sign-in made before the change stops working."""
    mac = hmac.new(secret.encode(), b"password-stamp:" + (password_hash or "").encode(), hashlib.sha256)
    return mac.hexdigest()[:16]


def stamp_matches(secret: str, password_hash: str | None, stamp: object) -> bool:
    """Whether `stamp` (from a session or a JWT) was made from this password hash; constant time."""
    if not isinstance(stamp, str):
        return False
    return hmac.compare_digest(stamp.encode(), password_stamp(secret, password_hash).encode())
