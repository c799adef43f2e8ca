"""A web process remembers a session it read for SESSION_CACHE_SECONDS (the cookie path costs
no store read per request), while a sign-out takes effect at once where it happened and
within that bound in every other web process. Two apps here share one store, as two web
processes share Redis."""

import pytest

from app.server import create_app
from app.web import sessions
from tests.conftest import running, settings

ADMIN = {"email": "admin@test.com", "password": "supersecret"}


class CountingStore:
    """The store both processes share, counting its reads."""

    def __init__(self):
        self.data, self.reads = {}, 0

    async def get(self, key):
        self.reads += 1
        return self.data.get(key)

    async def set(self, key, data, ttl):
        self.data[key] = data

    async def delete(self, key):
        self.data.pop(key, None)


@pytest.fixture
def shared():
    return CountingStore()


def _app(store, seconds: float):
    app = create_app(settings(session_cache_seconds=seconds), manage_orm=False)
    app.ctx.sessions = sessions.RecentSessions(store, seconds)
    return app


async def test_a_session_is_read_from_the_store_once_per_bound(admin, shared):
    async with running(_app(shared, 60)) as web:
        assert (await web.post("/admin/auth", json=ADMIN)).status_code == 200
        reads = shared.reads
        # When the dashboard sends its cookie twenty times
        for _ in range(20):
            assert (await web.get("/admin/customers?limit=1")).status_code == 200
        # I expect the store not read again
        assert shared.reads == reads


async def test_a_sign_out_ends_the_session_at_once_here_and_within_the_bound_elsewhere(admin, shared, monkeypatch):
    async with running(_app(shared, 60)) as one, running(_app(shared, 60)) as other:
        assert (await one.post("/admin/auth", json=ADMIN)).status_code == 200
        cookie = {"Cookie": f"connect.sid={one.cookies['connect.sid']}"}
        one.cookies.clear()
        assert (await other.get("/admin/auth", headers=cookie)).status_code == 200  # remembered by `other` now
        # When the user signs out through the first process
        assert (await one.delete("/admin/auth", headers=cookie)).status_code == 200
        # I expect the cookie refused there at once,
        assert (await one.get("/admin/auth", headers=cookie)).status_code == 401
        # still taken by the other process within its bound, and refused once the bound has passed
        assert (await other.get("/admin/auth", headers=cookie)).status_code == 200
        later = sessions.time.monotonic() + 61
        monkeypatch.setattr(sessions.time, "monotonic", lambda: later)
        assert (await other.get("/admin/auth", headers=cookie)).status_code == 401


@pytest.mark.parametrize("seconds", [0, 2.5])
async def test_the_setting_decides_whether_sessions_are_remembered(admin, seconds):
    app = create_app(settings(session_cache_seconds=seconds), manage_orm=False)
    async with running(app):
        remembered = isinstance(app.ctx.sessions, sessions.RecentSessions)
        assert remembered == (seconds > 0)
        assert not remembered or app.ctx.sessions.ttl == seconds
