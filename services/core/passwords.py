"""Password hashes in Medusa v1's format (the scrypt-kdf / Tarsnap container, base64).

Hashes made by Medusa v1 verify here, so its users keep their passwords when they move over.
Layout of the 96 bytes: b"scrypt", version 0, log2(N), r (u32 BE), p (u32 BE), 32-byte salt,
16 bytes of SHA-256 over the first 48 bytes, HMAC-SHA256 over the first 64 bytes keyed with
bytes 32..63 of scrypt(password, salt, N, r, p, dklen=64).
"""

from __future__ import annotations

import asyncio
import functools
import base64
import hashlib
import hmac
import os
import struct

__all__ = [
    "hash_password", "verify_password", "hash_password_async", "verify_password_async", "dummy_hash",
    "needs_rehash", "strengthen_hash",
]

_MAGIC = b"scrypt\x00"
# log2(N): 15 (32 MiB, ~0.1 s) in production; tests lower it through the environment for speed.
_LOG_N = int(os.environ.get("COMMERCE_SCRYPT_LOGN", "15"))
_R, _P = 8, 1


def _derive(password: str, salt: bytes, log_n: int, r: int, p: int) -> bytes:
    n = 1 << log_n
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, dklen=64, maxmem=256 * r * n + (1 << 20)
    )


def hash_password(password: str) -> str:
    salt = os.urandom(32)
    head = _MAGIC + struct.pack(">BII", _LOG_N, _R, _P) + salt
    head += hashlib.sha256(head).digest()[:16]
    key = _derive(password, salt, _LOG_N, _R, _P)
    return base64.b64encode(head + hmac.new(key[32:], head, hashlib.sha256).digest()).decode()


def verify_password(password: str, stored: str | None) -> bool:
    if not stored or not password:
        return False
    try:
        raw = base64.b64decode(stored, validate=True)
    except ValueError:
        return False
    if len(raw) != 96 or not raw.startswith(_MAGIC):
        return False
    log_n, r, p = struct.unpack(">BII", raw[7:16])
    if not (1 <= log_n <= 20 and 1 <= r <= 32 and 1 <= p <= 16):
        return False
    if not hmac.compare_digest(hashlib.sha256(raw[:48]).digest()[:16], raw[48:64]):
        return False
    key = _derive(password, raw[16:48], log_n, r, p)
    return hmac.compare_digest(hmac.new(key[32:], raw[:64], hashlib.sha256).digest(), raw[64:])


async def hash_password_async(password: str) -> str:
    """Hash off the event loop: scrypt is CPU and memory bound by design."""
    return await asyncio.to_thread(hash_password, password)


async def verify_password_async(password: str, stored: str | None) -> bool:
    return await asyncio.to_thread(verify_password, password, stored)


@functools.cache
def dummy_hash() -> str:
    """A hash to verify against when the account is unknown, so timing does not reveal accounts."""
    return hash_password("not a password anyone has")


def needs_rehash(stored: str | None) -> bool:
    """Whether a (verified) hash is weaker than ours: Medusa v1 hashed with log2 N = 1, r = 1."""
    try:
        raw = base64.b64decode(stored or "", validate=True)
    except ValueError:
        return False
    if len(raw) != 96 or not raw.startswith(_MAGIC):
        return False
    log_n, r, _ = struct.unpack(">BII", raw[7:16])
    return log_n < _LOG_N or r < _R


async def strengthen_hash(model, row, password: str) -> None:
    """After a successful sign-in, replace a weak hash by one with our parameters (the password is
    only in hand then). Conditional on the hash being unchanged, so a concurrent password change
    wins; `row.password_hash` is the stored one afterwards, for the sign-in's stamp."""
    if not needs_rehash(row.password_hash):
        return
    stronger = await hash_password_async(password)
    if await model.filter(id=row.id, password_hash=row.password_hash).update(password_hash=stronger):
        row.password_hash = stronger
    else:
        row.password_hash = (await model.get(id=row.id)).password_hash
