"""The big shop (a benchmark data set, not a test fixture): years of trade in a scratch PostgreSQL
database, for measuring how the admin's and the storefront's reads grow with a shop's history.

    .venv/bin/python -m bench.big_shop --orders 100000                # into bigshop_100000
    .venv/bin/python -m bench.big_shop --orders 1000000 --database bigshop_full

The database (its name must start with `bigshop_`) is dropped and made again, so a run is
re-runnable and always gives the same shop. It is migrated and loaded with the demo store
(`commerce migrate`, `commerce seed workers/demo/seed.json`: the regions, shipping options, sales
channel and the admin `admin@test.com` / `supersecret`), then filled in bulk, one
`INSERT ... SELECT FROM generate_series` a table (the rows are made inside PostgreSQL, nothing
crosses the wire), with the database's own triggers on, as any writer leaves them: orders over
three years with lines, tax lines, shipping methods, payments, fulfilments, refunds, returns, swaps
and claims; customers with addresses and groups; products with variants in categories,
collections, the sales channel and price lists; gift cards and discount usages; abandoned carts of
the last 30 days; draft orders. Customer number 3 (`pg_temp.email(3)`) signs in with `supersecret`. It ends with `VACUUM ANALYZE`, as autovacuum would leave a settled
shop. Sizes follow `--orders` unless given (full size: 1,000,000 orders, 250,000 customers, 20,000
products with 100,000 variants, 100,000 gift cards). Every step's time is printed.

Ids are the entity's prefix and a 26-character counter (`order_01B000…0042`), so a row's id can be
computed from its number; the mix of statuses follows the order's number (see ORDER_KINDS).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import asyncpg

from services.core.passwords import hash_password

SHOPPER_PASSWORD = "supersecret"  # customer number 3's (has_account), for the storefront's own reads
DEMO_SEED = Path(__file__).resolve().parent.parent / "workers" / "demo" / "seed.json"
YEARS = 3

# What an order's number (i % 100) makes it: status, payment, fulfilment, and what follows from it.
ORDER_KINDS = """
CREATE FUNCTION pg_temp.kind(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN i % 100 < 5 THEN 'canceled' WHEN i % 100 < 10 THEN 'archived'
              WHEN i % 100 < 15 THEN 'refunded' WHEN i % 100 < 18 THEN 'partially_refunded'
              WHEN i % 100 = 18 THEN 'swapped' WHEN i % 100 = 19 THEN 'claimed'
              WHEN i % 100 < 50 THEN 'pending' WHEN i % 100 < 60 THEN 'fulfilled' ELSE 'shipped' END $$;
CREATE FUNCTION pg_temp.bid(prefix text, i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT prefix || '_01B' || lpad(i::text, 23, '0') $$;
CREATE FUNCTION pg_temp.pick(names text[], i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT names[1 + (i % array_length(names, 1))] $$;
CREATE FUNCTION pg_temp.first_name(c bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT pg_temp.pick(ARRAY['Anna','Ben','Chloe','David','Emma','Felix','Greta','Hugo','Ida','Jonas',
    'Karin','Lars','Maria','Niels','Olga','Peter','Quinn','Rosa','Sven','Tanja','Uwe','Vera','Walter',
    'Xenia','Yusuf','Zoe','Ahmed','Bea','Carlos','Dana','Elif','Farid','Gina'], c) $$;
CREATE FUNCTION pg_temp.last_name(c bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT pg_temp.pick(ARRAY['Smith','Jones','Miller','Schmidt','Garcia','Rossi','Novak','Dubois',
    'Jensen','Kowalski','Silva','Nagy','Horvat','Berg','Larsen','Meyer','Fischer','Weber','Wagner',
    'Becker','Hoffmann','Klein','Wolf','Brown','Taylor','Wilson','Evans','Thomas','Roberts','Walker',
    'Wright','Green','Hall'], c / 33) $$;
CREATE FUNCTION pg_temp.email(c bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT lower(pg_temp.first_name(c) || '.' || pg_temp.last_name(c)) || c || '@'
    || pg_temp.pick(ARRAY['example.com','mail.test','post.example','shop.test','inbox.example'], c / 1089) $$;
"""


def plan(n: int, customers: int, products: int, gift_cards: int, ids: dict[str, str]) -> list[tuple[str, str]]:
    """The steps, each a few statements run in one transaction; `ids` are the demo store's rows
    the data hangs from (regions, their shipping options, the sales channel, the shipping profile)."""
    variants = products * 5
    drafts, carts, discounts = max(n // 100, 1), max(n // 10, 1), max(n // 100, 10)
    span = f"(interval '{YEARS} years' * ({n} - i) / {n})"  # order i's age: the newest is the last
    region = f"CASE WHEN i % 10 < 7 THEN '{ids['na']}' ELSE '{ids['eu']}' END"
    currency = "CASE WHEN i % 10 < 7 THEN 'usd' ELSE 'eur' END"
    rate = "CASE WHEN i % 10 < 7 THEN 0 ELSE 25 END"
    customer = f"(1 + (i::bigint * 7919) % {customers})"  # bigint: i * 7919 passes 2^31 past 271,000 orders
    # line j (0..2) of order i exists when j <= i % 3; its variant and price follow from i and j
    lines = f"FROM generate_series(1, {n}) AS i CROSS JOIN generate_series(0, 2) AS j WHERE j <= i % 3"
    variant = f"(1 + (i * 31 + j * 17) % {variants})"
    price = f"(500 + ({variant} % 50) * 100)"
    kind = "pg_temp.kind(o.display_id)"
    of_kind = lambda *kinds: f"{kind} IN ({', '.join(repr(k) for k in kinds)})"  # noqa: E731
    return [
        ("customers", f"""
INSERT INTO customer (id, created_at, updated_at, email, first_name, last_name, phone, has_account, billing_address_id)
SELECT pg_temp.bid('cus', c), now() - interval '{YEARS} years' * ({customers} - c) / {customers}, now(),
       pg_temp.email(c), pg_temp.first_name(c), pg_temp.last_name(c), '+49 30 ' || (1000000 + c), c % 3 = 0,
       pg_temp.bid('addr', c)
FROM generate_series(1, {customers}) AS c;
INSERT INTO address (id, created_at, updated_at, customer_id, first_name, last_name, address_1, city,
                     country_code, postal_code, phone)
SELECT pg_temp.bid('addr', c), now(), now(), pg_temp.bid('cus', c), pg_temp.first_name(c), pg_temp.last_name(c),
       c || ' Main Street', pg_temp.pick(ARRAY['Berlin','Paris','Austin','Madrid','Oslo'], c), 'us', lpad((c % 99999)::text, 5, '0'), NULL
FROM generate_series(1, {customers}) AS c"""),
        ("customer groups", f"""
INSERT INTO customer_group (id, created_at, updated_at, name)
SELECT pg_temp.bid('cgrp', g), now(), now(), 'Big group ' || g FROM generate_series(1, 10) AS g;
INSERT INTO customer_group_customers (customer_id, customer_group_id)
SELECT pg_temp.bid('cus', c), pg_temp.bid('cgrp', 1 + c % 10) FROM generate_series(5, {customers}, 5) AS c"""),
        ("catalogue: collections, categories, price lists", f"""
INSERT INTO product_collection (id, created_at, updated_at, title, handle)
SELECT pg_temp.bid('pcol', k), now(), now(), 'Big collection ' || k, 'big-collection-' || k FROM generate_series(1, 20) AS k;
INSERT INTO product_category (id, created_at, updated_at, name, description, handle, is_active, is_internal, rank)
SELECT pg_temp.bid('pcat', k), now(), now(), 'Big category ' || k, '', 'big-category-' || k, true, false, k
FROM generate_series(1, 50) AS k;
INSERT INTO price_list (id, created_at, updated_at, name, description, type, status, includes_tax)
SELECT pg_temp.bid('pl', k), now(), now(), 'Big sale ' || k, 'Seasonal prices', 'sale', 'active', false
FROM generate_series(1, 10) AS k"""),
        ("products", f"""
INSERT INTO product (id, created_at, updated_at, title, subtitle, description, handle, is_giftcard, status,
                     discountable, collection_id, profile_id)
SELECT pg_temp.bid('prod', p), now() - interval '{YEARS} years' * ({products} - p) / {products}, now(),
       pg_temp.pick(ARRAY['Classic','Organic','Vintage','Slim','Cozy','Sport','Travel','Urban'], p) || ' '
         || pg_temp.pick(ARRAY['Shirt','Hoodie','Sneaker','Mug','Backpack','Lamp','Scarf','Jacket','Bottle'], p / 8)
         || ' ' || p,
       NULL, 'A product of the big shop, number ' || p, 'big-product-' || p, false,
       CASE WHEN p % 20 = 0 THEN 'draft' ELSE 'published' END, true, pg_temp.bid('pcol', 1 + p % 20), '{ids["profile"]}'
FROM generate_series(1, {products}) AS p;
INSERT INTO product_category_product (product_category_id, product_id)
SELECT pg_temp.bid('pcat', 1 + p % 50), pg_temp.bid('prod', p) FROM generate_series(1, {products}) AS p;
INSERT INTO product_sales_channel (product_id, sales_channel_id)
SELECT pg_temp.bid('prod', p), '{ids["channel"]}' FROM generate_series(1, {products}) AS p;
INSERT INTO product_option (id, created_at, updated_at, title, product_id)
SELECT pg_temp.bid('opt', p), now(), now(), 'Size', pg_temp.bid('prod', p) FROM generate_series(1, {products}) AS p"""),
        ("variants and prices", f"""
INSERT INTO product_variant (id, created_at, updated_at, title, sku, variant_rank, inventory_quantity,
                             allow_backorder, manage_inventory, product_id)
SELECT pg_temp.bid('variant', v), now(), now(), pg_temp.pick(ARRAY['XS','S','M','L','XL'], v - 1),
       'BIG-' || v, (v - 1) % 5, 100, false, true, pg_temp.bid('prod', 1 + (v - 1) / 5)
FROM generate_series(1, {variants}) AS v;
INSERT INTO product_option_value (id, created_at, updated_at, value, option_id, variant_id)
SELECT pg_temp.bid('optval', v), now(), now(), pg_temp.pick(ARRAY['XS','S','M','L','XL'], v - 1),
       pg_temp.bid('opt', 1 + (v - 1) / 5), pg_temp.bid('variant', v) FROM generate_series(1, {variants}) AS v;
INSERT INTO money_amount (id, created_at, updated_at, currency_code, amount, variant_id, price_list_id)
SELECT pg_temp.bid('ma', v * 3 + k), now(), now(), (ARRAY['usd','eur','usd'])[k + 1],
       CASE WHEN k = 2 THEN 400 ELSE 500 END + (v % 50) * 100, pg_temp.bid('variant', v),
       CASE WHEN k = 2 THEN pg_temp.bid('pl', 1 + v % 10) END
FROM generate_series(1, {variants}) AS v CROSS JOIN generate_series(0, 2) AS k WHERE k < 2 OR v % 10 = 0"""),
        ("discounts and gift cards", f"""
INSERT INTO discount_rule (id, created_at, updated_at, description, type, value, allocation)
SELECT pg_temp.bid('dru', d), now(), now(), 'Big discount ' || d, 'percentage', 5 + d % 20, 'total'
FROM generate_series(1, {discounts}) AS d;
INSERT INTO discount (id, created_at, updated_at, code, is_dynamic, is_disabled, starts_at, usage_count, rule_id)
SELECT pg_temp.bid('disc', d), now(), now(), 'BIG' || d, false, d % 7 = 0, now() - interval '{YEARS} years', 0,
       pg_temp.bid('dru', d) FROM generate_series(1, {discounts}) AS d;
INSERT INTO gift_card (id, created_at, updated_at, code, value, balance, is_disabled, region_id)
SELECT pg_temp.bid('gift', g), now() - interval '{YEARS} years' * ({gift_cards} - g) / {gift_cards}, now(),
       'BIGG-' || lpad(g::text, 4, '0') || '-' || upper(substr(md5(g::text), 1, 8)), 5000, 5000 - (g % 5) * 1000,
       g % 50 = 0, '{ids["na"]}'
FROM generate_series(1, {gift_cards}) AS g"""),
        ("orders", f"""
INSERT INTO address (id, created_at, updated_at, first_name, last_name, address_1, city, country_code, postal_code)
SELECT pg_temp.bid('addr', {customers} + i), now() - {span}, now() - {span},
       pg_temp.first_name({customer}), pg_temp.last_name({customer}), {customer} || ' Main Street', 'Berlin',
       CASE WHEN i % 10 < 7 THEN 'us' ELSE 'de' END, lpad(({customer} % 99999)::text, 5, '0')
FROM generate_series(1, {n}) AS i;
INSERT INTO orders (id, created_at, updated_at, status, fulfillment_status, payment_status, display_id, email,
                    currency_code, customer_id, region_id, sales_channel_id, shipping_address_id, billing_address_id,
                    canceled_at, no_notification)
SELECT pg_temp.bid('order', i), now() - {span}, now() - {span},
       CASE k WHEN 'canceled' THEN 'canceled' WHEN 'archived' THEN 'archived' WHEN 'pending' THEN 'pending'
              WHEN 'fulfilled' THEN 'pending' WHEN 'claimed' THEN 'requires_action' ELSE 'completed' END,
       CASE k WHEN 'canceled' THEN 'canceled' WHEN 'pending' THEN 'not_fulfilled' WHEN 'fulfilled' THEN 'fulfilled'
              WHEN 'refunded' THEN 'returned' ELSE 'shipped' END,
       CASE k WHEN 'canceled' THEN 'canceled' WHEN 'pending' THEN 'awaiting' WHEN 'refunded' THEN 'refunded'
              WHEN 'partially_refunded' THEN 'partially_refunded' ELSE 'captured' END,
       i, pg_temp.email({customer}), {currency}, pg_temp.bid('cus', {customer}), {region}, '{ids["channel"]}',
       pg_temp.bid('addr', {customers} + i), pg_temp.bid('addr', {customer}),
       CASE WHEN k = 'canceled' THEN now() - {span} END, false
FROM (SELECT i, pg_temp.kind(i) AS k FROM generate_series(1, {n}) AS i) AS numbered"""),
        ("order lines and tax lines", f"""
INSERT INTO line_item (id, created_at, updated_at, order_id, title, description, is_return, is_giftcard, should_merge,
                       allow_discounts, has_shipping, unit_price, quantity, fulfilled_quantity, shipped_quantity,
                       returned_quantity, variant_id, includes_tax)
SELECT pg_temp.bid('item', i * 3 + j), now() - {span}, now() - {span}, pg_temp.bid('order', i),
       'Big product ' || (1 + ({variant} - 1) / 5), pg_temp.pick(ARRAY['XS','S','M','L','XL'], {variant} - 1),
       false, false, true, true, true, {price}, 1 + (i + j) % 3,
       CASE WHEN pg_temp.kind(i) IN ('pending', 'canceled') THEN 0 ELSE 1 + (i + j) % 3 END,
       CASE WHEN pg_temp.kind(i) IN ('pending', 'canceled', 'fulfilled') THEN 0 ELSE 1 + (i + j) % 3 END,
       CASE WHEN pg_temp.kind(i) = 'refunded' THEN 1 + (i + j) % 3 ELSE 0 END,
       pg_temp.bid('variant', {variant}), false
{lines};
INSERT INTO line_item_tax_line (id, created_at, updated_at, rate, name, code, item_id)
SELECT pg_temp.bid('litl', i * 3 + j), now() - {span}, now() - {span}, {rate}, 'Tax', 'default',
       pg_temp.bid('item', i * 3 + j)
{lines};
INSERT INTO shipping_method (id, created_at, updated_at, order_id, price, data, shipping_option_id, includes_tax)
SELECT pg_temp.bid('sm', i), now() - {span}, now() - {span}, pg_temp.bid('order', i), 800, '{{}}',
       CASE WHEN i % 10 < 7 THEN '{ids["na_option"]}' ELSE '{ids["eu_option"]}' END, false FROM generate_series(1, {n}) AS i;
INSERT INTO shipping_method_tax_line (id, created_at, updated_at, rate, name, code, shipping_method_id)
SELECT pg_temp.bid('smtl', i), now() - {span}, now() - {span}, {rate}, 'Tax', 'default', pg_temp.bid('sm', i)
FROM generate_series(1, {n}) AS i"""),
        ("payments", f"""
INSERT INTO payment (id, created_at, updated_at, order_id, amount, currency_code, amount_refunded, provider_id, data,
                     captured_at, canceled_at)
SELECT pg_temp.bid('pay', o.display_id), o.created_at, o.created_at, o.id,
       (SELECT (sum(l.unit_price * l.quantity) + 800) * (100 + CASE WHEN o.currency_code = 'usd' THEN 0 ELSE 25 END) / 100
        FROM line_item l WHERE l.order_id = o.id),
       o.currency_code, 0, 'manual', '{{}}',
       CASE WHEN o.payment_status IN ('captured', 'refunded', 'partially_refunded') THEN o.created_at END,
       o.canceled_at
FROM orders o WHERE o.id LIKE 'order\\_01B%';
INSERT INTO refund (id, created_at, updated_at, order_id, payment_id, amount, reason, note)
SELECT pg_temp.bid('ref', o.display_id), o.created_at + interval '9 days', o.created_at + interval '9 days', o.id, p.id,
       CASE WHEN o.payment_status = 'refunded' THEN p.amount ELSE p.amount / 4 END,
       CASE WHEN o.payment_status = 'refunded' THEN 'return' ELSE 'discount' END, 'Big shop refund'
FROM orders o JOIN payment p ON p.order_id = o.id
WHERE o.payment_status IN ('refunded', 'partially_refunded') AND o.id LIKE 'order\\_01B%';
UPDATE payment p SET amount_refunded = r.amount FROM refund r WHERE r.payment_id = p.id"""),
        ("fulfilments", f"""
INSERT INTO fulfillment (id, created_at, updated_at, order_id, provider_id, no_notification, tracking_numbers, data,
                         shipped_at)
SELECT pg_temp.bid('ful', o.display_id), o.created_at + interval '1 day', o.created_at + interval '1 day', o.id,
       'manual', false, '[]', '{{}}', CASE WHEN o.fulfillment_status <> 'fulfilled' THEN o.created_at + interval '2 days' END
FROM orders o WHERE o.fulfillment_status IN ('fulfilled', 'shipped', 'returned') AND o.id LIKE 'order\\_01B%';
INSERT INTO fulfillment_item (id, fulfillment_id, item_id, quantity)
SELECT 'fi_' || l.id, f.id, l.id, l.fulfilled_quantity
FROM fulfillment f JOIN line_item l ON l.order_id = f.order_id WHERE f.id LIKE 'ful\\_01B%'"""),
        ("returns, swaps and claims", f"""
INSERT INTO return (id, created_at, updated_at, status, order_id, refund_amount, received_at, no_notification)
SELECT pg_temp.bid('ret', o.display_id), o.created_at + interval '8 days', o.created_at + interval '8 days',
       'received', o.id, p.amount - 800, o.created_at + interval '8 days', false
FROM orders o JOIN payment p ON p.order_id = o.id WHERE o.id LIKE 'order\\_01B%' AND {of_kind('refunded')};
INSERT INTO return_item (id, return_id, item_id, quantity, is_requested, requested_quantity, received_quantity)
SELECT 'ri_' || l.id, r.id, l.id, l.quantity, true, l.quantity, l.quantity
FROM return r JOIN line_item l ON l.order_id = r.order_id WHERE r.id LIKE 'ret\\_01B%';
INSERT INTO swap (id, created_at, updated_at, order_id, fulfillment_status, payment_status, difference_due,
                  confirmed_at, no_notification, allow_backorder)
SELECT pg_temp.bid('swap', o.display_id), o.created_at + interval '5 days', o.created_at + interval '5 days', o.id,
       'not_fulfilled', 'confirmed', 0, o.created_at + interval '5 days', false, false
FROM orders o WHERE o.id LIKE 'order\\_01B%' AND {of_kind('swapped')};
INSERT INTO line_item (id, created_at, updated_at, swap_id, title, is_return, is_giftcard, should_merge, allow_discounts,
                       has_shipping, unit_price, quantity, variant_id, includes_tax)
SELECT 'item_swap_' || s.id, s.created_at, s.created_at, s.id, l.title, false, false, true, true, true, l.unit_price, 1,
       l.variant_id, false
FROM swap s JOIN line_item l ON l.id = pg_temp.bid('item', substr(s.order_id, 10)::bigint * 3) WHERE s.id LIKE 'swap\\_01B%';
INSERT INTO claim_order (id, created_at, updated_at, order_id, type, payment_status, fulfillment_status, refund_amount,
                         no_notification)
SELECT pg_temp.bid('claim', o.display_id), o.created_at + interval '6 days', o.created_at + interval '6 days', o.id,
       'refund', 'refunded', 'not_fulfilled', 1000, false
FROM orders o WHERE o.id LIKE 'order\\_01B%' AND {of_kind('claimed')};
INSERT INTO claim_item (id, created_at, updated_at, claim_order_id, item_id, variant_id, reason, quantity)
SELECT pg_temp.bid('citm', substr(c.order_id, 10)::bigint), c.created_at, c.created_at, c.id, l.id, l.variant_id,
       'production_failure', 1
FROM claim_order c JOIN line_item l ON l.id = pg_temp.bid('item', substr(c.order_id, 10)::bigint * 3)
WHERE c.id LIKE 'claim\\_01B%'"""),
        ("discount usages and gift-card spends", f"""
INSERT INTO order_discounts (order_id, discount_id)
SELECT pg_temp.bid('order', i), pg_temp.bid('disc', 1 + i % {discounts}) FROM generate_series(3, {n}, 10) AS i;
UPDATE discount d SET usage_count = u.uses FROM (
  SELECT discount_id, count(*) AS uses FROM order_discounts GROUP BY discount_id) AS u WHERE u.discount_id = d.id;
INSERT INTO order_gift_cards (order_id, gift_card_id)
SELECT pg_temp.bid('order', i), pg_temp.bid('gift', 1 + i % {gift_cards}) FROM generate_series(21, {n}, 100) AS i;
INSERT INTO gift_card_transaction (id, order_id, gift_card_id, amount, created_at)
SELECT 'gct_' || order_id, order_id, gift_card_id, 1000, now() FROM order_gift_cards WHERE order_id LIKE 'order\\_01B%'"""),
        ("abandoned carts and draft orders", f"""
INSERT INTO cart (id, created_at, updated_at, email, type, region_id, sales_channel_id, customer_id)
SELECT pg_temp.bid('cart', i), now() - interval '30 days' * i / {carts + drafts}, now() - interval '30 days' * i / {carts + drafts},
       pg_temp.email({customer}), CASE WHEN i > {carts} THEN 'draft_order' ELSE 'default' END, {region}, '{ids["channel"]}',
       pg_temp.bid('cus', {customer})
FROM generate_series(1, {carts + drafts}) AS i;
INSERT INTO line_item (id, created_at, updated_at, cart_id, title, is_return, is_giftcard, should_merge, allow_discounts,
                       has_shipping, unit_price, quantity, variant_id, includes_tax)
SELECT pg_temp.bid('item', {n} * 3 + 3 + i * 2 + j), now(), now(), pg_temp.bid('cart', i), 'Big product', false, false,
       true, true, false, {price}, 1, pg_temp.bid('variant', {variant}), false
FROM generate_series(1, {carts + drafts}) AS i CROSS JOIN generate_series(0, 1) AS j WHERE j <= i % 2;
INSERT INTO draft_order (id, created_at, updated_at, status, display_id, cart_id, no_notification_order)
SELECT pg_temp.bid('dorder', d), now(), now(), 'open', {n} + d, pg_temp.bid('cart', {carts} + d), false
FROM generate_series(1, {drafts}) AS d;
SELECT setval('display_id_order', {n} + {drafts})"""),
        ("a shopper who can sign in", f"""
UPDATE customer SET password_hash = '{hash_password(SHOPPER_PASSWORD)}' WHERE id = pg_temp.bid('cus', 3)"""),
    ]


async def run(dsn: str, args: argparse.Namespace) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        ids = {
            "na": await connection.fetchval("SELECT id FROM region WHERE currency_code = 'usd' ORDER BY name LIMIT 1"),
            "eu": await connection.fetchval("SELECT id FROM region WHERE currency_code = 'eur' ORDER BY name LIMIT 1"),
            "channel": await connection.fetchval("SELECT default_sales_channel_id FROM store"),
            "profile": await connection.fetchval("SELECT id FROM shipping_profile WHERE type = 'default'"),
        }
        for key, region in (("na_option", ids["na"]), ("eu_option", ids["eu"])):
            ids[key] = await connection.fetchval(
                "SELECT id FROM shipping_option WHERE region_id = $1 AND NOT is_return ORDER BY name LIMIT 1", region)
        await connection.execute(ORDER_KINDS)
        total = time.perf_counter()
        for name, sql in plan(args.orders, args.customers, args.products, args.gift_cards, ids):
            started = time.perf_counter()
            async with connection.transaction():
                await connection.execute(sql)
            print(f"  {name}: {time.perf_counter() - started:.1f}s", flush=True)
        started = time.perf_counter()
        await connection.execute("VACUUM ANALYZE")
        print(f"  vacuum analyze: {time.perf_counter() - started:.1f}s")
        print(f"filled in {time.perf_counter() - total:.1f}s")
        for table in ("orders", "line_item", "customer", "product", "product_variant", "gift_card", "cart"):
            print(f"  {table}: {await connection.fetchval(f'SELECT count(*) FROM {table}'):,}")
    finally:
        await connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--customers", type=int, help="default: a quarter of --orders")
    parser.add_argument("--products", type=int, help="default: one for every 50 orders (5 variants each)")
    parser.add_argument("--gift-cards", type=int, help="default: one for every 10 orders")
    parser.add_argument("--database", help="scratch database to (re)make, named bigshop_...; default bigshop_ORDERS")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    args.customers = args.customers or max(args.orders // 4, 1)
    args.products = args.products or max(args.orders // 50, 1)
    args.gift_cards = args.gift_cards or max(args.orders // 10, 1)
    database = args.database or f"bigshop_{args.orders}"
    if not database.startswith("bigshop_"):
        parser.error("the database is dropped first: its name must start with bigshop_")
    dsn = f"{args.server}/{database}"
    started = time.perf_counter()
    asyncio.run(_remake(args.server, database))
    env = {**os.environ, "DATABASE_URL": dsn}
    env.pop("REDIS_URL", None)
    commerce = [str(Path(sys.executable).parent / "commerce")]
    subprocess.run([*commerce, "migrate"], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*commerce, "seed", str(DEMO_SEED)], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    print(f"migrated and seeded {database} in {time.perf_counter() - started:.1f}s", flush=True)
    asyncio.run(run(dsn, args))
    print(f"DATABASE_URL={dsn}  ({time.perf_counter() - started:.0f}s in all)")


async def _remake(server: str, database: str) -> None:
    connection = await asyncpg.connect(f"{server}/postgres")
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        await connection.execute(f'CREATE DATABASE "{database}"')
    finally:
        await connection.close()


if __name__ == "__main__":
    main()
