"""Admin store settings: `/admin/store` (Medusa's `admin/store.js`)."""

import pytest
from sanic import Sanic

from models import PaymentProvider, Region, SalesChannel, Store, TaxProvider
from services.users.users import create_user
from tests.conftest import settings

STORE_KEYS = {
    "id", "name", "default_currency_code", "swap_link_template", "payment_link_template", "invite_link_template",
    "default_location_id", "default_sales_channel_id", "metadata", "created_at", "updated_at", "currencies",
    "default_currency", "default_sales_channel",
}
USD = {"code": "usd", "symbol": "$", "symbol_native": "$", "name": "US Dollar", "includes_tax": False}
FLAG_KEYS = [
    "analytics", "medusa_v2", "order_editing", "product_categories", "publishable_api_keys", "sales_channels",
    "tax_inclusive_pricing", "workflows",
]
# The admin route each route-backed flag stands for (app/admin/store.py).
FLAG_ROUTES = {
    "order_editing": "/admin/order-edits", "product_categories": "/admin/product-categories",
    "publishable_api_keys": "/admin/publishable-api-keys", "sales_channels": "/admin/sales-channels",
}


async def get_store(client, headers) -> dict:
    r = await client.get("/admin/store", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["store"]


async def update(client, headers, **body):
    return await client.post("/admin/store", json=body, headers=headers)


def codes(store: dict) -> list[str]:
    return [c["code"] for c in store["currencies"]]


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/store"), ("POST", "/admin/store"), ("POST", "/admin/store/currencies/eur"),
    ("DELETE", "/admin/store/currencies/eur"), ("GET", "/admin/store/payment-providers"),
    ("GET", "/admin/store/tax-providers"),
])
async def test_every_store_route_needs_a_signed_in_user(client, method, path):
    r = await client.request(method, path, json={"name": "Hijacked"} if method == "POST" else None)
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert (await Store.first()).name == "Medusa Store"


# ---------------------------------------------------------------- GET /admin/store


async def test_get_shows_the_store_with_currencies_default_channel_and_providers(client, admin_headers):
    store = await get_store(client, admin_headers)
    assert set(store) == STORE_KEYS | {"payment_providers", "fulfillment_providers", "feature_flags", "modules"}
    assert store["id"].startswith("store_") and store["name"] == "Medusa Store"
    assert store["default_currency_code"] == "usd" and store["default_currency"] == USD
    assert store["currencies"] == [USD]
    channel = store["default_sales_channel"]
    assert channel["id"] == store["default_sales_channel_id"] and channel["name"] == "Default Sales Channel"
    assert store["default_location_id"] is None and store["invite_link_template"] is None
    assert store["payment_providers"] == [
        {"id": "manual", "is_installed": True}, {"id": "system", "is_installed": True},
    ]
    assert store["fulfillment_providers"] == [{"id": "manual", "is_installed": True}]


async def test_the_dashboard_also_finds_the_store_with_a_trailing_slash(client, admin_headers):
    r = await client.get("/admin/store/", headers=admin_headers)
    assert r.status_code == 200 and r.json()["store"]["name"] == "Medusa Store"


async def test_feature_flags_report_what_this_server_does_and_no_inventory_modules(client, admin_headers):
    store = await get_store(client, admin_headers)
    # Medusa's flags in its order, each a boolean; the dashboard needs a non-empty list and an array of modules
    assert [f["key"] for f in store["feature_flags"]] == FLAG_KEYS
    flags = {f["key"]: f["value"] for f in store["feature_flags"]}
    assert all(isinstance(v, bool) for v in flags.values())
    # Order editing and the consent question work here; tax-inclusive prices and Medusa's v2 machinery do not
    assert (flags["order_editing"], flags["analytics"]) == (True, True)
    assert (flags["tax_inclusive_pricing"], flags["medusa_v2"], flags["workflows"]) == (True, False, False)
    # No inventory or stock-location module: the dashboard edits the variant's own stock
    assert store["modules"] == []


async def test_a_route_backed_flag_is_on_exactly_when_its_admin_route_answers(client, admin_headers):
    flags = {f["key"]: f["value"] for f in (await get_store(client, admin_headers))["feature_flags"]}
    for key, path in FLAG_ROUTES.items():
        r = await client.get(path, headers=admin_headers)
        assert flags[key] is (r.status_code != 404), (key, r.status_code)


async def test_a_deleted_default_channel_shows_as_none(client, admin_headers):
    store = await Store.first()
    await SalesChannel.filter(id=store.default_sales_channel_id).update(deleted_at=store.created_at)
    body = await get_store(client, admin_headers)
    assert body["default_sales_channel"] is None


# ---------------------------------------------------------------- POST /admin/store


async def test_update_changes_name_link_templates_and_merges_metadata(client, admin_headers):
    await Store.filter().update(metadata={"keep": 1, "drop": "x"})
    r = await update(client, admin_headers, name="Shop", swap_link_template="https://s.example/{cart_id}",
                     payment_link_template="https://p.example/{cart_id}",
                     invite_link_template="http://localhost:7001/invite?token={invite_token}",
                     metadata={"drop": "", "new": True})
    assert r.status_code == 200, r.text
    store = r.json()["store"]
    # The saved store with its currencies, and none of GET's extras
    assert set(store) == STORE_KEYS
    assert store["name"] == "Shop" and store["swap_link_template"] == "https://s.example/{cart_id}"
    assert store["invite_link_template"] == "http://localhost:7001/invite?token={invite_token}"
    assert store["metadata"] == {"keep": 1, "new": True}
    assert (await get_store(client, admin_headers))["payment_link_template"] == "https://p.example/{cart_id}"
    # A template is cleared with null; what is not sent stays
    r = await update(client, admin_headers, swap_link_template=None)
    stored = await Store.first()
    assert stored.swap_link_template is None and stored.name == "Shop"
    assert stored.payment_link_template == "https://p.example/{cart_id}"


async def member_headers(client) -> dict:
    await create_user("member@test.com", "member-secret")
    r = await client.post("/admin/auth/token", json={"email": "member@test.com", "password": "member-secret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


@pytest.mark.parametrize("template", ["invite_link_template", "swap_link_template", "payment_link_template"])
async def test_a_member_cannot_change_a_link_template(client, admin_headers, template):
    # Given a member of the team
    member = await member_headers(client)
    # When they point a link template (invitations, swaps, payments) at their own site
    r = await update(client, member, **{template: "https://evil.example/{invite_token}{cart_id}"})
    # I expect a refusal, and the store as it was
    assert (r.status_code, r.json()) == (
        400, {"type": "not_allowed", "message": "Only an admin can change the store's link templates"})
    assert getattr(await Store.first(), template) is None


async def test_a_member_may_still_save_the_dashboards_form_with_the_templates_unchanged(client, admin_headers):
    # The dashboard's store form sends every template with the name
    await update(client, admin_headers, invite_link_template="http://localhost:7001/join?t={invite_token}")
    r = await update(client, await member_headers(client), name="Renamed", swap_link_template="",
                     payment_link_template=None, invite_link_template="http://localhost:7001/join?t={invite_token}")
    assert r.status_code == 200 and r.json()["store"]["name"] == "Renamed"
    assert (await Store.first()).swap_link_template is None  # a blank field is no template


@pytest.mark.parametrize("template", [
    "https://evil.example/invite?token={invite_token}",
    "http://localhost:7001@evil.example/invite?token={invite_token}",
    "http://localhost:70011/invite?token={invite_token}",
    "//localhost:7001/invite?token={invite_token}",
    "/invite?token={invite_token}",
    "javascript://localhost:7001/%0aalert(1)",
])
async def test_an_invite_link_must_stay_on_the_dashboards_origin(client, admin_headers, template):
    r = await update(client, admin_headers, invite_link_template=template)
    assert (r.status_code, r.json()["type"]) == (400, "invalid_data"), r.text
    assert "invite_link_template" in r.json()["message"]
    assert (await Store.first()).invite_link_template is None


@pytest.mark.parametrize("template", [
    "http://localhost:7000/invite?token={invite_token}",  # an ADMIN_CORS origin
    "HTTP://LOCALHOST:7001/team/join/{invite_token}",  # ADMIN_URL's, in any case
])
async def test_an_invite_link_on_a_dashboard_origin_is_kept(client, admin_headers, template):
    r = await update(client, admin_headers, invite_link_template=template)
    assert r.status_code == 200 and r.json()["store"]["invite_link_template"] == template


async def test_invite_link_origins_lets_the_operator_allow_another_origin(client, admin_headers, monkeypatch):
    monkeypatch.setattr(Sanic.get_app("commerce_test").ctx, "settings",
                        settings(invite_link_origins=("https://team.example",)))
    r = await update(client, admin_headers, invite_link_template="https://team.example/join?t={invite_token}")
    assert r.status_code == 200, r.text


async def test_currencies_replace_the_store_list_and_the_default_may_move_within_it(client, admin_headers):
    r = await update(client, admin_headers, currencies=["usd", "EUR", "dkk", "eur"])
    assert r.status_code == 200 and codes(r.json()["store"]) == ["dkk", "eur", "usd"]
    r = await update(client, admin_headers, default_currency_code="EUR", currencies=["eur", "jpy"])
    store = r.json()["store"]
    assert (codes(store), store["default_currency_code"], store["default_currency"]["code"]) == (
        ["eur", "jpy"], "eur", "eur")
    r = await update(client, admin_headers, default_currency_code="jpy")
    assert r.status_code == 200 and r.json()["store"]["default_currency"]["name"] == "Japanese Yen"


@pytest.mark.parametrize("body,message", [
    # Medusa's own tests
    ({"default_currency_code": "dkk"}, "Store does not have currency: dkk"),
    ({"currencies": ["eur", "dkk"]},
     "You are not allowed to remove default currency from store currencies without replacing it as well"),
    ({"currencies": ["usd", "xyz"]}, "Currency with code xyz does not exist"),
    ({"default_currency_code": "eur", "currencies": ["usd"]},
     "You are not allowed to remove default currency from store currencies without replacing it as well"),
    ({"currencies": []},
     "You are not allowed to remove default currency from store currencies without replacing it as well"),
    ({"default_sales_channel": "sc_1"}, "property default_sales_channel should not exist"),
    ({"name": None}, "name must be a string"),
    ({"name": ""}, "name should not be empty"),
    ({"name": "x" * 256}, "name must be shorter than or equal to 255 characters"),
    ({"swap_link_template": "x" * 501}, "swap_link_template must be shorter than or equal to 500 characters"),
    ({"currencies": "usd"}, "currencies must be an array"),
    ({"currencies": [1]}, "currencies must be a string"),
    ({"metadata": []}, "metadata must be an object"),
    ({"default_sales_channel_id": None}, "default_sales_channel_id must be a string"),
])
async def test_bad_updates_are_a_400_and_change_nothing(client, admin_headers, body, message):
    r = await update(client, admin_headers, **{"name": "Changed", **body} if "name" not in body else body)
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": message}
    store = await get_store(client, admin_headers)
    assert (store["name"], store["default_currency_code"], codes(store)) == ("Medusa Store", "usd", ["usd"])


async def test_a_currency_a_region_sells_in_cannot_leave_the_store(client, admin_headers, seeded):
    r = await update(client, admin_headers, name="Changed", currencies=["usd", "dkk"])
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed",
                        "message": "Currency eur is used by the region EU: change the region's currency first"}
    store = await get_store(client, admin_headers)
    assert store["name"] == "Medusa Store" and codes(store) == ["eur", "usd"]
    r = await client.delete("/admin/store/currencies/eur", headers=admin_headers)
    assert r.status_code == 400 and r.json()["type"] == "not_allowed"
    # Once the region is gone, it can
    await Region.filter(currency_code="eur").update(deleted_at=(await Store.first()).created_at)
    r = await client.delete("/admin/store/currencies/EUR", headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["store"]) == ["usd"]


async def test_the_default_sales_channel_can_be_another_live_channel(client, admin_headers):
    channel = await SalesChannel.create(name="Wholesale")
    r = await update(client, admin_headers, default_sales_channel_id=channel.id)
    assert r.status_code == 200
    store = r.json()["store"]
    assert store["default_sales_channel_id"] == channel.id and store["default_sales_channel"]["name"] == "Wholesale"
    gone = await SalesChannel.create(name="Gone", deleted_at=channel.created_at)
    for missing in ("sc_missing", gone.id):
        r = await update(client, admin_headers, default_sales_channel_id=missing)
        assert r.status_code == 404
        assert r.json() == {"type": "not_found", "message": f"Sales channel with id: {missing} was not found"}
    assert (await Store.first()).default_sales_channel_id == channel.id


# ---------------------------------------------------------------- store currencies


async def test_add_a_currency_then_adding_it_again_is_a_422(client, admin_headers):
    r = await client.post("/admin/store/currencies/EUR", headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["store"]) == ["eur", "usd"]
    assert set(r.json()["store"]) == STORE_KEYS
    r = await client.post("/admin/store/currencies/eur", headers=admin_headers)
    assert r.status_code == 422
    assert r.json() == {"type": "duplicate_error", "message": "Currency already added", "code": "invalid_request_error"}


async def test_adding_an_unknown_currency_is_a_400(client, admin_headers):
    r = await client.post("/admin/store/currencies/xyz", headers=admin_headers)
    assert r.status_code == 400 and r.json() == {"type": "invalid_data", "message": "Currency xyz not found"}


async def test_remove_a_currency_in_any_case_and_removing_one_not_there_changes_nothing(client, admin_headers):
    await client.post("/admin/store/currencies/dkk", headers=admin_headers)
    r = await client.delete("/admin/store/currencies/DKK", headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["store"]) == ["usd"]
    r = await client.delete("/admin/store/currencies/dkk", headers=admin_headers)
    assert r.status_code == 200 and codes(r.json()["store"]) == ["usd"]


async def test_the_default_currency_cannot_be_removed(client, admin_headers):
    # Medusa v1 removes it and leaves the store with a default it does not sell in
    r = await client.delete("/admin/store/currencies/usd", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "not_allowed", "message":
                        "You are not allowed to remove default currency from store currencies without replacing it "
                        "as well"}
    assert codes(await get_store(client, admin_headers)) == ["usd"]


# ---------------------------------------------------------------- providers


async def test_payment_providers_lists_every_provider_installed_or_not(client, admin_headers):
    await PaymentProvider.create(id="stripe", is_installed=False)
    r = await client.get("/admin/store/payment-providers", headers=admin_headers)
    assert r.status_code == 200
    assert r.json() == {"payment_providers": [
        {"id": "manual", "is_installed": True}, {"id": "stripe", "is_installed": False},
        {"id": "system", "is_installed": True},
    ]}


async def test_tax_providers_leave_out_the_built_in_system_provider(client, admin_headers):
    # The dashboard offers the system provider itself, as "System Tax Provider" (a region's null)
    r = await client.get("/admin/store/tax-providers", headers=admin_headers)
    assert r.status_code == 200 and r.json() == {"tax_providers": []}
    await TaxProvider.create(id="avalara")
    r = await client.get("/admin/store/tax-providers", headers=admin_headers)
    assert r.json() == {"tax_providers": [{"id": "avalara", "is_installed": True}]}
