"""Password hashes in Medusa v1's scrypt container: ours verify, Medusa's verify, nothing else does."""

import base64
import struct

import pytest

from services.core.passwords import (
    dummy_hash, hash_password, hash_password_async, verify_password, verify_password_async,
)

# Medusa v1's own test fixture: this hash is the password "test" (logN=1, r=1, p=1).
MEDUSA_V1_HASH = (
    "c2NyeXB0AAEAAAABAAAAAVMdaddoGjwU1TafDLLlBKnOTQga7P2dbrfgf3fB+rCD/cJOMuGzAvRdKutbYkVpuJWTU39P7OpuWNkUVoEETOVLMJafbI8qs8Qx/7jMQXkN"
)


def test_a_new_hash_verifies_its_password_and_no_other():
    stored = hash_password("correct horse")
    assert verify_password("correct horse", stored)
    assert not verify_password("correct horse ", stored)
    assert not verify_password("Correct horse", stored)
    assert not verify_password("", stored)


def test_hashes_are_salted_and_in_the_scrypt_container():
    first, second = hash_password("same"), hash_password("same")
    assert first != second
    raw = base64.b64decode(first)
    assert len(raw) == 96 and raw[:7] == b"scrypt\x00"
    log_n, r, p = struct.unpack(">BII", raw[7:16])
    assert log_n >= 1 and r >= 1 and p >= 1
    assert "same" not in first


def test_non_ascii_passwords_work():
    stored = hash_password("pässwörd-密码")
    assert verify_password("pässwörd-密码", stored) and not verify_password("passwort-密码", stored)


def test_medusa_v1_fixture_hash_verifies_for_test():
    assert verify_password("test", MEDUSA_V1_HASH)
    assert not verify_password("test1", MEDUSA_V1_HASH)
    assert not verify_password("Test", MEDUSA_V1_HASH)


def _tampered(stored: str, index: int) -> str:
    raw = bytearray(base64.b64decode(stored))
    raw[index] ^= 0x01
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize("index", [10, 20, 50, 70, 95])
def test_a_tampered_hash_does_not_verify(index):
    assert not verify_password("test", _tampered(MEDUSA_V1_HASH, index))


@pytest.mark.parametrize("stored", [
    None, "", "garbage", "not base64 at all!!", "c2NyeXB0", MEDUSA_V1_HASH[:-4], MEDUSA_V1_HASH + "AAAA",
    base64.b64encode(b"bcrypt\x00" + bytes(89)).decode(),
    base64.b64encode(b"scrypt\x00" + bytes(89)).decode(),  # log2(N) of 0
    base64.b64encode(b"scrypt\x00" + struct.pack(">BII", 60, 1, 1) + bytes(80)).decode(),  # absurd cost
    "$2b$10$abcdefghijklmnopqrstuuCzF0.5iU1pNtXy2yL7DPtG1Gk6o7mQa",  # bcrypt
    "ünïcode-hash",
])
def test_garbage_short_or_missing_hashes_are_false_without_raising(stored):
    assert verify_password("test", stored) is False


def test_a_missing_password_is_false():
    assert verify_password(None, MEDUSA_V1_HASH) is False
    assert verify_password("", MEDUSA_V1_HASH) is False


def test_the_dummy_hash_is_stable_and_matches_no_ordinary_password():
    assert dummy_hash() == dummy_hash()
    assert not verify_password("", dummy_hash()) and not verify_password("password", dummy_hash())


async def test_async_variants_agree_with_the_sync_ones():
    stored = await hash_password_async("s3cret")
    assert await verify_password_async("s3cret", stored)
    assert not await verify_password_async("s3cret!", stored)
    assert await verify_password_async("test", MEDUSA_V1_HASH)
    assert await verify_password_async("test", "garbage") is False


def test_a_medusa_hash_is_weaker_than_ours_and_ours_is_not():
    from services.core.passwords import needs_rehash

    assert needs_rehash(MEDUSA_V1_HASH)
    assert not needs_rehash(hash_password("ours"))
    assert not needs_rehash("not a hash") and not needs_rehash(None)
