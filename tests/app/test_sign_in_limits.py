"""Sign-in protection: repeated failures for one email or from one address are refused for a
while (admin and store), order look-ups that find nothing likewise, and messages asked for too;
every refusal is a JSON 429 with `Retry-After`."""

import asyncio
from contextlib import asynccontextmanager

import pytest
from sanic import Request

from app.rate_limits import order_lookup_guard
from app.responses import json
from app.server import create_app
from services.errors import NotFound
from services.passwords import hash_password
from services.users import create_user
from tests.account_factories import forget_rate_limits
from tests.cart_factories import shopper
from tests.conftest import running, settings

STRICT = {
    "sign_in_failures_per_email": 3, "sign_in_failures_per_ip": 6, "order_lookup_failures_per_email": 2,
    "order_lookup_failures_per_ip": 4, "message_requests_per_email": 2, "message_requests_per_ip": 4,
    "rate_limit_window_seconds": 60.0,
}
WRONG = "not-the-password"
_apps = iter(range(1_000_000))


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    await forget_rate_limits()  # failures of other tests came from this address too
    yield
    await forget_rate_limits()


@asynccontextmanager
async def strict_shop(**changes):
    """The shop with small limits, and a look-up route that only finds display id 1 of a@b.co."""
    app = create_app(settings(**{**STRICT, **changes}), manage_orm=False, name=f"limits{next(_apps)}")

    @app.get("/test/lookup")
    async def lookup(request: Request):
        email = request.args.get("email")
        async with order_lookup_guard(request, email):
            if (request.args.get("display_id"), email) != ("1", "a@b.co"):
                raise NotFound("Not Found")
        return json({"order": {"display_id": 1}})

    async with running(app) as client:
        yield client


async def _sign_in(client, email, password, path="/store/auth"):
    return await client.post(path, json={"email": email, "password": password})


def _refused(r) -> bool:
    return (r.status_code == 429 and r.json()["type"] == "too_many_requests"
            and 1 <= int(r.headers["retry-after"]) <= 60)


async def test_repeated_failures_for_one_email_are_refused_even_with_the_right_password(client):
    customer, _ = await shopper(client)
    await shopper(client, "other@example.com")
    async with strict_shop() as shop:
        for _ in range(3):
            assert (await _sign_in(shop, customer.email, WRONG)).status_code == 401
        refused = await _sign_in(shop, customer.email, "jane-secret")
        assert _refused(refused), refused.text
        assert refused.json() == {"type": "too_many_requests", "message": "Too many attempts. Try again later."}
        assert _refused(await _sign_in(shop, customer.email, WRONG, "/store/auth/token"))
        # another account is not locked out
        assert (await _sign_in(shop, "other@example.com", "jane-secret")).status_code == 200


async def test_a_successful_sign_in_forgets_the_earlier_failures(client):
    customer, _ = await shopper(client)
    async with strict_shop() as shop:
        for _ in range(2):
            assert (await _sign_in(shop, customer.email, WRONG)).status_code == 401
        assert (await _sign_in(shop, customer.email, "jane-secret")).status_code == 200
        for _ in range(3):
            assert (await _sign_in(shop, customer.email, WRONG)).status_code == 401


async def test_failures_from_one_address_are_refused_whatever_the_email(client):
    async with strict_shop() as shop:
        for i in range(6):
            assert (await _sign_in(shop, f"guess{i}@example.com", WRONG)).status_code == 401
        assert _refused(await _sign_in(shop, "guess-next@example.com", WRONG))


async def test_admin_sign_in_is_limited_apart_from_the_store(client):
    await create_user("admin@test.com", "supersecret", role="admin")
    from models import Customer

    await Customer.create(email="admin@test.com", has_account=True, password_hash=hash_password("shopper"))
    async with strict_shop() as shop:
        for _ in range(3):
            assert (await _sign_in(shop, "admin@test.com", WRONG, "/admin/auth")).status_code == 401
        assert _refused(await _sign_in(shop, "admin@test.com", "supersecret", "/admin/auth/token"))
        assert (await _sign_in(shop, "admin@test.com", "shopper")).status_code == 200


async def test_the_refusal_lifts_when_the_window_ends(client):
    customer, _ = await shopper(client)
    async with strict_shop(rate_limit_window_seconds=0.5) as shop:
        for _ in range(3):
            await _sign_in(shop, customer.email, WRONG)
        assert (await _sign_in(shop, customer.email, "jane-secret")).status_code == 429
        await asyncio.sleep(0.6)
        assert (await _sign_in(shop, customer.email, "jane-secret")).status_code == 200


async def test_order_look_ups_that_find_nothing_are_limited_and_a_right_guess_then_tells_nothing(client):
    async with strict_shop() as shop:
        found = await shop.get("/test/lookup?display_id=1&email=a@b.co")
        assert found.status_code == 200  # a look-up that finds its order does not count
        for display_id in (2, 3):
            assert (await shop.get(f"/test/lookup?display_id={display_id}&email=a@b.co")).status_code == 404
        assert _refused(await shop.get("/test/lookup?display_id=1&email=a@b.co"))
        # and from one address, whatever the email
        for i in range(2):
            assert (await shop.get(f"/test/lookup?display_id=9&email=x{i}@b.co")).status_code == 404
        assert _refused(await shop.get("/test/lookup?display_id=9&email=fresh@b.co"))


async def test_password_reset_requests_are_limited_per_email_whether_or_not_it_has_an_account(client):
    customer, _ = await shopper(client)
    async with strict_shop() as shop:
        for email in (customer.email, "nobody@example.com"):
            for _ in range(2):
                r = await shop.post("/store/customers/password-token", json={"email": email})
                assert r.status_code == 204
            assert _refused(await shop.post("/store/customers/password-token", json={"email": email}))


async def test_order_claim_requests_are_limited_per_customer(client):
    _, headers = await shopper(client)
    async with strict_shop() as shop:
        for _ in range(2):
            r = await shop.post("/store/orders/batch/customer/token", headers=headers, json={"order_ids": []})
            assert r.status_code == 200
        r = await shop.post("/store/orders/batch/customer/token", headers=headers, json={"order_ids": []})
        assert _refused(r)
