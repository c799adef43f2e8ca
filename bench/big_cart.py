"""Cart read latency by cart size (not a test): for each size, one cart with that many line items
(the seed's variants, each line told apart by its metadata, as Medusa v1 keeps such lines apart),
then `GET /store/carts/{id}` one request at a time on one keep-alive connection. Reports the
median and p99 per size and the cost of each extra line. Works against any server that speaks
the Medusa v1 store API and holds the demo seed:

    .venv/bin/python -m bench.big_cart --base http://127.0.0.1:9000 --sizes 3 30 100 --seconds 10
"""

from __future__ import annotations

import argparse
import re
import subprocess

import httpx

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _cart(client: httpx.Client, currency: str, size: int) -> str:
    region = next(r for r in client.get("/store/regions").json()["regions"] if r["currency_code"] == currency)
    products = client.get("/store/products", params={"region_id": region["id"], "limit": 50}).json()["products"]
    variants = [v["id"] for p in products if not p.get("is_giftcard") for v in p["variants"]
                if any(price["currency_code"] == currency for price in v.get("prices", []))]
    cart_id = client.post("/store/carts", json={"region_id": region["id"]}).json()["cart"]["id"]
    for n in range(size):
        response = client.post(f"/store/carts/{cart_id}/line-items", json={
            "variant_id": variants[n % len(variants)], "quantity": 1, "metadata": {"line": n},
        })
        if response.status_code != 200:
            raise SystemExit(f"adding line {n}: {response.status_code} {response.text[:200]}")
    lines = len(client.get(f"/store/carts/{cart_id}").json()["cart"]["items"])
    if lines != size:
        raise SystemExit(f"the cart has {lines} lines, not {size}")
    return cart_id


def _latency(url: str, seconds: int) -> tuple[float, float]:
    out = subprocess.run(["wrk", "-t1", "-c1", f"-d{seconds}s", "--latency", url], capture_output=True, text=True,
                         check=True).stdout
    if "Non-2xx" in out:
        raise SystemExit(f"GET {url} failed under load:\n{out}")

    def ms(label: str) -> float:
        number, unit = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(number) * _UNITS[unit]
    return ms("50"), ms("99")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:9000")
    parser.add_argument("--currency", default="usd")
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 30, 100])
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    results = {}
    with httpx.Client(base_url=args.base, timeout=30) as client:
        carts = {size: _cart(client, args.currency, size) for size in args.sizes}
    for size, cart_id in carts.items():
        url = f"{args.base}/store/carts/{cart_id}"
        _latency(url, 2)  # warm-up
        results[size] = _latency(url, args.seconds)
    print(f"{'lines':>6} {'p50 ms':>8} {'p99 ms':>8}")
    for size, (p50, p99) in results.items():
        print(f"{size:>6} {p50:>8.2f} {p99:>8.2f}")
    if len(results) > 1:
        (small, (a, _)), (large, (b, _)) = min(results.items()), max(results.items())
        print(f"per extra line: {(b - a) / (large - small):.3f} ms")


if __name__ == "__main__":
    main()
