"""Admin analytics configs: `/admin/analytics-configs` (reference catalogue §16). This server
collects no analytics: it answers as Medusa v1 with its `analytics` flag off, as JSON."""

import pytest

NOT_COLLECTED = {"type": "not_found",
                 "message": "This server collects no usage analytics: there is no analytics config"}


async def test_analytics_configs_need_a_signed_in_user(client):
    r = await client.get("/admin/analytics-configs")
    assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}


@pytest.mark.parametrize("method,path,body", [
    ("GET", "/admin/analytics-configs", None),
    ("POST", "/admin/analytics-configs", {"opt_out": False, "anonymize": False}),
    ("POST", "/admin/analytics-configs/update", {"opt_out": False}),
    ("DELETE", "/admin/analytics-configs", None),
])
async def test_there_is_no_analytics_config_to_read_or_write(client, admin_headers, method, path, body):
    # The dashboard's error page asks before reporting an error: a 404 reads as "not opted in"
    r = await client.request(method, path, json=body, headers=admin_headers)
    assert r.status_code == 404 and r.json() == NOT_COLLECTED


async def test_the_store_tells_the_dashboard_that_analytics_are_off(client, admin_headers):
    flags = (await client.get("/admin/store", headers=admin_headers)).json()["store"]["feature_flags"]
    assert {"key": "analytics", "value": False} in flags
