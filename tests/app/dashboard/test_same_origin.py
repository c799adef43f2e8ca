"""The dashboard served here signs in and writes from this server's own origin: with the defaults
that follow from it (no ADMIN_CORS entry, a SameSite=Strict cookie), the cross-site rules of
app/web/csrf.py accept its requests and still refuse another origin's."""

import pytest

from app.dashboard import DashboardSettings
from app.server import create_app
from tests.account_factories import forget_rate_limits
from tests.conftest import running, settings

ADMIN = {"email": "admin@test.com", "password": "supersecret"}


@pytest.fixture
async def same_origin(client, admin, tmp_path):
    app = create_app(settings(admin_cors=(), cookie_samesite="Strict", dashboard=DashboardSettings(dir=str(tmp_path))),
                     manage_orm=False)
    async with running(app) as own:
        yield own, str(own.base_url).rstrip("/")
    await forget_rate_limits()  # the counters are the shared test server's (`client` keeps it up)


async def test_the_dashboard_signs_in_and_writes_from_its_own_origin_with_a_strict_cookie(same_origin):
    client, origin = same_origin
    # Given the sign-in page at /app/login, when it signs in
    r = await client.post("/admin/auth", json=ADMIN, headers={"Origin": origin, "Referer": f"{origin}/app/login"})
    # I expect a session whose cookie never leaves this site
    assert r.status_code == 200, r.text
    assert "samesite=strict" in r.headers["set-cookie"].lower() and "connect.sid" in client.cookies
    # and its cookie-authenticated reads and writes accepted
    assert (await client.get("/admin/auth", headers={"Referer": f"{origin}/app/a/orders"})).status_code == 200
    r = await client.post("/admin/customers", json={"email": "new@example.com", "first_name": "N", "last_name": "C", "password": "secret-123"},
                          headers={"Origin": origin})
    assert r.status_code == 201, r.text
    # while the same write from the dashboard's former origin, no longer listed, is refused
    r = await client.post("/admin/customers", json={"email": "other@example.com", "first_name": "O", "last_name": "C", "password": "secret-123"},
                          headers={"Origin": "http://localhost:7001"})
    assert r.status_code == 403 and r.json()["type"] == "not_allowed"
    # and so is a sign-in started by another site
    r = await client.post("/admin/auth", json=ADMIN, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
