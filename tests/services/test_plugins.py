"""The plugin interface's promises (services/core/plugins.py, services/plugins.py), in one process:
a plugin's settings are checked at load, its routes sit behind the core's gate and error shape,
its subscribers are durable and kept apart, its schedules run once per slot, and its providers
serve the areas the way the built-in ones do. The promises about a whole process (exit codes,
`commerce migrate`, `commerce plugins`) are tests/workers/test_plugins_cli.py's."""

from __future__ import annotations

import asyncio
import logging
import uuid
from types import SimpleNamespace

import pytest

from models import EventReceipt, FulfillmentProvider, Job, TaxProvider
from services import notifications, plugins, setup
from services.events import subscribers
from services.events.bus import emit
from services.events.dispatch import SubscribersFailed, dispatch
from services.plugins import PluginError
from tests.conftest import SETTINGS, configured, running, settings
from tests.fixtures.plugins import punchcard, providers

PUNCHCARD = "tests.fixtures.plugins.punchcard:plugin"
STRAYS = "tests.fixtures.plugins.strays"
PROVIDERS = "tests.fixtures.plugins.providers"
STORE_ORIGIN = SETTINGS.store_cors[0]
EVIL_ORIGIN = "https://evil.example"
SHOPPER = {"email": "points@example.com", "password": "secret-password-1", "first_name": "Pat", "last_name": "Lee"}


def refusal(call, *args, **kwargs) -> str:
    with pytest.raises(PluginError) as refused:
        call(*args, **kwargs)
    return str(refused.value)


# ---------------------------------------------------------------- loading and settings


def test_a_plugin_named_in_plugins_but_not_installed_is_refused(installed_plugins):
    installed_plugins(punchcard=PUNCHCARD)
    assert refusal(plugins.load, settings(plugins=("punchcard", "loyalt"))).startswith(
        "plugin loyalt: named in PLUGINS but not installed")


def test_an_installed_plugin_not_named_in_plugins_stays_off(installed_plugins):
    installed_plugins(punchcard=PUNCHCARD)
    assert [a.name for a in plugins.load(SETTINGS)] == ["stripe", "smtp", "s3"]


def test_a_plugin_reads_its_own_prefixed_settings(installed_plugins):
    installed_plugins(punchcard=PUNCHCARD)
    active = plugins.load(settings(plugins=("punchcard",)), environ={"PUNCHCARD_POINTS_PER_EURO": "5"})
    assert active[-1].name == "punchcard" and active[-1].context.settings.points_per_euro == 5


def test_a_setting_its_model_refuses_is_one_line_naming_the_plugin_and_variable(installed_plugins):
    installed_plugins(punchcard=PUNCHCARD)
    line = refusal(plugins.load, settings(plugins=("punchcard",)), environ={"PUNCHCARD_POINTS_PER_EURO": "many"})
    assert line.startswith("plugin punchcard: setting PUNCHCARD_POINTS_PER_EURO: Input should be a valid integer")
    assert "\n" not in line


def test_an_unknown_prefixed_variable_is_refused_naming_the_known_ones(installed_plugins):
    installed_plugins(punchcard=PUNCHCARD)
    assert refusal(plugins.load, settings(plugins=("punchcard",)), environ={"PUNCHCARD_POINTS_PER_EUROS": "5"}) == (
        "plugin punchcard: unknown setting PUNCHCARD_POINTS_PER_EUROS (it knows PUNCHCARD_POINTS_PER_EURO)")


# ---------------------------------------------------------------- routes


@pytest.fixture
async def punchcard_app(installed_plugins, database):
    """A server with the punchcard plugin on (its own app: the suite's shared one has no plugins)."""
    from app.server import create_app

    installed_plugins(punchcard=PUNCHCARD)
    app = create_app(settings(plugins=("punchcard",)), manage_orm=False, name=f"punchcard_{uuid.uuid4().hex[:8]}")
    async with running(app) as http:
        yield http


async def test_a_plugin_route_that_raises_answers_500_and_the_log_names_plugin_and_request(
        punchcard_app, admin_headers, caplog):
    with caplog.at_level(logging.ERROR, logger="commerce.errors"):
        r = await punchcard_app.post("/admin/punchcard/boom", headers=admin_headers)
    assert r.status_code == 500
    assert r.json() == {"type": "unknown_error", "message": "An unknown error occurred.", "code": "unknown_error"}
    request_id = r.headers["x-request-id"]
    lines = [rec.getMessage() for rec in caplog.records if "unhandled error" in rec.getMessage()]
    assert lines == [f"unhandled error on POST /admin/punchcard/boom in plugin punchcard (request {request_id})"]


async def test_a_domain_error_in_a_plugin_route_answers_its_4xx(punchcard_app, client):
    r = await punchcard_app.post("/store/punchcard/redeem")
    assert (r.status_code, r.json()) == (400, {"type": "not_allowed",
                                               "message": "Points cannot be redeemed on a gift card"})


async def test_a_plugin_admin_route_needs_admin_authentication(punchcard_app, admin_headers):
    assert (await punchcard_app.get("/admin/punchcard/points")).status_code == 401
    r = await punchcard_app.get("/admin/punchcard/points", headers=admin_headers)
    assert (r.status_code, r.json()) == (200, {"points": 3})


async def test_a_plugin_store_route_requiring_a_customer_refuses_anonymous_and_serves_one(punchcard_app, client):
    assert (await punchcard_app.get("/store/punchcard/me")).status_code == 401
    r = await punchcard_app.post("/store/customers", json=SHOPPER)
    customer_id = r.json()["customer"]["id"]
    r = await punchcard_app.get("/store/punchcard/me")  # the session cookie
    assert (r.status_code, r.json()) == (200, {"customer_id": customer_id, "points": 3})


async def test_cors_and_the_cross_site_check_cover_plugin_routes(punchcard_app, client):
    r = await punchcard_app.get("/punchcard/ping", headers={"Origin": STORE_ORIGIN})
    assert r.status_code == 200 and r.json() == {"pong": True}
    r = await punchcard_app.get("/store/punchcard/me", headers={"Origin": STORE_ORIGIN})
    assert r.headers["access-control-allow-origin"] == STORE_ORIGIN
    # Given a shopper signed in by the session cookie
    assert (await punchcard_app.post("/store/customers", json=SHOPPER)).status_code == 200
    # When another site posts to the plugin's route with it, I expect a refusal; from the store, an answer
    r = await punchcard_app.post("/store/punchcard/join", json={}, headers={"Origin": EVIL_ORIGIN})
    assert (r.status_code, r.json()["type"]) == (403, "not_allowed")
    r = await punchcard_app.post("/store/punchcard/join", json={}, headers={"Origin": STORE_ORIGIN})
    assert r.status_code == 200 and r.json()["joined"] is True


async def test_openapi_lists_a_plugins_routes(punchcard_app):
    paths = (await punchcard_app.get("/openapi.json")).json()["paths"]
    assert {"/admin/punchcard/points", "/admin/punchcard/boom", "/store/punchcard/me", "/punchcard/ping"} <= set(paths)
    assert "post" in paths["/store/punchcard/join"]


@pytest.mark.parametrize("name, line", [
    ("outside", "plugin outside: route /elsewhere/thing is outside /admin/, /store/ and /outside/"),
    ("clash", "plugin clash: route GET /store/products is already the core's or another plugin's"),
    ("by_handle", "plugin by_handle: route GET /store/products/<handle:str> is already the core's or another plugin's"),
])
def test_a_route_outside_the_plugins_paths_or_taking_a_core_one_is_refused_at_app_creation(
        installed_plugins, name, line):
    from app.server import create_app

    installed_plugins(**{name: f"{STRAYS}:{name}"})
    assert refusal(create_app, settings(plugins=(name,)), manage_orm=False) == line


# ---------------------------------------------------------------- subscribers


async def test_a_plugin_subscriber_runs_once_per_event_and_a_failed_one_is_retried_alone(installed_plugins):
    installed_plugins(punchcard=PUNCHCARD)
    core_ran: list[str] = []

    async def core_stand_in(event) -> None:
        core_ran.append(event.id)

    with configured(plugins=("punchcard",)):
        # The suite's process registered its subscribers once already: the plugin's are added here
        # through the same wrapping a fresh process's configure applies.
        subscribers.subscribe("test-core", ["product.created"], core_stand_in)
        for register in plugins.subscriber_registrations(plugins.current()):
            register(subscribers.subscribe)
        try:
            event = await emit("product.created", id="prod_points")
            punchcard.failures.append(event.id)
            # When the plugin's subscriber fails the first time
            with pytest.raises(SubscribersFailed) as failed:
                await dispatch(event.id)
            assert failed.value.failed == ["punchcard.count_points"]
            # and the job is retried, then delivered once more (a duplicate message)
            await dispatch(event.id)
            await dispatch(event.id)
        finally:
            subscribers.unsubscribe("test-core")
            subscribers.unsubscribe("punchcard.count_points")
    # I expect each to have handled it once, the core's not again for the plugin's failure
    assert core_ran == [event.id] and punchcard.heard.count(event.id) == 1
    receipts = await EventReceipt.filter(event_id=event.id).values_list("subscriber_id", flat=True)
    assert receipts.count("punchcard.count_points") == 1 and receipts.count("test-core") == 1


def test_a_subscriber_id_without_the_plugins_prefix_is_refused(installed_plugins):
    installed_plugins(unprefixed=f"{STRAYS}:unprefixed")
    active = plugins.load(settings(plugins=("unprefixed",)))
    [register] = plugins.subscriber_registrations(active)
    assert refusal(register, lambda *args: None) == (
        "plugin unprefixed: subscriber id 'count_points' must start with 'unprefixed.'")


# ---------------------------------------------------------------- schedules


async def test_a_plugin_schedule_is_asked_for_once_per_slot_across_two_schedulers(installed_plugins, monkeypatch):
    import workers.scheduler as scheduling
    from workers.broker import load_actors

    installed_plugins(punchcard=PUNCHCARD)
    now = SimpleNamespace(time=lambda: 3600.0 * 500_000 + 7)  # a fixed instant: both ask inside one slot
    monkeypatch.setattr(scheduling, "time", now)
    with configured(plugins=("punchcard",)):
        load_actors()  # the plugin's job module, as every process imports it
        # Given two schedulers sharing the database's turns (two hosts, embedded)
        both = [scheduling.build_scheduler(SETTINGS, scheduling.turns_for(SETTINGS)) for _ in range(2)]
        asks = [s.get_job("punchcard.expire_punchcard_points") for s in both]
        assert all(asks) and str(asks[0].trigger).startswith("interval[1:00:00]")
        # When both reach the same slot, then both the next one
        await asyncio.gather(*(ask.func(SETTINGS) for ask in asks))
        now.time = lambda: 3600.0 * 500_001 + 7
        await asyncio.gather(*(ask.func(SETTINGS) for ask in asks))
    # I expect one job asked for in each slot
    assert await Job.filter(actor_name="expire_punchcard_points").count() == 2


def test_a_bad_cron_line_is_refused_when_the_plugin_loads(installed_plugins):
    installed_plugins(bad_cron=f"{STRAYS}:bad_cron")
    line = refusal(plugins.load, settings(plugins=("bad_cron",)))
    assert line.startswith("plugin bad_cron: schedule of expire_punchcard_points: cron '61 * * * *': ")


def test_a_schedule_on_a_queue_no_worker_takes_is_refused_when_the_plugin_loads(installed_plugins):
    installed_plugins(far_queue=f"{STRAYS}:far_queue")
    line = refusal(plugins.load, settings(plugins=("far_queue",)))
    assert line.startswith("plugin far_queue: schedule of expire_punchcard_points names queue 'nowhere': the workers take ")


# ---------------------------------------------------------------- providers


async def test_a_plugins_fulfillment_and_tax_providers_are_installed_and_a_region_uses_them(installed_plugins):
    from services.regions.regions import create_region, update_region

    installed_plugins(carrier=f"{PROVIDERS}:carrier")
    with configured(plugins=("carrier",)):
        await setup.install_providers()
        region = await create_region(name="Parcels", currency_code="usd", tax_rate=0, payment_providers=[],
                                     fulfillment_providers=["parcel_co"], countries=[])
        region = await update_region(region.id, ("fulfillment_providers",), tax_provider_id="flat_tax")
    assert (await FulfillmentProvider.get(id="parcel_co")).is_installed
    assert (await TaxProvider.get(id="flat_tax")).is_installed
    assert region.tax_provider_id == "flat_tax"
    assert [p.id for p in region.fulfillment_providers] == ["parcel_co"]
    # When the plugin is turned off, I expect its rows kept but shown as not installed
    await setup.install_providers()
    assert not (await FulfillmentProvider.get(id="parcel_co")).is_installed
    assert not (await TaxProvider.get(id="flat_tax")).is_installed


def test_two_plugins_offering_a_notification_provider_need_notification_provider(installed_plugins):
    installed_plugins(mail_a=f"{PROVIDERS}:mail_a", mail_b=f"{PROVIDERS}:mail_b")
    line = refusal(setup.configure, settings(plugins=("mail_a", "mail_b")), answers=None)
    assert line == "plugin mail_b: mail_a, mail_b each offer a notification: name the one to use in NOTIFICATION_PROVIDER"
    with configured(plugins=("mail_a", "mail_b"), notification_provider="mail_b"):
        assert notifications.provider() is providers.mailer_b
    with configured(plugins=("mail_a",)):
        assert notifications.provider() is providers.mailer_a


def test_notification_provider_naming_a_plugin_that_offers_none_is_refused(installed_plugins):
    installed_plugins(mail_a=f"{PROVIDERS}:mail_a")
    assert refusal(setup.configure, settings(plugins=("mail_a",), notification_provider="mail_c"), answers=None) == (
        "plugin mail_c: NOTIFICATION_PROVIDER names it, but it offers no notification (offered: mail_a)")


async def test_a_plugins_search_engine_answers_the_store_search(installed_plugins, client, seeded):
    from models import Product

    product = await Product.filter(deleted_at=None).order_by("-title").first()
    installed_plugins(finder=f"{PROVIDERS}:finder")
    providers.engine.product_id = product.id
    try:
        with configured(plugins=("finder",)):
            r = await client.post("/store/products/search", json={"q": "words the database would not match"})
    finally:
        providers.engine.product_id = None
    assert r.status_code == 200, r.text
    assert [hit["id"] for hit in r.json()["hits"]] == [product.id]
