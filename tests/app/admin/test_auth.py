"""Admin sign-in: session cookie, JWT, API tokens, and the gate in front of every /admin route."""

import time

import jwt
import pytest

from app.web.auth import PUBLIC_ADMIN_ROUTES
from models import Session, User
from services.users.users import issue_api_token
from tests.conftest import SETTINGS

LOGIN = {"email": "admin@test.com", "password": "supersecret"}


async def test_login_sets_an_httponly_session_cookie_and_returns_the_user(client, admin):
    r = await client.post("/admin/auth", json=LOGIN)
    assert r.status_code == 200
    user = r.json()["user"]
    assert user["id"] == admin.id and user["email"] == "admin@test.com" and user["role"] == "admin"
    assert "password_hash" not in user and user["api_token"] is None
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("connect.sid=s%3A") and "HttpOnly" in cookie and "Max-Age=36000" in cookie


async def test_session_cookie_authenticates_later_requests(client, admin):
    await client.post("/admin/auth", json=LOGIN)
    r = await client.get("/admin/auth")
    assert r.status_code == 200 and r.json()["user"]["id"] == admin.id


async def test_each_sign_in_issues_a_new_session_id(client, admin):
    first = (await client.post("/admin/auth", json=LOGIN)).cookies["connect.sid"]
    second = (await client.post("/admin/auth", json=LOGIN)).cookies["connect.sid"]
    assert first != second
    client.cookies.clear()
    client.cookies.set("connect.sid", first)
    assert (await client.get("/admin/auth")).status_code == 401  # the old session is gone


async def test_logout_destroys_the_session(client, admin):
    await client.post("/admin/auth", json=LOGIN)
    cookie = client.cookies["connect.sid"]
    r = await client.delete("/admin/auth")
    assert r.status_code == 200
    client.cookies.set("connect.sid", cookie)
    r = await client.get("/admin/auth")
    assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}


async def test_a_forged_or_tampered_cookie_is_not_a_session(client, admin):
    await client.post("/admin/auth", json=LOGIN)
    good = client.cookies["connect.sid"]
    client.cookies.clear()
    client.cookies.set("connect.sid", good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB"))
    assert (await client.get("/admin/auth")).status_code == 401


@pytest.mark.parametrize("body,message", [
    ({}, "email should not be empty, password should not be empty"),
    ({"email": "nope", "password": "x"}, "email must be an email"),
    ({"email": "a@b.co", "password": "x", "extra": 1}, "property extra should not exist"),
    ({"email": 5, "password": "x"}, "email must be a string"),
])
async def test_login_body_is_validated(client, body, message):
    r = await client.post("/admin/auth", json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_wrong_password_unknown_email_and_deleted_user_are_the_same_401(client, admin):
    for body in (
        {**LOGIN, "password": "wrong"},
        {"email": "nobody@test.com", "password": "supersecret"},
    ):
        r = await client.post("/admin/auth", json=body)
        assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    assert "set-cookie" not in r.headers
    await User.filter(id=admin.id).update(deleted_at=admin.created_at)
    assert (await client.post("/admin/auth", json=LOGIN)).status_code == 401


async def test_login_is_case_insensitive_on_email(client, admin):
    r = await client.post("/admin/auth", json={"email": "Admin@Test.com", "password": "supersecret"})
    assert r.status_code == 200


async def test_jwt_from_token_route_authenticates_as_bearer(client, admin):
    r = await client.post("/admin/auth/token", json=LOGIN)
    assert r.status_code == 200
    token = r.json()["access_token"]
    claims = jwt.decode(token, SETTINGS.jwt_secret, algorithms=["HS256"])
    assert claims["user_id"] == admin.id and claims["domain"] == "admin"
    assert claims["exp"] - claims["iat"] == 24 * 3600
    r = await client.get("/admin/auth", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json()["user"]["id"] == admin.id
    assert "set-cookie" not in r.headers


async def test_expired_foreign_or_store_jwts_are_refused(client, admin):
    now = int(time.time())
    tokens = [
        jwt.encode({"user_id": admin.id, "domain": "admin", "iat": now - 90000, "exp": now - 10}, SETTINGS.jwt_secret),
        jwt.encode({"user_id": admin.id, "domain": "admin", "exp": now + 60}, "another-secret-of-a-production-length-0123"),
        jwt.encode({"customer_id": "cus_1", "domain": "store", "exp": now + 60}, SETTINGS.jwt_secret),
    ]
    for token in tokens:
        r = await client.get("/admin/auth", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401


async def test_jwt_of_a_deleted_user_no_longer_works(client, admin, admin_headers):
    assert (await client.get("/admin/auth", headers=admin_headers)).status_code == 200
    await User.filter(id=admin.id).update(deleted_at=admin.created_at)
    assert (await client.get("/admin/auth", headers=admin_headers)).status_code == 401


async def test_api_token_is_stored_hashed_and_works_both_ways(client, admin):
    token = await issue_api_token("admin@test.com")
    row = await User.get(id=admin.id)
    assert row.api_token is None and row.api_token_hash and token not in row.api_token_hash
    for headers in ({"Authorization": f"Bearer {token}"}, {"x-medusa-access-token": token}):
        r = await client.get("/admin/auth", headers=headers)
        assert r.status_code == 200 and r.json()["user"]["id"] == admin.id
    assert (await client.get("/admin/auth", headers={"x-medusa-access-token": token + "x"})).status_code == 401


async def test_a_new_api_token_revokes_the_previous_one(client, admin):
    old = await issue_api_token("admin@test.com")
    await issue_api_token("admin@test.com")
    assert (await client.get("/admin/auth", headers={"x-medusa-access-token": old})).status_code == 401


async def test_plain_api_token_written_by_hand_works_and_is_moved_to_its_hash(client, admin):
    await User.filter(id=admin.id).update(api_token="test_token")
    r = await client.get("/admin/auth", headers={"x-medusa-access-token": "test_token"})
    assert r.status_code == 200
    row = await User.get(id=admin.id)
    assert row.api_token is None and row.api_token_hash
    r = await client.get("/admin/auth", headers={"Authorization": "Bearer test_token"})
    assert r.status_code == 200


async def test_sessions_are_stored_under_a_digest_not_the_cookie_value(client, admin):
    if SETTINGS.redis_url:
        pytest.skip("sessions live in Redis on this backend")
    await client.post("/admin/auth", json=LOGIN)
    sid = client.cookies["connect.sid"]
    rows = await Session.all()
    assert len(rows) == 1
    # the user, and a 16-character stamp of the password (never its hash) that a new password voids
    assert set(rows[0].data) == {"user_id", "user_stamp"} and rows[0].data["user_id"] == admin.id
    assert len(rows[0].data["user_stamp"]) == 16 and rows[0].data["user_stamp"] not in admin.password_hash
    assert rows[0].id not in sid and len(rows[0].id) == 64


async def test_anonymous_requests_create_no_session(client, seeded):
    before = await Session.all().count()
    for path in ("/store/regions", "/store/products", "/health"):
        r = await client.get(path)
        assert r.status_code == 200 and "set-cookie" not in r.headers
    assert await Session.all().count() == before


async def test_every_admin_route_but_sign_in_answers_json_401_without_credentials(client):
    app = client._transport  # noqa: F841 (the server is shared; routes come from a fresh app)
    from app.server import create_app

    routes = create_app(SETTINGS, manage_orm=False).router.routes
    checked = 0
    for route in routes:
        path = "/" + route.path
        if not path.startswith("/admin"):
            continue
        for method in route.methods:
            if (method, path.rstrip("/")) in PUBLIC_ADMIN_ROUTES:  # sign-in, invite accept, password reset
                continue
            url = path.replace("<", "").replace(">", "")
            r = await client.request(method, url)
            assert r.status_code == 401, (method, url, r.status_code)
            assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
            checked += 1
    assert checked >= 2
    r = await client.get("/admin/no-such-route")
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"


@pytest.mark.parametrize("cookie", ["s%3Aabc.%AAAA", "s%3Aabc.%C3%A9t%C3%A9", "s:", "garbage", "s%3A.sig"])
async def test_malformed_session_cookies_are_anonymous_not_errors(client, cookie):
    client.cookies.set("connect.sid", cookie)
    r = await client.get("/admin/auth")
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"
    r = await client.get("/store/regions")
    assert r.status_code == 200


async def test_a_repeated_jwt_skips_the_user_lookup_until_its_short_cache_expires(admin):
    from app.server import create_app
    from tests.conftest import count_queries, running, settings

    app = create_app(settings(auth_cache_seconds=60), manage_orm=False)
    async with running(app) as http:
        token = (await http.post("/admin/auth/token", json=LOGIN)).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        async with count_queries() as first:
            assert (await http.get("/admin/auth", headers=headers)).status_code == 200
        async with count_queries() as second:
            assert (await http.get("/admin/auth", headers=headers)).status_code == 200
        assert len(first) == 1 and second == []
        # A deleted user's token keeps working only until the cache entry expires.
        await User.filter(id=admin.id).update(deleted_at=admin.created_at)
        assert (await http.get("/admin/auth", headers=headers)).status_code == 200
        _after_the_cache_lifetime(app, 60)
        assert (await http.get("/admin/auth", headers=headers)).status_code == 401


async def test_a_session_user_is_remembered_briefly_but_signing_out_ends_access_at_once(admin):
    from app.server import create_app
    from tests.conftest import count_queries, running, settings

    app = create_app(settings(auth_cache_seconds=60), manage_orm=False)
    async with running(app) as http:
        await http.post("/admin/auth", json=LOGIN)
        cookie = http.cookies["connect.sid"]
        assert (await http.get("/admin/auth")).status_code == 200
        async with count_queries() as queries:
            assert (await http.get("/admin/auth")).status_code == 200
        assert not any('FROM "user"' in q for q in queries)
        await User.filter(id=admin.id).update(deleted_at=admin.created_at)
        _after_the_cache_lifetime(app, 60)
        assert (await http.get("/admin/auth")).status_code == 401
        await User.filter(id=admin.id).update(deleted_at=None)
        await http.post("/admin/auth", json=LOGIN)
        cookie = http.cookies["connect.sid"]
        assert (await http.get("/admin/auth")).status_code == 200
        await http.delete("/admin/auth")
        http.cookies.set("connect.sid", cookie)  # the old cookie, replayed
        assert (await http.get("/admin/auth")).status_code == 401


def _after_the_cache_lifetime(app, seconds: float) -> None:
    """Move the app's admin cache past `seconds` from now, instead of waiting for it (a test that
    sleeps through a short lifetime fails when a busy machine makes its requests slower)."""
    import time

    app.ctx.recent_admins.clock = lambda: time.monotonic() + seconds + 1


async def test_api_tokens_are_never_cached(admin):
    from app.server import create_app
    from tests.conftest import running, settings

    app = create_app(settings(auth_cache_seconds=60), manage_orm=False)
    async with running(app) as http:
        token = await issue_api_token("admin@test.com")
        assert (await http.get("/admin/auth", headers={"x-medusa-access-token": token})).status_code == 200
        await issue_api_token("admin@test.com")  # replaces the token
        assert (await http.get("/admin/auth", headers={"x-medusa-access-token": token})).status_code == 401
        await http.post("/admin/auth", json=LOGIN)
        await http.delete("/admin/auth")
        assert (await http.get("/admin/auth")).status_code == 401
