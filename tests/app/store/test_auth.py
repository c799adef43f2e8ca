"""Customer sign-in: session cookie (`/store/auth`), JWT (`/store/auth/token`), email check, and how
the customer's session lives beside an admin's in one cookie."""

import time
from datetime import datetime, timezone

import jwt
import pytest

from models import Address, Customer
from services.core.passwords import hash_password
from tests.conftest import SETTINGS

CREDENTIALS = {"email": "jane@example.com", "password": "jane-secret"}
# Medusa v1's own test fixture: this hash is the password "test".
MEDUSA_V1_HASH = (
    "c2NyeXB0AAEAAAABAAAAAVMdaddoGjwU1TafDLLlBKnOTQga7P2dbrfgf3fB+rCD/cJOMuGzAvRdKutbYkVpuJWTU39P7OpuWNkUVoEETOVLMJafbI8qs8Qx/7jMQXkN"
)
CUSTOMER_KEYS = {
    "id", "email", "first_name", "last_name", "billing_address_id", "phone", "has_account", "metadata",
    "created_at", "updated_at", "deleted_at", "shipping_addresses",
}
UNAUTHORIZED = {"type": "unauthorized", "message": "Unauthorized"}


@pytest.fixture
async def customer():
    jane = await Customer.create(
        email="jane@example.com", first_name="Jane", last_name="Doe", has_account=True,
        password_hash=hash_password("jane-secret"),
    )
    await Address.create(customer=jane, first_name="Jane", address_1="1 Main St", city="Berlin", country_code="de")
    return jane


@pytest.fixture
async def guest():
    return await Customer.create(email="guest@example.com", has_account=False)


async def sign_in_admin(client, admin) -> None:
    r = await client.post("/admin/auth", json={"email": "admin@test.com", "password": "supersecret"})
    assert r.status_code == 200


async def test_sign_in_returns_the_customer_with_addresses_and_sets_a_session_cookie(client, customer):
    r = await client.post("/store/auth", json=CREDENTIALS)
    assert r.status_code == 200
    assert set(r.json()) == {"customer"}
    body = r.json()["customer"]
    assert set(body) == CUSTOMER_KEYS and "password_hash" not in body
    assert (body["id"], body["email"], body["first_name"], body["has_account"]) == (
        customer.id, "jane@example.com", "Jane", True
    )
    [address] = body["shipping_addresses"]
    assert address["customer_id"] == customer.id and address["address_1"] == "1 Main St"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("connect.sid=s%3A") and "HttpOnly" in cookie


async def test_the_session_cookie_identifies_the_customer_later(client, customer):
    await client.post("/store/auth", json=CREDENTIALS)
    r = await client.get("/store/auth")
    assert r.status_code == 200
    body = r.json()["customer"]
    assert body["id"] == customer.id and set(body) == CUSTOMER_KEYS
    assert len(body["shipping_addresses"]) == 1


async def test_sign_in_is_case_insensitive_on_email(client, customer):
    r = await client.post("/store/auth", json={"email": "Jane@Example.COM", "password": "jane-secret"})
    assert r.status_code == 200 and r.json()["customer"]["id"] == customer.id


async def test_sign_out_ends_the_session(client, customer):
    await client.post("/store/auth", json=CREDENTIALS)
    cookie = client.cookies["connect.sid"]
    r = await client.delete("/store/auth")
    assert r.status_code == 200
    r = await client.get("/store/auth")
    assert r.status_code == 401 and r.json() == UNAUTHORIZED
    client.cookies.set("connect.sid", cookie)  # the old cookie is worthless too
    r = await client.get("/store/auth")
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


async def test_a_session_whose_customer_was_deleted_is_a_404_like_medusa(client, customer):
    await client.post("/store/auth", json=CREDENTIALS)
    await Customer.filter(id=customer.id).update(deleted_at=datetime.now(timezone.utc))
    r = await client.get("/store/auth")
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": f"Customer with id: {customer.id} was not found"}


async def test_signing_out_without_a_session_is_harmless(client):
    r = await client.delete("/store/auth")
    assert r.status_code == 200


async def test_without_credentials_current_customer_is_a_json_401(client):
    r = await client.get("/store/auth")
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


async def test_a_guest_customer_cannot_sign_in(client, guest):
    for path in ("/store/auth", "/store/auth/token"):
        r = await client.post(path, json={"email": "guest@example.com", "password": "anything"})
        assert r.status_code == 401 and r.json() == UNAUTHORIZED
        assert "set-cookie" not in r.headers


async def test_wrong_password_unknown_email_and_deleted_customer_are_the_same_401(client, customer):
    for body in ({**CREDENTIALS, "password": "wrong"}, {"email": "nobody@example.com", "password": "jane-secret"}):
        r = await client.post("/store/auth", json=body)
        assert r.status_code == 401 and r.json() == UNAUTHORIZED
        assert "set-cookie" not in r.headers
    await Customer.filter(id=customer.id).update(deleted_at=datetime.now(timezone.utc))
    r = await client.post("/store/auth", json=CREDENTIALS)
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


async def test_a_customer_without_a_password_cannot_sign_in(client):
    await Customer.create(email="nopass@example.com", has_account=True)
    r = await client.post("/store/auth", json={"email": "nopass@example.com", "password": "x"})
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


@pytest.mark.parametrize("body,message", [
    ({}, "email should not be empty, password should not be empty"),
    ({"email": "not-an-email", "password": "x"}, "email must be an email"),
    ({"email": "jane@example.com", "password": ""}, "password should not be empty"),
    ({**CREDENTIALS, "remember": True}, "property remember should not exist"),
])
async def test_sign_in_body_is_validated(client, customer, body, message):
    for path in ("/store/auth", "/store/auth/token"):
        r = await client.post(path, json=body)
        assert r.status_code == 400
        assert r.json() == {"type": "invalid_data", "message": message}


async def test_email_check_tells_whether_an_account_exists(client, customer, guest):
    for email, exists in (
        ("jane@example.com", True), ("JANE@example.com", True), ("guest@example.com", False),
        ("nobody@example.com", False),
    ):
        r = await client.get(f"/store/auth/{email}")
        assert r.status_code == 200 and r.json() == {"exists": exists}, email


async def test_email_check_reads_a_percent_encoded_email(client):
    await Customer.create(email="jane+shop@example.com", has_account=True)
    for path in ("jane+shop@example.com", "jane%2Bshop%40example.com", "JANE%2BSHOP@Example.com"):
        r = await client.get(f"/store/auth/{path}")
        assert r.json() == {"exists": True}, path


async def test_email_check_is_false_for_a_deleted_account(client, customer):
    await Customer.filter(id=customer.id).update(deleted_at=datetime.now(timezone.utc))
    assert (await client.get("/store/auth/jane@example.com")).json() == {"exists": False}


async def test_token_is_a_store_jwt_that_works_as_bearer(client, customer):
    r = await client.post("/store/auth/token", json=CREDENTIALS)
    assert r.status_code == 200 and set(r.json()) == {"access_token"}
    assert "set-cookie" not in r.headers
    token = r.json()["access_token"]
    claims = jwt.decode(token, SETTINGS.jwt_secret, algorithms=["HS256"])
    assert claims["customer_id"] == customer.id and claims["domain"] == "store"
    assert claims["exp"] - claims["iat"] == 30 * 24 * 3600
    r = await client.get("/store/auth", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json()["customer"]["id"] == customer.id
    assert "set-cookie" not in r.headers


async def test_token_with_wrong_password_is_a_401(client, customer):
    r = await client.post("/store/auth/token", json={**CREDENTIALS, "password": "nope"})
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


async def test_foreign_expired_and_admin_jwts_do_not_identify_a_customer(client, customer, admin, admin_headers):
    now = int(time.time())
    tokens = [
        jwt.encode({"customer_id": customer.id, "domain": "store", "exp": now + 60}, "another-secret-of-a-production-length-0123"),
        jwt.encode({"customer_id": customer.id, "domain": "store", "iat": now - 100, "exp": now - 10},
                   SETTINGS.jwt_secret),
        jwt.encode({"customer_id": customer.id, "domain": "admin", "exp": now + 60}, SETTINGS.jwt_secret),
        "not.a.jwt",
    ]
    for token in tokens:
        r = await client.get("/store/auth", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401 and r.json() == UNAUTHORIZED
    r = await client.get("/store/auth", headers=admin_headers)
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


async def test_an_admin_session_is_not_a_customer_session(client, admin):
    await sign_in_admin(client, admin)
    r = await client.get("/store/auth")
    assert r.status_code == 401 and r.json() == UNAUTHORIZED


async def test_a_customer_session_does_not_open_the_admin(client, customer):
    await client.post("/store/auth", json=CREDENTIALS)
    r = await client.get("/admin/auth")
    assert r.status_code == 401


async def test_admin_and_customer_share_one_session_and_sign_out_separately(client, admin, customer):
    # Given an admin signed in, then a customer in the same browser
    await sign_in_admin(client, admin)
    r = await client.post("/store/auth", json=CREDENTIALS)
    assert r.status_code == 200
    # Then both are signed in
    assert (await client.get("/admin/auth")).json()["user"]["id"] == admin.id
    assert (await client.get("/store/auth")).json()["customer"]["id"] == customer.id
    # When the customer signs out, the admin stays
    assert (await client.delete("/store/auth")).status_code == 200
    assert (await client.get("/store/auth")).status_code == 401
    r = await client.get("/admin/auth")
    assert r.status_code == 200 and r.json()["user"]["id"] == admin.id


async def test_a_customer_signing_in_after_an_admin_gets_a_fresh_session_id(client, admin, customer):
    await sign_in_admin(client, admin)
    before = client.cookies["connect.sid"]
    await client.post("/store/auth", json=CREDENTIALS)
    assert client.cookies["connect.sid"] != before
    client.cookies.clear()
    client.cookies.set("connect.sid", before)
    assert (await client.get("/admin/auth")).status_code == 401  # the pre-sign-in id is gone


async def test_a_medusa_v1_password_hash_signs_in(client):
    migrated = await Customer.create(email="migrated@example.com", has_account=True, password_hash=MEDUSA_V1_HASH)
    r = await client.post("/store/auth", json={"email": "migrated@example.com", "password": "test"})
    assert r.status_code == 200 and r.json()["customer"]["id"] == migrated.id
    r = await client.post("/store/auth", json={"email": "migrated@example.com", "password": "test2"})
    assert r.status_code == 401


async def test_deleted_addresses_are_not_shown(client, customer):
    await Address.filter(customer_id=customer.id).update(deleted_at=datetime.now(timezone.utc))
    r = await client.post("/store/auth", json=CREDENTIALS)
    assert r.json()["customer"]["shipping_addresses"] == []


async def test_a_customer_only_sees_their_own_account(client, customer):
    other = await Customer.create(
        email="other@example.com", has_account=True, password_hash=hash_password("other-secret")
    )
    token = (await client.post("/store/auth/token", json=CREDENTIALS)).json()["access_token"]
    await client.post("/store/auth", json={"email": "other@example.com", "password": "other-secret"})
    # the cookie (other) wins over the bearer token (jane), as in Medusa v1's strategy order
    r = await client.get("/store/auth", headers={"Authorization": f"Bearer {token}"})
    assert r.json()["customer"]["id"] == other.id
    client.cookies.clear()
    r = await client.get("/store/auth", headers={"Authorization": f"Bearer {token}"})
    assert r.json()["customer"]["id"] == customer.id
