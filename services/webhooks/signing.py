"""Standard Webhooks signatures (spec 1.0.0): a secret is
`whsec_` + base64 of random bytes and the key is those bytes (not the string); a signature is
`v1,` + base64 HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`; several signatures are
separated by spaces (during a secret's rotation both the new and the previous one sign)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

__all__ = ["new_secret", "sign", "signature_header", "verify", "PREFIX"]

PREFIX = "whsec_"
TOLERANCE_SECONDS = 300


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret[len(PREFIX):] if secret.startswith(PREFIX) else secret)


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest()).decode()


def signature_header(secrets_: list[str], message_id: str, timestamp: int, body: bytes) -> str:
    return " ".join(sign(s, message_id, timestamp, body) for s in secrets_)


def verify(secret: str, headers: dict, body: bytes, now: int) -> bool:
    """What a receiver does (and what the tests use): the id, a timestamp within five minutes and
    one matching `v1` signature, compared in constant time."""
    message_id, timestamp = headers.get("webhook-id"), headers.get("webhook-timestamp")
    if not message_id or not timestamp or not timestamp.isdigit() or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    expected = sign(secret, message_id, int(timestamp), body)
    return any(hmac.compare_digest(expected, given) for given in (headers.get("webhook-signature") or "").split())
