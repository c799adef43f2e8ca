"""How fast each page's read answers (not a test): every list and page the admin dashboard and a
storefront read, p50/p99 ms with a few concurrent clients, against any server by base URL; made for
comparing a small shop with a big one (`python -m bench.big_shop`) before and after a change.

    .venv/bin/python -m bench.page_speed --base http://127.0.0.1:9081 --clients 8 --requests 160

Each workload is sent `--requests` times by `--clients` clients at once (each taking the next
request as it finishes one), after one round of warm-up; a workload whose answers are not all 2xx
says so. The rows it reads (an order, a customer, a product, a category, a collection) are the
newest, found through the API first; the storefront's own orders are read by the big shop's
shopper (bench/big_shop.py), else that workload is skipped. `--only order` runs the workloads
whose names contain a word. `--cart-lines 100` also reads a cart of 100 lines, which it makes first
through the storefront (a write: for a shop of one's own, not a shared one).

Side by side with another server (Medusa v1 on the same shop, `bench/medusa_v1/setup.sh`):
`--against URL --rounds 3` measures each workload on both servers, alternating which goes first
round by round, and prints the medians of the rounds' p50 and p99 and the ratio of the p50s. Each
server's rows are found through its own API; a workload one of them cannot form is skipped.

With `--pids` (the server's process ids, each with its descendants) and `--pg-database`
(PostgreSQL backends whose process title names that database, on this host; with `--pids`, only
those serving the server's connections), a single server's table also shows the CPU-ms a request
cost the server and PostgreSQL, warm-up excluded: the figure that a busy machine moves least.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode

import aiohttp
import httpx

from bench.checkout_driver import _cpu_ms, _descendants, _pg_backends, _pg_backends_serving, _ticks

from bench.big_cart import _cart
from bench.dashboard_reads import ORDER_LIST, ORDER_PAGE_EXPAND

SHOPPER = ("david.smith3@example.com", "supersecret")  # bench/big_shop.py's customer number 3


def _get(path: str, **params) -> tuple[str, str, None]:
    return "GET", f"{path}?{urlencode(params, doseq=True)}" if params else path, None


async def workloads(session: aiohttp.ClientSession) -> dict[str, tuple[str, str, dict | None]]:
    async def first(path: str, key: str, **params) -> dict | None:
        async with session.get(path, params={"limit": 1, **params}) as answer:
            rows = (await answer.json()).get(key) if answer.status == 200 else None
        return rows[0] if rows else None

    order = await first("/admin/orders", "orders", expand="customer", fields="id,display_id,email,customer_id")
    product = await first("/admin/products", "products")
    if order is None or product is None:
        raise SystemExit("the store has no order or no product: fill it first (python -m bench.big_shop)")
    email = order["email"]
    fragment = email.split("@")[0][2:9]  # "na.smit" of "anna.smith42@…": the middle of a name
    last_name = (order.get("customer") or {}).get("last_name") or "Smith"
    skus = [v["sku"] for v in product.get("variants") or [] if v.get("sku")] or [product["title"]]
    sku_fragment = skus[0][1:].lower()  # "ig-100000" of "BIG-100000": the middle, in the other case
    category = await first("/store/product-categories", "product_categories")
    collection = await first("/store/collections", "collections")
    channel = await first("/admin/sales-channels", "sales_channels")
    price_list = await _fullest_price_list(session)
    customer_id = order.get("customer_id")
    now = datetime.now(timezone.utc)
    month = {"created_at[gt]": (now - timedelta(days=40)).isoformat(), "created_at[lt]": (now - timedelta(days=10)).isoformat()}
    orders = {**ORDER_LIST}
    out = {
        "order list (dashboard default)": _get("/admin/orders", **orders),
        "order list, status pending": _get("/admin/orders", **orders, **{"status[]": "pending"}),
        "order list, payment captured": _get("/admin/orders", **orders, **{"payment_status[]": "captured"}),
        "order list, fulfilment not_fulfilled": _get("/admin/orders", **orders, **{"fulfillment_status[]": "not_fulfilled"}),
        "order list, status archived": _get("/admin/orders", **orders, **{"status[]": "archived"}),
        "order list, q e-mail fragment": _get("/admin/orders", **orders, q=fragment),
        "order list, q display id": _get("/admin/orders", **orders, q=str(order["display_id"])),
        "order list, q last name": _get("/admin/orders", **orders, q=last_name),
        "order list, created 40-10 days ago": _get("/admin/orders", **orders, **month),
        "order list, page 2,000": _get("/admin/orders", **{**orders, "offset": 15 * 1999}),
        "order list, order display_id": _get("/admin/orders", **orders, order="display_id"),
        "order list, order -display_id": _get("/admin/orders", **orders, order="-display_id"),
        "order list, order email": _get("/admin/orders", **orders, order="email"),
        "order list, order -updated_at": _get("/admin/orders", **orders, order="-updated_at"),
        "order list, order status": _get("/admin/orders", **orders, order="status"),
        "order page": _get(f"/admin/orders/{order['id']}", expand=ORDER_PAGE_EXPAND),
        "customer list": _get("/admin/customers", limit=15, offset=0),
        "customer list, q e-mail fragment": _get("/admin/customers", limit=15, offset=0, q=fragment),
        "customer list, q last name": _get("/admin/customers", limit=15, offset=0, q=last_name),
        "customer page": _get(f"/admin/customers/{customer_id}", expand="orders,shipping_addresses"),
        "customer page's orders": _get("/admin/orders", customer_id=customer_id, limit=10, offset=0),
        "product list": _get("/admin/products", limit=15, offset=0),
        "product list, q": _get("/admin/products", limit=15, offset=0, q="hoodie"),
        "product list, q SKU fragment": _get("/admin/products", limit=15, offset=0, q=sku_fragment),
        "product list, q description's end": _get("/admin/products", limit=15, offset=0,
                                                  q=(product.get("description") or product["title"])[-12:]),
        "product list, q in every description": _get("/admin/products", limit=15, offset=0, q="product"),
        "product list, q two letters": _get("/admin/products", limit=15, offset=0, q="ho"),  # no trigram in it
        "product page": _get(f"/admin/products/{product['id']}"),
        "discount list": _get("/admin/discounts", limit=15, offset=0),
        "gift-card list": _get("/admin/gift-cards", limit=15, offset=0),
        "draft-order list": _get("/admin/draft-orders", limit=15, offset=0),
        "return list": _get("/admin/returns", limit=15, offset=0),
        "swap list": _get("/admin/swaps", limit=15, offset=0),
        "price-list page": price_list and _get(f"/admin/price-lists/{price_list}"),
        "price-list page's products": price_list and _get(f"/admin/price-lists/{price_list}/products",
                                                          limit=15, offset=0),
        "store products by category": category and _get("/store/products", limit=12, **{"category_id[]": category["id"]}),
        "store products by collection": collection and _get("/store/products", limit=12, **{"collection_id[]": collection["id"]}),
        "store products by channel": channel and _get("/store/products", limit=12,
                                                      **{"sales_channel_id[]": channel["id"]}),
        "store product by handle": _get("/store/products", handle=product["handle"]),
        "store product search": ("POST", "/store/products/search", {"q": "hoodie", "limit": 12}),
        "store customer's orders": _get("/store/customers/me/orders", limit=10, offset=0),
    }
    if not customer_id:
        del out["customer page"], out["customer page's orders"]
    return {name: load for name, load in out.items() if load}


async def _fullest_price_list(session: aiohttp.ClientSession) -> str | None:
    """The id of the price list (of the newest 20) with the most products, for its page."""
    async with session.get("/admin/price-lists", params={"limit": 20, "fields": "id"}) as answer:
        lists = (await answer.json()).get("price_lists") or [] if answer.status == 200 else []
    best, most = None, -1
    for price_list in lists:
        async with session.get(f"/admin/price-lists/{price_list['id']}/products", params={"limit": 1}) as answer:
            count = (await answer.json()).get("count", 0) if answer.status == 200 else 0
        if count > most:
            best, most = price_list["id"], count
    return best


async def _sign_in(base: str, args) -> tuple[aiohttp.ClientSession, aiohttp.ClientSession | None]:
    admin = aiohttp.ClientSession(base_url=base)
    async with admin.post("/admin/auth/token", json={"email": args.email, "password": args.password}) as answer:
        token = (await answer.json())["access_token"]
    admin.headers["Authorization"] = f"Bearer {token}"
    # The shopper signs in for a token (POST /store/auth/token): a production server's session
    # cookie is Secure, which a client on plain HTTP does not send back.
    shopper = aiohttp.ClientSession(base_url=base)
    async with shopper.post("/store/auth/token", json={"email": SHOPPER[0], "password": SHOPPER[1]}) as answer:
        if answer.status == 200:
            shopper.headers["Authorization"] = f"Bearer {(await answer.json())['access_token']}"
        else:
            await shopper.close()
            shopper = None
    return admin, shopper


async def measure(session: aiohttp.ClientSession, method: str, path: str, body, requests: int, clients: int,
                  args=None) -> dict:
    """p50 and p99 ms of `requests` sent by `clients` at once (and, with `args.pids` or
    `args.pg_database`, the CPU-ms a request cost the server and PostgreSQL)."""
    times: list[float] = []
    failures: list[str] = []

    async def client(turns: list[int]) -> None:
        while turns:
            turns.pop()
            started = time.perf_counter()
            async with session.request(method, path, json=body) as answer:
                text = await answer.read()
                if answer.status >= 300:
                    failures.append(f"{answer.status} {text[:200]!r}")
            times.append((time.perf_counter() - started) * 1000)

    warm = list(range(clients))
    await asyncio.gather(*(client(warm) for _ in range(clients)))
    times.clear()
    turns = list(range(requests))
    server = _descendants(args.pids) if args and args.pids else set()
    postgres = _pg_backends(args.pg_database) if args and args.pg_database else set()
    if server:  # only the backends serving this server, not those of others on the same database
        postgres &= _pg_backends_serving(server)
    watched = {"server": server, "postgres": postgres}
    before = {name: _ticks(pids) for name, pids in watched.items()}
    await asyncio.gather(*(client(turns) for _ in range(clients)))
    cpu = {f"{name}_cpu_ms": _cpu_ms(before[name], _ticks(pids)) / requests for name, pids in watched.items() if pids}
    times.sort()
    return {"p50": statistics.median(times), "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
            "failures": failures, **cpu}


def _new_cart(base: str, lines: int) -> str:
    """A new cart of `lines` lines (a write: for a shop of one's own), as bench/big_cart.py makes it."""
    with httpx.Client(base_url=base, timeout=60) as client:
        return _cart(client, "usd", lines)


class Server:
    """One server's signed-in sessions and its workloads."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.admin: aiohttp.ClientSession | None = None
        self.shopper: aiohttp.ClientSession | None = None
        self.loads: dict = {}

    async def open(self, args) -> "Server":
        self.admin, self.shopper = await _sign_in(self.base, args)
        self.loads = await workloads(self.admin)
        if getattr(args, "cart_lines", None):
            cart_id = await asyncio.to_thread(_new_cart, self.base, args.cart_lines)
            self.loads[f"store cart of {args.cart_lines} lines"] = _get(f"/store/carts/{cart_id}")
        return self

    def session(self, name: str) -> aiohttp.ClientSession | None:
        return self.shopper if name.startswith("store customer") else self.admin

    async def close(self) -> None:
        for session in (self.admin, self.shopper):
            if session is not None:
                await session.close()


def _note(result: dict) -> str:
    return f" ({len(result['failures'])} failed: {result['failures'][0]})" if result["failures"] else ""


async def run(args) -> None:
    servers = [Server(args.base)] + ([Server(args.against)] if args.against else [])
    try:
        for server in servers:
            await server.open(args)
        names = [name for name in servers[0].loads
                 if all(name in s.loads for s in servers) and (not args.only or any(w in name for w in args.only))]
        if len(servers) == 1:
            await _alone(servers[0], names, args)
        else:
            await _side_by_side(servers, names, args)
    finally:
        for server in servers:
            await server.close()


async def _alone(server: Server, names: list[str], args) -> None:
    cpu = args.pids or args.pg_database
    print(f"| page | p50 ms | p99 ms |{' server CPU-ms | PostgreSQL CPU-ms |' if cpu else ''}"
          f"  ({args.clients} clients, {args.requests} requests each)\n|---|---|---|{'---|---|' if cpu else ''}")
    for name in names:
        session = server.session(name)
        if session is None:
            print(f"| {name} | (no shopper to sign in) | |")
            continue
        method, path, body = server.loads[name]
        result = await measure(session, method, path, body, args.requests, args.clients, args)
        used = "".join(f" {result.get(k, float('nan')):.1f} |" for k in ("server_cpu_ms", "postgres_cpu_ms")) if cpu else ""
        print(f"| {name} | {result['p50']:.1f} | {result['p99']:.1f} |{used}{_note(result)}", flush=True)


async def _side_by_side(servers: list[Server], names: list[str], args) -> None:
    ours, theirs = servers
    results: dict[str, dict[str, list[dict]]] = {name: {ours.base: [], theirs.base: []} for name in names}
    for round_ in range(args.rounds):
        order = servers if round_ % 2 == 0 else servers[::-1]
        for name in names:
            for server in order:
                session = server.session(name)
                if session is None:
                    continue
                method, path, body = server.loads[name]
                result = await measure(session, method, path, body, args.requests, args.clients)
                results[name][server.base].append(result)
                print(f"round {round_ + 1} {server.base} {name}: {result['p50']:.1f} / {result['p99']:.1f}"
                      f"{_note(result)}", flush=True)
    print(f"\n| page | {ours.base} p50 / p99 ms | {theirs.base} p50 / p99 ms | p50 ratio | p99 ratio |"
          f"  (medians of {args.rounds} rounds; {args.clients} clients, {args.requests} requests each)"
          "\n|---|---|---|---|---|")
    for name in names:
        a, b = results[name][ours.base], results[name][theirs.base]
        if not a or not b:
            print(f"| {name} | (no shopper to sign in) | | | |")
            continue
        a50, a99 = (statistics.median(r[k] for r in a) for k in ("p50", "p99"))
        b50, b99 = (statistics.median(r[k] for r in b) for k in ("p50", "p99"))
        failed = " (some failed)" if any(r["failures"] for r in a + b) else ""
        print(f"| {name}{failed} | {a50:.1f} / {a99:.1f} | {b50:.1f} / {b99:.1f} | {b50 / a50:.1f}× | {b99 / a99:.1f}× |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:9000")
    parser.add_argument("--email", default="admin@test.com")
    parser.add_argument("--password", default="supersecret")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=160)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--against", help="another server's base URL, measured alternately with --base")
    parser.add_argument("--rounds", type=int, default=3, help="rounds with --against (medians are reported)")
    parser.add_argument("--pids", type=int, nargs="*", help="the server's pids (with descendants): its CPU a request")
    parser.add_argument("--pg-database", help="the database whose PostgreSQL backends' CPU a request is counted")
    parser.add_argument("--cart-lines", type=int, help="also read a cart of this many lines, made first (a write)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
