from models.migrations import _base as base

# The admin customers list's version (services/customers/versions.py): what GET /admin/customers can
# show changes only when one of these moves, in three scopes, so that a list which does not expand
# orders is not forgotten at every order a shop takes:
# - `customers`: the customer rows (every column the list and its filters read), their groups and
#   the group links (`expand=groups`, the `groups[]` filter);
# - `addresses`: address rows (`expand=shipping_addresses`, `expand=billing_address`; a billing
#   address has no customer_id, so every address write counts, carts' and orders' too);
# - `orders`: order rows (`expand=orders` shows each customer's order columns).
# Triggers do it, so every writer (services, checkout, imports, the move from Medusa, raw SQL) moves
# it without knowing about it. Values are random rather than counted: a database put back to an
# older state never repeats a version it had.
#
# PostgreSQL: checkout writes a guest customer (the cart's email step), an order and addresses, so a
# single version row would be a hot row every shopper's transaction queues on. Instead the version
# is SHARDS rows, read together (one statement sums them); the trigger is a deferred constraint
# trigger (it fires at commit, once per transaction and scope), and it takes whichever shard no
# other transaction holds (FOR UPDATE SKIP LOCKED): a committing transaction never waits for
# another's bump, so this adds no queue to checkouts and can never close a deadlock cycle with the
# catalogue's version row (0025) that a transaction also takes at commit. Only with more than SHARDS
# transactions committing such writes at the very same moment does one wait, for one shard. A
# reader's snapshot sees every shard as of the same instant, so any committed change moves the sum.
# SQLite has one writer: one row.
SHARDS = 16
SCOPES = {
    "customers": ("customer", "customer_group", "customer_group_customers"),
    "addresses": ("address",),
    "orders": ("orders",),
}
TABLES = tuple(t for tables in SCOPES.values() for t in tables)

_PG_RANDOM = "floor(random() * 9e15)::bigint"
_PG_UPDATES = "\n".join(
    f"    {'IF' if i == 0 else 'ELSIF'} TG_ARGV[0] = '{scope}' THEN\n"
    f"      UPDATE customer_list_version SET {scope} = {_PG_RANDOM} WHERE shard = picked;"
    for i, scope in enumerate(SCOPES)
)
PG_CREATE = [
    'CREATE TABLE "customer_list_version" ("shard" SMALLINT PRIMARY KEY,'
    + ", ".join(f' "{scope}" BIGINT NOT NULL' for scope in SCOPES) + ")",
    f'INSERT INTO "customer_list_version" SELECT s, {", ".join([_PG_RANDOM] * len(SCOPES))}'
    f" FROM generate_series(0, {SHARDS - 1}) AS s",
    f"""CREATE FUNCTION customer_list_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  picked smallint;
BEGIN
  -- Once per transaction and scope: a bulk write of many rows moves the version once.
  IF current_setting('commerce.customer_list_bumped_' || TG_ARGV[0], true) IS DISTINCT FROM 'on' THEN
    PERFORM set_config('commerce.customer_list_bumped_' || TG_ARGV[0], 'on', true);
    SELECT shard INTO picked FROM customer_list_version LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF picked IS NULL THEN  -- every shard is being committed by another transaction: wait for one
      picked := floor(random() * {SHARDS});
    END IF;
{_PG_UPDATES}
    END IF;
  END IF;
  RETURN NULL;
END $$""",
]
for _scope, _tables in SCOPES.items():
    for _table in _tables:
        PG_CREATE += [
            f'CREATE CONSTRAINT TRIGGER customer_list_version_bump AFTER INSERT OR UPDATE OR DELETE ON "{_table}"'
            f" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION customer_list_version_bump('{_scope}')",
            f'CREATE TRIGGER customer_list_version_truncate AFTER TRUNCATE ON "{_table}"'
            f" FOR EACH STATEMENT EXECUTE FUNCTION customer_list_version_bump('{_scope}')",
        ]
PG_DROP = [
    *[f'DROP TRIGGER customer_list_version_bump ON "{t}"' for t in TABLES],
    *[f'DROP TRIGGER customer_list_version_truncate ON "{t}"' for t in TABLES],
    "DROP FUNCTION customer_list_version_bump()",
    'DROP TABLE "customer_list_version"',
]

SQLITE_CREATE = [
    'CREATE TABLE "customer_list_version" ("shard" INTEGER PRIMARY KEY,'
    + ", ".join(f' "{scope}" BIGINT NOT NULL' for scope in SCOPES) + ")",
    f'INSERT INTO "customer_list_version" VALUES (0, {", ".join(["random()"] * len(SCOPES))})',
]
for _scope, _tables in SCOPES.items():
    for _table in _tables:
        for _event in ("INSERT", "UPDATE", "DELETE"):
            SQLITE_CREATE.append(
                f'CREATE TRIGGER customer_list_version_{_table}_{_event.lower()} AFTER {_event} ON "{_table}"'
                f" FOR EACH ROW BEGIN UPDATE customer_list_version SET {_scope} = random(); END")
SQLITE_DROP = [
    *[f"DROP TRIGGER {sql.split()[2]}" for sql in SQLITE_CREATE if sql.startswith("CREATE TRIGGER")],
    'DROP TABLE "customer_list_version"',
]


class Migration(base.Migration):
    dependencies = [('models', '0026_product_search_batched')]

    initial = False

    operations = [base.PerDialect(PG_CREATE, PG_DROP, SQLITE_CREATE, SQLITE_DROP)]
