"""`commerce user create`, `commerce user token` and `commerce user password` as an operator runs them."""

import os
import subprocess
import sys

import pytest

from models import User
from services.core.tokens import digest
from tests.conftest import PATIENCE, SETTINGS


def _cli(*args) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": SETTINGS.database_url}
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], env=env, capture_output=True,
                          text=True, timeout=PATIENCE)


async def test_user_create_then_token_prints_a_token_once_and_stores_only_its_hash(client):
    created = _cli("user", "create", "--email", "Ops@Shop.com", "--password", "s3cret-pass", "--role", "admin")
    assert created.returncode == 0, created.stderr
    user = await User.get(email="ops@shop.com")
    assert user.role == "admin" and user.password_hash and "s3cret-pass" not in user.password_hash

    issued = _cli("user", "token", "ops@shop.com")
    assert issued.returncode == 0, issued.stderr
    token = issued.stdout.strip()
    assert len(token) >= 40
    row = await User.get(id=user.id)
    assert row.api_token is None and row.api_token_hash == digest(token)

    r = await client.get("/admin/auth", headers={"x-medusa-access-token": token})
    assert r.status_code == 200 and r.json()["user"]["email"] == "ops@shop.com"


@pytest.mark.parametrize("args,message", [
    (("user", "token", "nobody@shop.com"), "not_found: User with email nobody@shop.com was not found"),
    (("user", "create", "--email", "not-an-email", "--password", "x"), "invalid_data: The email is not valid"),
])
async def test_cli_errors_are_one_clear_line_not_a_traceback(args, message):
    result = _cli(*args)
    assert result.returncode != 0
    assert message in result.stderr and "Traceback" not in result.stderr


async def test_creating_a_user_twice_is_refused(client):
    assert _cli("user", "create", "--email", "a@shop.com", "--password", "pw").returncode == 0
    again = _cli("user", "create", "--email", "A@shop.com", "--password", "pw")
    assert again.returncode != 0 and "A user with the same email already exists." in again.stderr
    assert await User.filter(email="a@shop.com").count() == 1


async def test_user_password_sets_a_new_password_and_ends_older_sign_ins(client, admin):
    old = (await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"}))
    headers = {"Authorization": f"Bearer {old.json()['access_token']}"}
    changed = _cli("user", "password", "Admin@Test.com", "--password", "brand-new-pass")
    assert changed.returncode == 0, changed.stderr
    assert (await client.get("/admin/auth", headers=headers)).status_code == 401
    r = await client.post("/admin/auth", json={"email": "admin@test.com", "password": "brand-new-pass"})
    assert r.status_code == 200
    missing = _cli("user", "password", "nobody@shop.com", "--password", "x")
    assert missing.returncode != 0 and "not_found: User with email nobody@shop.com was not found" in missing.stderr
