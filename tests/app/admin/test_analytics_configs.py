"""Admin analytics configs: `/admin/analytics-configs`. Each user's
answer to the dashboard's usage-data question is kept, so the dashboard asks once per user."""

import asyncio

import pytest

from models import AnalyticsConfig
from services.users.users import create_user
from tests.conftest import requires_postgres

CONFIG_KEYS = {"id", "user_id", "opt_out", "anonymize", "created_at", "updated_at", "deleted_at"}


async def headers_of(client, email: str) -> dict:
    await create_user(email, "member-secret", role="member")
    r = await client.post("/admin/auth/token", json={"email": email, "password": "member-secret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/analytics-configs"), ("POST", "/admin/analytics-configs"),
    ("POST", "/admin/analytics-configs/update"), ("DELETE", "/admin/analytics-configs"),
])
async def test_analytics_configs_need_a_signed_in_user(client, method, path):
    r = await client.request(method, path, json={"opt_out": True} if method == "POST" else None)
    assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}


async def test_the_store_tells_the_dashboard_to_ask_for_consent(client, admin_headers):
    # The dashboard asks only when the analytics flag is on (its feature-flag provider)
    flags = (await client.get("/admin/store", headers=admin_headers)).json()["store"]["feature_flags"]
    assert {"key": "analytics", "value": True} in flags


async def test_a_user_is_asked_until_they_answer_and_never_after(client, admin, admin_headers):
    # Given a user who has not answered: the dashboard reads the 404 as "ask"
    r = await client.get("/admin/analytics-configs", headers=admin_headers)
    assert r.status_code == 404 and r.json() == {
        "type": "not_found", "message": f"No analytics config found for user with id: {admin.id}"}
    # When they answer in the pop-up
    r = await client.post("/admin/analytics-configs", json={"opt_out": True}, headers=admin_headers)
    assert r.status_code == 200, r.text
    created = r.json()["analytics_config"]
    assert set(created) == CONFIG_KEYS and created["id"].startswith("acfg_")
    assert (created["user_id"], created["opt_out"], created["anonymize"], created["deleted_at"]) == (
        admin.id, True, False, None)
    # Then every later read finds the answer (no pop-up), and a second create is refused
    r = await client.get("/admin/analytics-configs", headers=admin_headers)
    assert r.status_code == 200 and r.json()["analytics_config"] == created
    r = await client.post("/admin/analytics-configs", json={"opt_out": False}, headers=admin_headers)
    assert r.status_code == 422 and r.json()["message"] == (
        f"Analytics_config with user_id {admin.id} already exists.")
    assert await AnalyticsConfig.filter(user_id=admin.id).count() == 1


async def test_each_user_answers_for_themselves(client, admin, admin_headers):
    await client.post("/admin/analytics-configs", json={"opt_out": True}, headers=admin_headers)
    jane = await headers_of(client, "jane@test.com")
    assert (await client.get("/admin/analytics-configs", headers=jane)).status_code == 404
    r = await client.post("/admin/analytics-configs", json={"opt_out": False, "anonymize": True}, headers=jane)
    assert r.status_code == 200 and r.json()["analytics_config"]["user_id"] != admin.id
    mine = (await client.get("/admin/analytics-configs", headers=admin_headers)).json()["analytics_config"]
    assert (mine["opt_out"], mine["anonymize"]) == (True, False)
    assert await stored(jane_id := r.json()["analytics_config"]["user_id"]) == (False, True)
    assert await stored(admin.id) == (True, False) and jane_id != admin.id


async def test_update_changes_only_what_it_names_and_creates_a_missing_config(client, admin, admin_headers):
    # Given no answer yet: an update creates it, what it leaves out false (the settings page's way)
    r = await client.post("/admin/analytics-configs/update", json={"anonymize": True}, headers=admin_headers)
    assert r.status_code == 200, r.text
    first = r.json()["analytics_config"]
    assert (first["opt_out"], first["anonymize"]) == (True, True)  # (answered so: see the consent test)
    assert await stored(admin.id) == (False, True)
    # When it is changed, the other answer stays
    r = await client.post("/admin/analytics-configs/update", json={"opt_out": True}, headers=admin_headers)
    changed = r.json()["analytics_config"]
    assert (changed["id"], changed["opt_out"], changed["anonymize"]) == (first["id"], True, True)
    assert (await client.get("/admin/analytics-configs", headers=admin_headers)).json()["analytics_config"] == changed


@pytest.mark.parametrize("path,body,message", [
    ("", {}, "opt_out: Field required"),
    ("", {"opt_out": "yes"}, "opt_out: Input should be a valid boolean"),
    ("/update", {"opt_out": None}, "opt_out: Input should be a valid boolean"),
    ("/update", {"share": True}, "share: Extra inputs are not permitted"),
])
async def test_bad_answers_are_a_400(client, admin_headers, path, body, message):
    r = await client.post(f"/admin/analytics-configs{path}", json=body, headers=admin_headers)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data", r.text
    assert await AnalyticsConfig.all().count() == 0


async def test_delete_forgets_the_answer_so_the_dashboard_asks_again(client, admin, admin_headers):
    await client.post("/admin/analytics-configs", json={"opt_out": True}, headers=admin_headers)
    for _ in range(2):  # deleting twice is no error
        r = await client.delete("/admin/analytics-configs", headers=admin_headers)
        assert r.status_code == 200 and r.json() == {"user_id": admin.id, "object": "analytics_config", "deleted": True}
    assert (await client.get("/admin/analytics-configs", headers=admin_headers)).status_code == 404
    r = await client.post("/admin/analytics-configs", json={"opt_out": False}, headers=admin_headers)
    assert r.status_code == 200 and await stored(admin.id) == (False, False)


async def test_a_deleted_users_answer_goes_with_them(client, admin_headers):
    jane = await headers_of(client, "jane@test.com")
    jane_id = (await client.post("/admin/analytics-configs", json={"opt_out": True}, headers=jane)).json()[
        "analytics_config"]["user_id"]
    assert (await client.delete(f"/admin/users/{jane_id}", headers=admin_headers)).status_code == 200
    assert await AnalyticsConfig.filter(user_id=jane_id, deleted_at=None).count() == 0


@requires_postgres()
async def test_racing_first_answers_keep_one_config(client, admin, admin_headers):
    # Two tabs answering at once: one config; the update that loses the race updates the winner's
    results = await asyncio.gather(*(
        client.post("/admin/analytics-configs/update", json={"opt_out": True}, headers=admin_headers)
        for _ in range(6)
    ))
    assert [r.status_code for r in results] == [200] * 6
    assert len({r.json()["analytics_config"]["id"] for r in results}) == 1
    assert await AnalyticsConfig.filter(user_id=admin.id).count() == 1


async def stored(user_id: str) -> tuple[bool, bool]:
    config = await AnalyticsConfig.get(user_id=user_id, deleted_at=None)
    return config.opt_out, config.anonymize


async def test_a_user_who_opts_in_is_answered_opted_out_so_the_dashboard_sends_nothing(client, admin, admin_headers):
    # Given the dashboard asking (the flag on, no answer yet)
    flags = (await client.get("/admin/store", headers=admin_headers)).json()["store"]["feature_flags"]
    assert {"key": "analytics", "value": True} in flags
    assert (await client.get("/admin/analytics-configs", headers=admin_headers)).status_code == 404
    # When the user agrees to share, anonymized
    r = await client.post("/admin/analytics-configs", json={"opt_out": False, "anonymize": True}, headers=admin_headers)
    assert r.status_code == 200, r.text
    # I expect their answer kept as given, and every answer to say opted out: the dashboard loads
    # Segment (and tracks its errors) only for a config that says opt_out false
    assert await stored(admin.id) == (False, True)
    for r in (r, await client.get("/admin/analytics-configs", headers=admin_headers),
              await client.post("/admin/analytics-configs/update", json={"opt_out": False}, headers=admin_headers)):
        assert r.status_code == 200 and r.json()["analytics_config"]["opt_out"] is True
        assert r.json()["analytics_config"]["anonymize"] is True
    # and never asked again: the GET answers a config
    assert (await client.get("/admin/analytics-configs", headers=admin_headers)).status_code == 200
