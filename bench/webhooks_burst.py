"""Webhook burst benchmark (not a test): N orders placed at once through the store API produce N
signed `order.placed` deliveries at a local receiver; prints how long the placing took and how
long until the last delivery arrived.

Against a production-mode deployment (PostgreSQL, Redis, `commerce serve`, `commerce worker`,
`commerce scheduler`) started with WEBHOOKS_ALLOW_PRIVATE=true (the receiver is on loopback) and
the demo seed loaded:

    .venv/bin/python -m bench.webhooks_burst --base http://127.0.0.1:9000 --orders 1000

The carts are made ready first (line, email, address, shipping, manual payment selected); the
burst is their completions, 64 at a time, and the clock runs from the first completion to the
last delivery. Every delivery's signature is checked.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx

from services.webhooks.signing import verify
from tests.webhook_receiver import Receiver

ADDRESS = {"first_name": "Bench", "last_name": "Shopper", "address_1": "1 Main St", "city": "Boston",
           "country_code": "us", "postal_code": "02110"}


async def ready_cart(client: httpx.AsyncClient, region_id: str, variant_id: str, n: int) -> str:
    cart = (await client.post("/store/carts", json={"region_id": region_id})).json()["cart"]
    cid = cart["id"]
    (await client.post(f"/store/carts/{cid}/line-items", json={"variant_id": variant_id, "quantity": 1})).raise_for_status()
    (await client.post(f"/store/carts/{cid}", json={"email": f"bench{n}@example.com",
                                                    "shipping_address": ADDRESS})).raise_for_status()
    option = (await client.get(f"/store/shipping-options/{cid}")).json()["shipping_options"][0]["id"]
    (await client.post(f"/store/carts/{cid}/shipping-methods", json={"option_id": option})).raise_for_status()
    (await client.post(f"/store/carts/{cid}/payment-sessions")).raise_for_status()
    (await client.post(f"/store/carts/{cid}/payment-session", json={"provider_id": "manual"})).raise_for_status()
    return cid


async def bounded(limit: int, coros):
    gate = asyncio.Semaphore(limit)

    async def one(c):
        async with gate:
            return await c

    return await asyncio.gather(*(one(c) for c in coros))


async def main(base: str, orders: int) -> None:
    receiver = await Receiver().start()
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=100)) as client:
        token = (await client.post("/admin/auth/token", json={"email": "admin@test.com", "password": "supersecret"}))
        admin = {"Authorization": f"Bearer {token.json()['access_token']}"}
        r = await client.post("/admin/webhooks", json={"url": receiver.url, "events": ["order.placed"]}, headers=admin)
        r.raise_for_status()
        secret = r.json()["webhook"]["secret"]
        region = next(g for g in (await client.get("/store/regions")).json()["regions"] if g["currency_code"] == "usd")
        products = (await client.get("/store/products", params={"region_id": region["id"], "limit": 5})).json()
        variant = products["products"][0]["variants"][0]["id"]
        started = time.monotonic()
        carts = await bounded(32, [ready_cart(client, region["id"], variant, n) for n in range(orders)])
        print(f"{orders} carts ready in {time.monotonic() - started:.1f} s")
        burst = time.monotonic()
        answers = await bounded(64, [client.post(f"/store/carts/{c}/complete") for c in carts])
        placed = time.monotonic() - burst
        bad = [a.status_code for a in answers if a.status_code != 200 or a.json().get("type") != "order"]
        print(f"{orders - len(bad)} orders placed in {placed:.1f} s ({len(bad)} refused: {sorted(set(bad))})")
        while len(receiver.received) < orders - len(bad) and time.monotonic() - burst < 300:
            await asyncio.sleep(0.1)
        arrived = time.monotonic() - burst
    await receiver.stop()
    ids = {r.headers["webhook-id"] for r in receiver.received}
    valid = sum(verify(secret, r.headers, r.body, int(time.time())) for r in receiver.received)
    print(f"{len(receiver.received)} deliveries ({len(ids)} distinct ids, {valid} valid signatures) "
          f"{arrived:.1f} s after the burst began")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="http://127.0.0.1:9000")
    parser.add_argument("--orders", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(main(args.base, args.orders))
