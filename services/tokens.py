"""Signed bearer tokens (JWT, HS256) and opaque secrets, and how they are kept at rest."""

from __future__ import annotations

import hashlib
import secrets
import time

import jwt

__all__ = ["issue_jwt", "read_jwt", "new_secret", "digest", "ADMIN_JWT_TTL", "STORE_JWT_TTL"]

ADMIN_JWT_TTL = 24 * 3600  # seconds, as Medusa v1
STORE_JWT_TTL = 30 * 24 * 3600


def issue_jwt(secret: str, claims: dict, ttl: int) -> str:
    now = int(time.time())
    return jwt.encode({**claims, "iat": now, "exp": now + ttl}, secret, algorithm="HS256")


def read_jwt(secret: str, token: str) -> dict | None:
    """The claims of a valid, unexpired token; None for anything else."""
    try:
        return jwt.decode(token, secret, algorithms=["HS256"], options={"require": ["exp"]})
    except jwt.PyJWTError:
        return None


def new_secret(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def digest(value: str) -> str:
    """SHA-256 hex: how API tokens and session ids are stored (high-entropy, so no salt is needed)."""
    return hashlib.sha256(value.encode()).hexdigest()
