"""The moved shop's people: the team and the customers sign in with their Medusa passwords, whose
weak hashes (scrypt log2 N = 1) are replaced by ours at that first sign-in."""

import base64
import struct

import pytest

from models import Customer, CustomerGroup, Invite, User
from services.core import passwords

CUSTOMERS = [
    ("move-ada@example.com", "Move-secret-1"),
    ("move-grace@example.com", "Move-secret-2"),
    ("move-alan@example.com", "Move-secret-3"),
]


def _log_n(stored: str) -> int:
    return struct.unpack(">B", base64.b64decode(stored)[7:8])[0]


async def test_the_admin_signs_in_with_the_medusa_password_and_gets_our_hash(imported, client):
    before = (await User.get(email="admin@test.com")).password_hash
    assert _log_n(before) == 1  # Medusa's own

    r = await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
    assert r.status_code == 200, r.text
    after = (await User.get(email="admin@test.com")).password_hash
    assert after != before and _log_n(after) == passwords._LOG_N and passwords.verify_password("supersecret", after)

    # The token issued at that sign-in carries the new hash's stamp: it keeps working.
    me = await client.get("/admin/auth", headers={"Authorization": f"Bearer {r.json()['access_token']}"})
    assert me.status_code == 200 and me.json()["user"]["email"] == "admin@test.com"
    again = await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"})
    assert again.status_code == 200
    assert (await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "wrong"})).status_code == 401


@pytest.mark.parametrize("email,password", CUSTOMERS)
async def test_the_listed_customers_sign_in_with_their_medusa_passwords(imported, client, email, password):
    assert _log_n((await Customer.get(email=email)).password_hash) == 1
    r = await client.post("/store/auth", json={"email": email, "password": password})
    assert r.status_code == 200, r.text
    assert r.json()["customer"]["email"] == email
    me = await client.get("/store/auth")
    assert me.status_code == 200 and me.json()["customer"]["email"] == email
    assert _log_n((await Customer.get(email=email)).password_hash) == passwords._LOG_N
    wrong = await client.post("/store/auth", json={"email": email, "password": password + "x"})
    assert wrong.status_code == 401


async def test_people_counts_match_the_fixture(imported):
    assert await Customer.all().count() == 184
    assert await CustomerGroup.filter(deleted_at=None).count() == 3
    assert await User.filter(deleted_at=None).count() == 4
    invite = await Invite.get(user_email="move-new-admin@example.com")
    assert not invite.accepted and invite.deleted_at is None
    ada = await Customer.get(email="move-ada@example.com").prefetch_related("groups")
    assert [g.name for g in ada.groups] == ["Move VIP"]


async def test_a_medusa_api_token_arrives_as_its_sha256_and_still_signs_in(imported, medusa_source, client):
    import io

    import asyncpg

    from services.core.tokens import digest
    from services.migration.medusa_v1 import Progress, move

    token = "medusa-plain-api-token-0123456789"
    conn = await asyncpg.connect(medusa_source.replace("postgres://", "postgresql://", 1))
    was = await conn.fetchval("""SELECT updated_at FROM "user" WHERE email = 'admin@test.com'""")
    try:
        # as Medusa sets a token: its `updated_at` moves with it (a re-run reads rows changed since)
        await conn.execute("""UPDATE "user" SET api_token = $1, updated_at = now() WHERE email = 'admin@test.com'""", token)
        await move(medusa_source, progress=Progress(io.StringIO()))
    finally:
        await conn.execute("""UPDATE "user" SET api_token = NULL, updated_at = $1 WHERE email = 'admin@test.com'""", was)
        await conn.close()
    user = await User.get(email="admin@test.com")
    assert user.api_token is None and user.api_token_hash == digest(token)
    r = await client.get("/admin/auth", headers={"x-medusa-access-token": token})
    assert r.status_code == 200 and r.json()["user"]["email"] == "admin@test.com"
