"""Admin applications (OAuth apps): `GET /admin/apps` and `POST /admin/apps/authorizations`, with a
real in-memory provider plugged into the handler registry."""

import pytest

from models import OAuthApp
from services.users.apps import InMemoryOAuthHandler, install_app, oauth_handlers

APP_KEYS = {"id", "display_name", "application_name", "install_url", "uninstall_url", "data"}
STATE = "state-4f1c9a"


@pytest.fixture
async def provider():
    """The `test-app` plug-in: its handler registered in code and its row installed with a state."""
    handler = InMemoryOAuthHandler()
    oauth_handlers.register("test-app", handler)
    await install_app("test-app", "Test App", install_url="https://test.app/install", data={"state": STATE})
    yield handler
    oauth_handlers.unregister("test-app")


def authorization(code: str, state: str = STATE, name: str = "test-app") -> dict:
    return {"application_name": name, "state": state, "code": code}


# ---------------------------------------------------------------- list

async def test_list_shows_every_installed_app_without_paging(client, admin_headers):
    assert (await client.get("/admin/apps", headers=admin_headers)).json() == {"apps": []}
    for i in range(3):
        await install_app(f"app-{i}", f"App {i}", uninstall_url=f"https://app{i}.example/uninstall")
    r = await client.get("/admin/apps?limit=1", headers=admin_headers)  # the query is ignored, as in Medusa
    assert r.status_code == 200
    apps = r.json()["apps"]
    assert set(r.json()) == {"apps"} and [a["application_name"] for a in apps] == ["app-0", "app-1", "app-2"]
    assert all(set(a) == APP_KEYS and a["id"].startswith("oauth_") for a in apps)
    assert apps[2]["display_name"] == "App 2" and apps[2]["uninstall_url"] == "https://app2.example/uninstall"


# ---------------------------------------------------------------- authorizations

async def test_authorization_stores_the_providers_credentials_as_the_apps_data(client, admin_headers, provider):
    # Given the provider sent the admin back with a code and the state
    code = provider.grant()
    # When the admin hands them over
    r = await client.post("/admin/apps/authorizations", headers=admin_headers, json=authorization(code))
    # I expect the app, under the plural key, holding the credentials the provider issued
    assert r.status_code == 200
    app = r.json()["apps"]
    assert set(r.json()) == {"apps"} and set(app) == APP_KEYS
    assert app["application_name"] == "test-app" and app["data"] == provider.issued[0]
    assert (await OAuthApp.get(application_name="test-app")).data == provider.issued[0]


async def test_a_spent_state_cannot_authorize_again(client, admin_headers, provider):
    await client.post("/admin/apps/authorizations", headers=admin_headers, json=authorization(provider.grant()))
    r = await client.post("/admin/apps/authorizations", headers=admin_headers, json=authorization(provider.grant()))
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": "Test App could not match state"}
    assert len(provider.issued) == 1


async def test_a_code_the_provider_refuses_leaves_the_app_as_it_was(client, admin_headers, provider):
    r = await client.post("/admin/apps/authorizations", headers=admin_headers, json=authorization("forged"))
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": "The authorization code is not valid or was already used"}
    assert (await OAuthApp.get(application_name="test-app")).data == {"state": STATE}


@pytest.mark.parametrize("data", [{"state": "another"}, {}, None, {"state": 42}])
async def test_a_state_that_does_not_match_is_a_400(client, admin_headers, provider, data):
    await OAuthApp.filter(application_name="test-app").update(data=data)
    r = await client.post("/admin/apps/authorizations", headers=admin_headers, json=authorization(provider.grant()))
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message": "Test App could not match state"}
    assert provider.issued == []


@pytest.mark.parametrize("name", ["nope", "x" * 300])
async def test_an_unknown_application_is_a_404(client, admin_headers, provider, name):
    r = await client.post("/admin/apps/authorizations", headers=admin_headers,
                          json=authorization(provider.grant(), name=name))
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": f"Oauth application {name} not found"}


async def test_an_app_without_a_registered_handler_is_a_400_not_a_500(client, admin_headers):
    await install_app("orphan", "Orphan App", data={"state": STATE})
    r = await client.post("/admin/apps/authorizations", headers=admin_headers,
                          json=authorization("code", name="orphan"))
    assert r.status_code == 400
    assert r.json() == {
        "type": "invalid_data",
        "message": "An OAuth handler for Orphan App could not be found make sure the plugin is installed",
    }


@pytest.mark.parametrize("body,message", [
    ({}, "application_name should not be empty, state should not be empty, code should not be empty"),
    ({"application_name": "test-app", "state": "", "code": "c"}, "state should not be empty"),
    ({"application_name": "test-app", "state": STATE, "code": 5}, "code must be a string"),
    ({"application_name": ["test-app"], "state": STATE, "code": "c"}, "application_name must be a string"),
    ({**authorization("c"), "scope": "all"}, "property scope should not exist"),
])
async def test_authorization_body_is_validated(client, admin_headers, provider, body, message):
    r = await client.post("/admin/apps/authorizations", headers=admin_headers, json=body)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


# ---------------------------------------------------------------- authentication

@pytest.mark.parametrize("method,path", [("GET", "/admin/apps"), ("POST", "/admin/apps/authorizations")])
async def test_apps_need_a_signed_in_user(client, provider, method, path):
    code = provider.grant()
    r = await client.request(method, path, json=authorization(code) if method == "POST" else None)
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert provider.issued == []
