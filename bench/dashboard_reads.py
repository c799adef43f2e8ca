"""The admin dashboard's heavy reads as load workloads (not a test), for any Medusa v1 server:
`wrk -t1 -c32 -d10s` after a 3 s warm-up, with an
admin JWT from `POST /admin/auth/token`:

    order_list     GET /admin/orders with the dashboard's order table query
    order_page     GET /admin/orders/{id} with the expand of the dashboard's order page
    product_list   GET /admin/products?limit=15&offset=0 (the product table)
    product_page   GET /admin/products/{id}

The order page reads the most recent order, so run some checkouts first (bench/checkout_driver.py):

    .venv/bin/python -m bench.dashboard_reads --base http://127.0.0.1:9000 --rounds 3
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
from urllib.parse import urlencode

import httpx

ORDER_LIST = {
    "expand": "shipping_address", "limit": 15, "offset": 0,
    "fields": "id,status,display_id,created_at,email,fulfillment_status,payment_status,total,currency_code",
}
ORDER_PAGE_EXPAND = (
    "customer,billing_address,shipping_address,discounts,discounts.rule,shipping_methods,"
    "shipping_methods.shipping_option,payments,items,fulfillments,fulfillments.tracking_links,returns,"
    "returns.shipping_method,returns.shipping_method.shipping_option,returns.shipping_method.tax_lines,refunds,"
    "claims.claim_items.item,claims.fulfillments,claims.return_order,claims.additional_items.variant.product.profiles,"
    "swaps.return_order,swaps.additional_items.variant.product.profiles,swaps.fulfillments,returnable_items,edits"
)
_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * _UNITS[unit]


def _wrk(url: str, token: str, seconds: int) -> dict[str, float]:
    header = f"Authorization: Bearer {token}"
    subprocess.run(["wrk", "-t1", "-c32", "-d3s", "-H", header, url], capture_output=True, check=True)
    out = subprocess.run(["wrk", "-t1", "-c32", f"-d{seconds}s", "--latency", "-H", header, url],
                         capture_output=True, text=True, check=True).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": _ms(re.search(r"\s50%\s+(\S+)", out).group(1)),
        "p99": _ms(re.search(r"\s99%\s+(\S+)", out).group(1)),
        "errors": float(errors.group(1)) if errors else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:9000")
    parser.add_argument("--email", default="admin@test.com")
    parser.add_argument("--password", default="supersecret")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    with httpx.Client(base_url=args.base, timeout=30) as client:
        token = client.post("/admin/auth/token", json={"email": args.email, "password": args.password}).json()[
            "access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        orders = client.get("/admin/orders", params={"limit": 1}, headers=headers).json()["orders"]
        products = client.get("/admin/products", params={"limit": 1}, headers=headers).json()["products"]
    if not orders or not products:
        raise SystemExit("the store needs an order and a product (run bench/checkout_driver.py first)")
    workloads = {
        "order_list": f"/admin/orders?{urlencode(ORDER_LIST)}",
        "order_page": f"/admin/orders/{orders[0]['id']}?{urlencode({'expand': ORDER_PAGE_EXPAND})}",
        "product_list": "/admin/products?limit=15&offset=0",
        "product_page": f"/admin/products/{products[0]['id']}",
    }
    print(f"| workload | req/s | p50 ms | p99 ms | errors | (median of {args.rounds}) |\n|---|---|---|---|---|---|")
    for name, path in workloads.items():
        runs = [_wrk(args.base + path, token, args.seconds) for _ in range(args.rounds)]
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        rounds = ", ".join(f"{r['rps']:.0f}" for r in runs)
        print(f"| {name} | {median['rps']:.0f} ({rounds}) | {median['p50']:.1f} | {median['p99']:.1f} "
              f"| {median['errors']:.0f} | |")


if __name__ == "__main__":
    main()
