"""Checkout load driver (not a test): N concurrent shoppers, each running whole checkouts against
any server that speaks the Medusa v1 store API and holds the demo seed (region "NA" or the first
region in `--currency`, products with prices, a shipping option and the `manual` payment
provider). Each checkout:

    create a cart → add 3 items → set email and shipping address → list shipping options and pick
    the first → create payment sessions → select `manual` → complete

Reports checkouts per second, p50/p99 of each step and of the whole checkout, and errors (a
checkout with any failed step counts once). Nothing here is specific to this server:

    .venv/bin/python -m bench.checkout_driver --base http://127.0.0.1:9000 --shoppers 16 --seconds 30

With `--pids` (the server's, worker's and scheduler's process ids: each with its descendants) and
`--pg-database` (PostgreSQL backends whose process title names that database, on this host) it also
reports the CPU-milliseconds each spent per checkout, from /proc (Linux), and the load average.

The shoppers share one aiohttp session (`--client aiohttp`, the default) rather than httpx's
client (`--client httpx`): both send the same requests with one shared cookie jar, but httpx took
about 2.4 ms of this process's CPU a request, so at 22 checkouts/s (about 240 requests a second)
the driver used 0.58 of this 2-core machine's cores, taken from the server it measures; aiohttp
took about 0.26 ms a request (0.11 of a core at 40 checkouts/s).
Medusa, single-threaded, is not limited by it either way. The in-process profiles
(`bench.checkout_profile`, `bench.worker_profile`) drive `checkout` with httpx's in-process client.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import statistics
import time
from collections import defaultdict

import aiohttp
import httpx
import orjson

ADDRESS = {"first_name": "Load", "last_name": "Shopper", "address_1": "1 Main St", "city": "Boston",
           "country_code": "us", "postal_code": "02110"}
STEPS = ("create_cart", "add_items", "address_email", "shipping", "payment_sessions", "select_session",
         "complete", "checkout")


class _Answer:
    """What `checkout` reads of an answer, as httpx's Response names it."""

    __slots__ = ("status_code", "_body")

    def __init__(self, status_code: int, body: bytes):
        self.status_code, self._body = status_code, body

    @property
    def text(self) -> str:
        return self._body.decode(errors="replace")

    def json(self):
        return orjson.loads(self._body)


class LightClient:
    """aiohttp behind the calls a checkout makes (`get`, `post` with a JSON body), answering as
    httpx's AsyncClient does; one session, one cookie jar (cookies of an IP host kept, as httpx does)."""

    def __init__(self, base: str, connections: int):
        self.base = base.rstrip("/")
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections), timeout=aiohttp.ClientTimeout(total=60),
            cookie_jar=aiohttp.CookieJar(unsafe=True), json_serialize=lambda v: orjson.dumps(v).decode())

    async def _call(self, method: str, path: str, **kw) -> _Answer:
        async with self.session.request(method, self.base + path, **kw) as response:
            return _Answer(response.status, await response.read())

    def get(self, path: str, params: dict | None = None):
        return self._call("GET", path, params={k: str(v) for k, v in (params or {}).items()})

    def post(self, path: str, json=None):
        return self._call("POST", path, json=json)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.session.close()


def _client(kind: str, base: str, connections: int):
    if kind == "httpx":
        return httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=connections))
    return LightClient(base, connections)


CLIENT_ERRORS = (httpx.HTTPError, aiohttp.ClientError, asyncio.TimeoutError)


class StepFailed(Exception):
    def __init__(self, step: str, why: str):
        super().__init__(f"{step}: {why}")
        self.key = f"{step} {why.split()[0]}" if why else step  # e.g. "complete 409": counted by step and status


def _ok(response, step: str):
    if response.status_code != 200:
        raise StepFailed(step, f"{response.status_code} {response.text[:200]}")
    return response


async def _catalogue(client, currency: str) -> tuple[str, str, list[str]]:
    regions = (await client.get("/store/regions")).json()["regions"]
    region = next(r for r in regions if r["currency_code"] == currency)
    country = region["countries"][0]["iso_2"]
    products = (await client.get("/store/products", params={"region_id": region["id"], "limit": 20})).json()
    variants = [v["id"] for p in products["products"] if not p.get("is_giftcard") for v in p["variants"]
                if any(price["currency_code"] == currency for price in v.get("prices", []))]
    if len(variants) < 3:
        raise SystemExit(f"the store needs at least 3 variants priced in {currency}")
    return region["id"], country, variants


async def checkout(client, region_id: str, country: str, variants: list[str], n: int,
                   timings: dict[str, list[float]]) -> None:
    started = time.perf_counter()

    async def step(name, coro):
        t = time.perf_counter()
        response = _ok(await coro, name)
        timings[name].append(time.perf_counter() - t)
        return response

    cart = (await step("create_cart", client.post("/store/carts", json={"region_id": region_id}))).json()["cart"]
    cid = cart["id"]
    t = time.perf_counter()
    for i in range(3):
        _ok(await client.post(f"/store/carts/{cid}/line-items",
                              json={"variant_id": variants[(n + i) % len(variants)], "quantity": 1}), "add_items")
    timings["add_items"].append(time.perf_counter() - t)
    await step("address_email", client.post(f"/store/carts/{cid}", json={
        "email": f"load{n}@example.com", "shipping_address": {**ADDRESS, "country_code": country}}))
    t = time.perf_counter()
    options = _ok(await client.get(f"/store/shipping-options/{cid}"), "shipping").json()["shipping_options"]
    if not options:
        raise StepFailed("shipping", "none-offered")
    _ok(await client.post(f"/store/carts/{cid}/shipping-methods", json={"option_id": options[0]["id"]}), "shipping")
    timings["shipping"].append(time.perf_counter() - t)
    await step("payment_sessions", client.post(f"/store/carts/{cid}/payment-sessions"))
    await step("select_session", client.post(f"/store/carts/{cid}/payment-session", json={"provider_id": "manual"}))
    done = await step("complete", client.post(f"/store/carts/{cid}/complete"))
    if done.json().get("type") != "order":
        raise StepFailed("complete", f"type={done.json().get('type')}")
    timings["checkout"].append(time.perf_counter() - started)


def _descendants(roots: list[int]) -> set[int]:
    parents = {}
    for line in subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout.splitlines():
        pid, ppid = map(int, line.split())
        parents[pid] = ppid
    found, grew = set(roots), True
    while grew:
        grew = False
        for pid, ppid in parents.items():
            if pid not in found and ppid in found:
                found.add(pid)
                grew = True
    return found


def _pg_backends(database: str) -> set[int]:
    out = subprocess.run(["ps", "-u", "postgres", "-o", "pid=,args="], capture_output=True, text=True).stdout
    return {int(line.split()[0]) for line in out.splitlines() if f" {database} " in f" {line} "}


def _pg_backends_serving(pids: set[int], port: int = 5432) -> set[int]:
    """The PostgreSQL backends (on this host, at `port`) whose clients are the processes `pids`: a
    database's figure without other servers' work on it (read from `ss`, which needs to see every
    process's sockets)."""
    def sockets(side: str) -> list[tuple[str, str, int]]:
        out = subprocess.run(["ss", "-tnpH", "state", "established", f"( {side} = :{port} )"],
                             capture_output=True, text=True).stdout
        found = []
        for line in out.splitlines():
            fields = line.split()
            for pid in re.findall(r"pid=(\d+)", line):
                found.append((fields[2], fields[3], int(pid)))  # local, peer address
        return found

    ours = {local for local, _, pid in sockets("dport") if pid in pids}
    return {pid for _, peer, pid in sockets("sport") if peer in ours}


def _ticks(pids: set[int]) -> dict[int, int]:
    ticks = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
        except (OSError, IndexError):
            pass
    return ticks


def _cpu_ms(before: dict[int, int], after: dict[int, int]) -> float:
    """CPU-ms used by the processes alive at the end (0 at the start for one started meanwhile)."""
    return sum(t - before.get(pid, 0) for pid, t in after.items()) * 1000 / os.sysconf("SC_CLK_TCK")


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def main(base: str, shoppers: int, seconds: float, currency: str, pids: list[int] | None = None,
               pg_database: str | None = None, client_kind: str = "aiohttp") -> None:
    async with _client(client_kind, base, shoppers * 2) as client:
        region_id, country, variants = await _catalogue(client, currency)
        timings: dict[str, list[float]] = defaultdict(list)
        errors: dict[str, int] = defaultdict(int)
        counter = iter(range(10**9))
        deadline = time.perf_counter() + seconds

        async def shopper():
            while time.perf_counter() < deadline:
                try:
                    await checkout(client, region_id, country, variants, next(counter), timings)
                except StepFailed as e:
                    errors[e.key] += 1
                except CLIENT_ERRORS as e:
                    errors[type(e).__name__] += 1

        trees = [_descendants([pid]) for pid in pids or []]
        pg = _pg_backends(pg_database) if pg_database else set()
        s0, p0 = [_ticks(tree) for tree in trees], _ticks(pg)
        began = time.perf_counter()
        await asyncio.gather(*(shopper() for _ in range(shoppers)))
        elapsed = time.perf_counter() - began
        s1 = [_ticks(_descendants([pid])) for pid in pids or []]
        p1 = _ticks(_pg_backends(pg_database)) if pg_database else {}
    done = len(timings["checkout"])
    print(f"{base}: {shoppers} shoppers for {elapsed:.1f} s: {done} checkouts, {done / elapsed:.1f} checkouts/s, "
          f"{sum(errors.values())} failed {dict(errors) or ''}")
    if pids or pg_database:
        per = max(done, 1)
        each = [_cpu_ms(before, after) / per for before, after in zip(s0, s1)]
        split = f" ({' + '.join(f'{ms:.1f}' for ms in each)})" if len(each) > 1 else ""
        print(f"CPU-ms per checkout: server {sum(each):.1f}{split}, postgres {_cpu_ms(p0, p1) / per:.1f}; "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| step | n | p50 ms | p99 ms | mean ms |")
    print("|---|---|---|---|---|")
    for name in STEPS:
        values = timings[name]
        mean = statistics.fmean(values) * 1000 if values else float("nan")
        print(f"| {name} | {len(values)} | {_quantile(values, 0.5):.1f} | {_quantile(values, 0.99):.1f} | {mean:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="http://127.0.0.1:9000")
    parser.add_argument("--shoppers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--currency", default="usd")
    parser.add_argument("--pids", type=int, nargs="*", help="server, worker, scheduler pids (with descendants)")
    parser.add_argument("--pg-database", help="count the CPU of the PostgreSQL backends of this database")
    parser.add_argument("--client", choices=("aiohttp", "httpx"), default="aiohttp",
                        help="the HTTP client (see the module's note)")
    args = parser.parse_args()
    asyncio.run(main(args.base, args.shoppers, args.seconds, args.currency, args.pids, args.pg_database,
                     args.client))
