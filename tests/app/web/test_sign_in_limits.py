"""Sign-in protection: repeated failures for one email from one address, or from one address,
are refused for a while (admin and store) without locking the owner out from elsewhere; order
look-ups that find nothing likewise; messages asked for, email look-ups and sign-ups too; every
refusal is a JSON 429 with `Retry-After`."""

import asyncio
import ipaddress
import time
from contextlib import asynccontextmanager

import pytest
from sanic import Request

from app.web.rate_limits import order_lookup_guard
from app.web.responses import json
from app.server import create_app
from services.core.errors import NotFound
from services.core.passwords import hash_password
from services.users.users import create_user
from tests.account_factories import forget_rate_limits
from tests.cart_factories import shopper
from tests.conftest import PATIENCE, running, settings

STRICT = {
    "sign_in_failures_per_email_and_ip": 3, "sign_in_failures_per_email": 100, "sign_in_failures_per_ip": 6,
    "order_lookup_failures_per_email": 2, "order_lookup_failures_per_ip": 4, "message_requests_per_email": 2, "message_requests_per_ip": 4,
    "email_lookups_per_ip": 3, "sign_ups_per_ip": 2, "rate_limit_window_seconds": 60.0,
}
WRONG = "not-the-password"
LOCAL_PROXY = (ipaddress.ip_network("127.0.0.1"),)
_apps = iter(range(1_000_000))


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    await forget_rate_limits()  # failures of other tests came from this address too
    yield
    await forget_rate_limits()


@asynccontextmanager
async def strict_shop(defaults: bool = False, **changes):
    """The shop with small limits (or the default ones), and a look-up route that only finds
    display id 1 of a@b.co. It sits behind a proxy on 127.0.0.1 (the test client's address), whose
    `X-Forwarded-For` names the client."""
    app = create_app(settings(**{**({} if defaults else STRICT), "trusted_proxies": LOCAL_PROXY, **changes}),
                     manage_orm=False, name=f"limits{next(_apps)}")

    @app.get("/test/lookup")
    async def lookup(request: Request):
        email = request.args.get("email")
        async with order_lookup_guard(request, email):
            if (request.args.get("display_id"), email) != ("1", "a@b.co"):
                raise NotFound("Not Found")
        return json({"order": {"display_id": 1}})

    async with running(app) as client:
        yield client


async def _sign_in(client, email, password, path="/store/auth", ip="10.0.0.1"):
    return await client.post(path, json={"email": email, "password": password}, headers={"x-forwarded-for": ip})


def _refused(r, window: int = 60) -> bool:
    return (r.status_code == 429 and r.json()["type"] == "too_many_requests"
            and 1 <= int(r.headers["retry-after"]) <= window)


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
    # A window long enough for the sign-ins below on a busy machine, short enough to wait out
    async with strict_shop(rate_limit_window_seconds=5) as shop:
        for _ in range(3):
            await _sign_in(shop, customer.email, WRONG)
        assert (await _sign_in(shop, customer.email, "jane-secret")).status_code == 429
        # I expect the right password to work again once the window has passed
        waited = time.monotonic()
        while (answer := await _sign_in(shop, customer.email, "jane-secret")).status_code == 429:
            assert time.monotonic() - waited < PATIENCE, "the refusal never lifted"
            await asyncio.sleep(0.5)
        assert answer.status_code == 200


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


@pytest.mark.parametrize("path", ["/store/auth", "/admin/auth"])
async def test_failures_from_one_address_do_not_lock_the_owner_out_from_another(client, path):
    await shopper(client)
    await create_user("jane@example.com", "jane-secret", role="admin")
    async with strict_shop(defaults=True) as shop:
        for _ in range(10):
            assert (await _sign_in(shop, "jane@example.com", WRONG, path, ip="10.0.0.66")).status_code == 401
        assert (await _sign_in(shop, "jane@example.com", "jane-secret", path, ip="10.0.0.7")).status_code == 200
        # the failing address stays refused for that email, even with the right password
        assert _refused(await _sign_in(shop, "jane@example.com", "jane-secret", path, ip="10.0.0.66"), 900)
        assert _refused(await _sign_in(shop, "jane@example.com", WRONG, path, ip="10.0.0.66"), 900)


async def test_past_the_per_email_ceiling_only_addresses_that_failed_for_the_email_are_refused(client):
    customer, _ = await shopper(client)
    await forget_rate_limits()  # the shopper's sign-in started counters with the shared server's window
    async with strict_shop(sign_in_failures_per_email=3) as shop:
        for i in range(3):  # a guess from each of three addresses
            assert (await _sign_in(shop, customer.email, WRONG, ip=f"10.0.1.{i}")).status_code == 401
        assert _refused(await _sign_in(shop, customer.email, "jane-secret", ip="10.0.1.0"))
        assert (await _sign_in(shop, customer.email, WRONG, ip="10.0.1.9")).status_code == 401
        assert _refused(await _sign_in(shop, customer.email, WRONG, ip="10.0.1.9"))  # one guess per address
        assert (await _sign_in(shop, customer.email, "jane-secret", ip="10.0.2.1")).status_code == 200


async def test_email_look_ups_are_limited_per_address(client):
    await shopper(client)
    async with strict_shop() as shop:
        for email in ("jane@example.com", "x@example.com", "y@example.com"):
            r = await shop.get(f"/store/auth/{email}", headers={"x-forwarded-for": "10.0.3.1"})
            assert r.status_code == 200
        assert _refused(await shop.get("/store/auth/jane@example.com", headers={"x-forwarded-for": "10.0.3.1"}))
        r = await shop.get("/store/auth/jane@example.com", headers={"x-forwarded-for": "10.0.3.2"})
        assert r.status_code == 200 and r.json() == {"exists": True}


async def test_sign_ups_are_limited_per_address(client):
    from models import Customer

    async with strict_shop() as shop:
        for i in range(2):
            r = await shop.post("/store/customers", headers={"x-forwarded-for": "10.0.4.1"},
                                json={"email": f"new{i}@example.com", "password": "a-secret"})
            assert r.status_code == 200, r.text
        r = await shop.post("/store/customers", headers={"x-forwarded-for": "10.0.4.1"},
                            json={"email": "new9@example.com", "password": "a-secret"})
        assert _refused(r)
        assert not await Customer.filter(email="new9@example.com").exists()
        r = await shop.post("/store/customers", headers={"x-forwarded-for": "10.0.4.2"},
                            json={"email": "new9@example.com", "password": "a-secret"})
        assert r.status_code == 200


@pytest.mark.parametrize("trusted", [(), (ipaddress.ip_network("10.0.0.0/8"),)], ids=["no-proxy", "other-proxy"])
async def test_a_peer_that_is_no_trusted_proxy_cannot_escape_a_limit_by_naming_other_addresses(client, trusted):
    from models import Customer

    async with strict_shop(trusted_proxies=trusted) as shop:
        for i in range(2):
            r = await shop.post("/store/customers", headers={"x-forwarded-for": f"10.0.5.{i}"},
                                json={"email": f"spoof{i}@example.com", "password": "a-secret"})
            assert r.status_code == 200, r.text
        r = await shop.post("/store/customers", headers={"x-forwarded-for": "10.0.5.9", "forwarded": "for=10.0.5.8"},
                            json={"email": "spoof9@example.com", "password": "a-secret"})
        assert _refused(r)
        assert not await Customer.filter(email="spoof9@example.com").exists()


async def test_by_default_an_office_behind_one_address_signs_up_and_looks_up_emails_freely(client):
    # Given the default limits and a shop whose customers share one address (an office, a carrier's NAT)
    async with strict_shop(defaults=True) as shop:
        office = {"x-forwarded-for": "198.51.100.7"}
        # When 31 of them look up their email and 11 sign up within the window
        for i in range(31):
            assert (await shop.get(f"/store/auth/colleague{i}@example.com", headers=office)).status_code == 200
        for i in range(11):
            r = await shop.post("/store/customers", headers=office,
                                json={"email": f"colleague{i}@example.com", "password": "a-secret"})
            # I expect none of them refused (the former limits, 30 and 10, refused the last)
            assert r.status_code == 200, r.text
