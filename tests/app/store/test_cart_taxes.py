"""Calculate Cart Taxes, `POST /store/carts/:id/taxes`:
the region's tax provider runs as a job; the request waits for it a bounded time, answers 202
when it has not finished, and a repeat picks the finished job up."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from sanic import Sanic

from app.shapes.carts import cart_json
from models import Job, LineItemTaxLine, Product, Region, TaxProvider, TaxRate
from services.carts.taxes import TAX_ACTOR
from services.carts.view import load_cart_view
from services.core.errors import InvalidData
from services.regions.tax_providers import register_tax_provider, unregister_tax_provider
from tests.cart_factories import add_item, manual_tax_region, new_cart, region_price
from tests.conftest import BROKER, SETTINGS, settings, wait_for
from workers.embedded import start_embedded_worker, stop_embedded_worker
from workers.scheduler import sweep_outbox


@pytest.fixture
async def worker():
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    yield w
    await stop_embedded_worker(w)


@pytest.fixture
def short_wait(monkeypatch):
    """The test server waits 0.2 s for a tax job instead of TAX_JOB_WAIT_SECONDS."""
    app = Sanic.get_app("commerce_test")
    monkeypatch.setattr(app.ctx, "settings", settings(tax_job_wait_seconds=0.2))


@pytest.fixture
async def manual_cart(client, seeded) -> dict:
    """Medusa's test "manual tax calculation w. multiple tax rate overrides": a region taxing 12 %
    by hand, a cap at 100 taxed 25 % and a mug at 50 taxed 20 % by their own rates."""
    region = await manual_tax_region("Manual", 12)
    await region_price("variant_cap_black", "Manual", 100)
    await region_price("variant_mug_white", "Manual", 50)
    for product_id, rate in (("prod_cap", 25), ("prod_mug", 20)):
        tax = await TaxRate.create(region_id=region.id, rate=rate, name=f"{rate} %", code=f"T{rate}")
        await tax.products.add(await Product.get(id=product_id))
    return await new_cart(client, "Manual", {"variant_cap_black": 1, "variant_mug_white": 1})


async def taxes(client, cart: dict):
    return await client.post(f"/store/carts/{cart['id']}/taxes")


async def tax_jobs() -> list[Job]:
    return list(await Job.filter(actor_name=TAX_ACTOR).order_by("created_at"))


async def test_a_region_without_automatic_taxes_shows_them_only_when_calculated(client, manual_cart, worker):
    # Given the manual-tax cart, whose answers show no tax
    assert (manual_cart["tax_total"], manual_cart["total"]) == (0, 150)
    # When its taxes are calculated
    r = await taxes(client, manual_cart)
    # I expect each product's own rate: 25 on the cap, 10 on the mug
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert (cart["subtotal"], cart["tax_total"], cart["total"]) == (150, 35, 185)
    assert [(i["tax_lines"][0]["rate"], i["tax_total"]) for i in cart["items"]] == [(25.0, 25), (20.0, 10)]
    # and nothing stored: the cart reads as before, with no tax line rows
    again = (await client.get(f"/store/carts/{manual_cart['id']}")).json()["cart"]
    assert (again["tax_total"], again["total"]) == (0, 150)
    assert await LineItemTaxLine.all().count() == 0
    # and one job, succeeded
    assert [j.status for j in await tax_jobs()] == ["succeeded"]


async def test_a_region_default_rate_applies_when_no_product_rate_does(client, seeded, worker):
    await manual_tax_region("Manual", 12)
    await region_price("variant_cap_black", "Manual", 100)
    cart = await new_cart(client, "Manual", {"variant_cap_black": 1})
    r = await taxes(client, cart)
    assert (r.json()["cart"]["tax_total"], r.json()["cart"]["total"]) == (12, 112)


async def test_the_job_and_a_cart_read_with_forced_taxes_agree_exactly(client, manual_cart, worker):
    # When the system provider runs as a job, and inline in a cart read with forced taxes
    r = await taxes(client, manual_cart)
    inline = cart_json(await load_cart_view(manual_cart["id"], force_taxes=True))
    # I expect the same answer, byte for byte
    assert r.content == orjson.dumps({"cart": inline})


async def test_a_repeat_reuses_the_finished_job_until_the_cart_changes(client, manual_cart, worker):
    first = await taxes(client, manual_cart)
    second = await taxes(client, manual_cart)
    assert second.content == first.content and len(await tax_jobs()) == 1
    # When the cart changes, its taxes are calculated again, for the new lines
    await add_item(client, manual_cart, "variant_mug_white", 1)
    third = (await taxes(client, manual_cart)).json()["cart"]
    assert (third["tax_total"], third["total"]) == (45, 245) and len(await tax_jobs()) == 2


async def test_without_a_worker_the_request_answers_202_and_a_repeat_picks_the_result_up(
    client, manual_cart, short_wait,
):
    # Given no worker running, when the taxes are asked for
    r = await taxes(client, manual_cart)
    # I expect a 202 the client can act on: when to come back, and the job it waits for
    assert r.status_code == 202, r.text
    assert r.headers["retry-after"] == "1"
    body = r.json()
    [job] = await tax_jobs()
    assert body["job"]["id"] == job.id and body["job"]["status"] in ("pending", "enqueued")
    assert "repeat the request" in body["message"] and "cart" not in body
    # When a worker comes up and runs the job
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    try:
        await wait_for(lambda: Job.filter(id=job.id, status="succeeded").exists())
        # I expect the repeat to answer the cart from that job, without asking for another
        again = await taxes(client, manual_cart)
    finally:
        await stop_embedded_worker(w)
    assert again.status_code == 200 and again.json()["cart"]["tax_total"] == 35
    assert [j.id for j in await tax_jobs()] == [job.id]


async def test_with_the_broker_unreachable_the_job_waits_in_the_outbox(client, manual_cart, short_wait, monkeypatch):
    def refuse(message, *, delay=None):
        raise ConnectionError("broker unreachable")

    # Given a broker that cannot be reached
    monkeypatch.setattr(BROKER, "enqueue", refuse)
    r = await taxes(client, manual_cart)
    assert r.status_code == 202 and r.json()["job"]["status"] == "pending"
    # When it is back, the scheduler's sweep sends the job, and a worker runs it
    monkeypatch.undo()
    w = start_embedded_worker(BROKER, asyncio.get_running_loop(), threads=2, worker_timeout=20)
    try:
        assert await sweep_outbox(SETTINGS) == 1
        await wait_for(lambda: Job.filter(actor_name=TAX_ACTOR, status="succeeded").exists())
        again = await taxes(client, manual_cart)
    finally:
        await stop_embedded_worker(w)
    assert again.status_code == 200 and again.json()["cart"]["total"] == 185
    assert len(await tax_jobs()) == 1


async def test_an_unknown_cart_is_not_found(client, seeded):
    for cart_id in ("cart_missing", "x" * 300):
        r = await client.post(f"/store/carts/{cart_id}/taxes")
        assert (r.status_code, r.json()) == (404, {"type": "not_found", "message": f"Cart with {cart_id} was not found"})
    assert await tax_jobs() == []


async def test_a_region_whose_tax_provider_is_not_installed_is_refused_at_once(client, manual_cart):
    await TaxProvider.create(id="taxjar")
    await Region.filter(name="Manual").update(tax_provider_id="taxjar")
    r = await taxes(client, manual_cart)
    assert (r.status_code, r.json()) == (404, {"type": "not_found", "message": "Could not find a tax provider with id: taxjar"})
    assert await tax_jobs() == []


class RefusingProvider:
    id = "picky"

    async def tax_lines(self, cart):
        raise InvalidData("The shipping address is needed to calculate taxes")


class BrokenProvider:
    id = "broken"

    async def tax_lines(self, cart):
        raise ConnectionError("tax service down")


@pytest.mark.parametrize("provider,status,body", [
    (RefusingProvider(), 400, {"type": "invalid_data", "message": "The shipping address is needed to calculate taxes"}),
    (BrokenProvider(), 500, {"type": "unexpected_state",
                             "message": "The taxes of the cart could not be calculated; repeat the request to try again"}),
])
async def test_a_providers_refusal_or_failure_is_answered_as_json(client, manual_cart, worker, provider, status, body):
    # Given a region whose provider refuses the cart, or keeps failing (retried, then failed)
    register_tax_provider(provider)
    try:
        await TaxProvider.create(id=provider.id)
        await Region.filter(name="Manual").update(tax_provider_id=provider.id)
        r = await taxes(client, manual_cart)
    finally:
        unregister_tax_provider(provider.id)
    # I expect a JSON error, the refusal as the provider's kind
    assert (r.status_code, r.json()) == (status, body)
