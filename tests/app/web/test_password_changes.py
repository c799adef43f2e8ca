"""A password change or reset ends every session and token issued before it (rules), for customers
and back-office users; the session that made the change keeps working."""

import pytest

from app.server import create_app
from services.users.users import set_user_password
from tests.account_factories import forget_rate_limits, recorder, token_sent_to
from tests.cart_factories import shopper
from tests.conftest import count_queries, running, settings

JANE = {"email": "jane@example.com", "password": "jane-secret"}
ADMIN = {"email": "admin@test.com", "password": "supersecret"}


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    yield
    await forget_rate_limits()


async def _session(client, path: str, credentials: dict) -> str:
    """Sign in with a cookie and hand back the cookie, leaving the client's jar empty."""
    r = await client.post(path, json=credentials)
    assert r.status_code == 200, r.text
    cookie = client.cookies["connect.sid"]
    client.cookies.clear()
    return cookie


def _cookie(value: str) -> dict:
    return {"Cookie": f"connect.sid={value}"}


async def test_a_password_reset_ends_older_sessions_and_tokens_of_the_customer(client):
    mailbox = recorder()
    customer, jwt_headers = await shopper(client)
    cookie = await _session(client, "/store/auth", JANE)
    assert (await client.get("/store/auth", headers=_cookie(cookie))).status_code == 200
    assert (await client.get("/store/auth", headers=jwt_headers)).status_code == 200

    await client.post("/store/customers/password-token", json={"email": customer.email})
    token = await token_sent_to(mailbox, customer.email)
    r = await client.post("/store/customers/password-reset",
                          json={"email": customer.email, "token": token, "password": "brand-new-secret"})
    assert r.status_code == 200, r.text

    assert (await client.get("/store/auth", headers=_cookie(cookie))).status_code == 401
    assert (await client.get("/store/auth", headers=jwt_headers)).status_code == 401
    assert (await client.get("/store/customers/me", headers=jwt_headers)).status_code == 401
    fresh = await client.post("/store/auth/token", json={**JANE, "password": "brand-new-secret"})
    headers = {"Authorization": f"Bearer {fresh.json()['access_token']}"}
    assert (await client.get("/store/auth", headers=headers)).status_code == 200


async def test_a_password_change_ends_other_sessions_and_tokens_but_not_the_session_that_made_it(client):
    customer, jwt_headers = await shopper(client)
    other = await _session(client, "/store/auth", JANE)
    mine = await _session(client, "/store/auth", JANE)

    r = await client.post("/store/customers/me", headers=_cookie(mine), json={"password": "new-secret"})
    assert r.status_code == 200, r.text
    renewed = r.cookies["connect.sid"]  # a fresh session id carrying the new password's stamp
    assert renewed != mine
    client.cookies.clear()

    assert (await client.get("/store/auth", headers=_cookie(renewed))).status_code == 200
    assert (await client.get("/store/auth", headers=_cookie(mine))).status_code == 401
    assert (await client.get("/store/auth", headers=_cookie(other))).status_code == 401
    assert (await client.get("/store/auth", headers=jwt_headers)).status_code == 401
    assert (await client.post("/store/auth", json={**JANE, "password": "new-secret"})).status_code == 200


async def test_a_change_without_a_new_password_leaves_sessions_alone(client):
    _, jwt_headers = await shopper(client)
    cookie = await _session(client, "/store/auth", JANE)
    r = await client.post("/store/customers/me", headers=_cookie(cookie), json={"first_name": "Janet"})
    assert r.status_code == 200 and "set-cookie" not in r.headers
    assert (await client.get("/store/auth", headers=_cookie(cookie))).status_code == 200
    assert (await client.get("/store/auth", headers=jwt_headers)).status_code == 200


async def test_a_password_set_by_the_back_office_ends_the_customers_sessions_and_tokens(client, admin_headers):
    customer, jwt_headers = await shopper(client)
    cookie = await _session(client, "/store/auth", JANE)
    r = await client.post(f"/admin/customers/{customer.id}", headers=admin_headers, json={"password": "set-by-staff"})
    assert r.status_code == 200, r.text
    assert (await client.get("/store/auth", headers=_cookie(cookie))).status_code == 401
    assert (await client.get("/store/auth", headers=jwt_headers)).status_code == 401


async def test_the_signed_in_customer_is_checked_with_one_query(client):
    customer, jwt_headers = await shopper(client)
    async with count_queries() as queries:
        assert (await client.get("/store/customers/me/payment-methods", headers=jwt_headers)).status_code == 200
    checks = [q for q in queries if 'FROM "customer"' in q]
    assert len(checks) == 1 and "password_hash" in checks[0]


async def test_an_admin_password_change_ends_older_sessions_and_tokens_of_the_user(client, admin):
    cookie = await _session(client, "/admin/auth", ADMIN)
    token = (await client.post("/admin/auth/token", json=ADMIN)).json()["access_token"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert (await client.get("/admin/auth", headers=_cookie(cookie))).status_code == 200

    await set_user_password("Admin@Test.com", "a-new-admin-secret")

    assert (await client.get("/admin/auth", headers=_cookie(cookie))).status_code == 401
    assert (await client.get("/admin/auth", headers=bearer)).status_code == 401
    assert (await client.post("/admin/auth", json=ADMIN)).status_code == 401
    assert (await client.post("/admin/auth", json={**ADMIN, "password": "a-new-admin-secret"})).status_code == 200
    assert (await client.get("/admin/auth")).status_code == 200


async def test_a_password_change_in_this_process_ends_cached_admin_credentials_at_once(admin):
    app = create_app(settings(auth_cache_seconds=60), manage_orm=False)
    async with running(app) as http:
        token = (await http.post("/admin/auth/token", json=ADMIN)).json()["access_token"]
        bearer = {"Authorization": f"Bearer {token}"}
        await http.post("/admin/auth", json=ADMIN)
        cookie = http.cookies["connect.sid"]
        http.cookies.clear()
        for headers in (bearer, _cookie(cookie)):  # now both remembered by the process
            assert (await http.get("/admin/auth", headers=headers)).status_code == 200

        await set_user_password(ADMIN["email"], "a-new-admin-secret")

        assert (await http.get("/admin/auth", headers=bearer)).status_code == 401
        assert (await http.get("/admin/auth", headers=_cookie(cookie))).status_code == 401


async def test_an_admin_password_change_keeps_the_api_token(client, admin):
    from services.users.users import issue_api_token

    api_token = await issue_api_token(ADMIN["email"])
    await set_user_password(ADMIN["email"], "a-new-admin-secret")
    assert (await client.get("/admin/auth", headers={"x-medusa-access-token": api_token})).status_code == 200


async def test_a_session_holding_both_a_user_and_a_customer_loses_only_the_changed_one(client, admin):
    await shopper(client, "admin@test.com", "shopper-secret")
    await client.post("/admin/auth", json=ADMIN)
    await client.post("/store/auth", json={"email": "admin@test.com", "password": "shopper-secret"})
    cookie = client.cookies["connect.sid"]
    client.cookies.clear()

    await set_user_password(ADMIN["email"], "a-new-admin-secret")

    assert (await client.get("/admin/auth", headers=_cookie(cookie))).status_code == 401
    assert (await client.get("/store/auth", headers=_cookie(cookie))).status_code == 200


async def test_setting_the_password_of_an_unknown_user_is_not_found():
    from services.core.errors import NotFound

    with pytest.raises(NotFound):
        await set_user_password("nobody@test.com", "whatever")
