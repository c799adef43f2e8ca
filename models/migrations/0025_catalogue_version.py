from models.migrations import _base as base

# The catalogue's version (services/catalog/versions.py): one row whose `catalogue` value is
# replaced by a fresh random number in the same transaction as any write to what the storefront's
# catalogue reads show (products, variants, prices, price lists, collections, categories, regions,
# tax rates, shipping options, sales channels, publishable keys, the store), and whose `stock` value
# is replaced when a variant's stock moves. Triggers do it, so every writer (services, imports,
# batch jobs, the move from Medusa, raw SQL) bumps it without knowing about it. The value is random
# rather than counted, so a database put back to an older state never repeats a version it had.
#
# PostgreSQL: the triggers are deferred to the commit and write the row once per transaction, so the
# row's lock is the last one a transaction takes and is held only for the commit: an order's stock
# decrement and an admin's edit queue for a moment there, never deadlock on it. SQLite has one writer.
CATALOGUE_TABLES = (
    "product", "product_option", "product_option_value", "money_amount", "image", "product_images", "product_tag",
    "product_tags", "product_type", "product_collection", "product_category", "product_category_product",
    "product_sales_channel", "product_tax_rate", "product_type_tax_rate", "price_list", "price_list_customer_groups",
    "sales_channel", "publishable_api_key", "publishable_api_key_sales_channel", "store", "store_currencies",
    "currency", "region", "country", "region_payment_providers", "region_fulfillment_providers", "payment_provider",
    "fulfillment_provider", "tax_rate", "tax_provider", "shipping_option", "shipping_option_requirement",
    "shipping_tax_rate", "shipping_profile",
)
# A variant's columns but its stock: a change of any of them is a catalogue change. A column added
# to product_variant later must join this list (tests/services/catalog/test_catalogue_version.py checks).
VARIANT_COLUMNS = (
    "created_at", "updated_at", "id", "metadata", "deleted_at", "title", "sku", "barcode", "ean", "upc",
    "variant_rank", "allow_backorder", "manage_inventory", "hs_code", "origin_country", "mid_code", "material",
    "weight", "length", "height", "width", "product_id",
)
STOCK_COLUMN = "inventory_quantity"
# With INVENTORY_LOCATIONS on, what a channel can sell is summed from these (services/inventory/):
# linking a location to a channel changes the storefront's stock without touching a variant.
STOCK_TABLES = ("inventory_level", "stock_location", "sales_channel_location", "product_variant_inventory_item")

_PG_RANDOM = "floor(random() * 9e15)::bigint"
PG_CREATE = [
    'CREATE TABLE "catalogue_version" ("id" SMALLINT PRIMARY KEY CHECK ("id" = 1),'
    ' "catalogue" BIGINT NOT NULL, "stock" BIGINT NOT NULL)',
    f'INSERT INTO "catalogue_version" ("id", "catalogue", "stock") VALUES (1, {_PG_RANDOM}, {_PG_RANDOM})',
    f"""CREATE FUNCTION catalogue_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Once per transaction and scope: a bulk write of many rows updates the row once.
  IF current_setting('commerce.catalogue_bumped_' || TG_ARGV[0], true) IS DISTINCT FROM 'on' THEN
    PERFORM set_config('commerce.catalogue_bumped_' || TG_ARGV[0], 'on', true);
    IF TG_ARGV[0] = 'stock' THEN
      UPDATE catalogue_version SET stock = {_PG_RANDOM} WHERE id = 1;
    ELSE
      UPDATE catalogue_version SET catalogue = {_PG_RANDOM} WHERE id = 1;
    END IF;
  END IF;
  RETURN NULL;
END $$""",
    f"""CREATE FUNCTION catalogue_version_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalogue_version SET catalogue = {_PG_RANDOM} WHERE id = 1;
  RETURN NULL;
END $$""",
]


def _pg_trigger(table: str, events: str, scope: str = "catalogue", name: str = "catalogue_version_bump") -> str:
    return (f'CREATE CONSTRAINT TRIGGER {name} AFTER {events} ON "{table}" DEFERRABLE INITIALLY DEFERRED'
            f" FOR EACH ROW EXECUTE FUNCTION catalogue_version_bump('{scope}')")


for _table in CATALOGUE_TABLES:
    PG_CREATE.append(_pg_trigger(_table, "INSERT OR UPDATE OR DELETE"))
PG_CREATE += [
    _pg_trigger("product_variant", f"INSERT OR DELETE OR UPDATE OF {', '.join(VARIANT_COLUMNS)}"),
    _pg_trigger("product_variant", f"UPDATE OF {STOCK_COLUMN}", "stock", "catalogue_version_stock"),
    *[_pg_trigger(t, "INSERT OR UPDATE OR DELETE", "stock", "catalogue_version_stock") for t in STOCK_TABLES],
]
for _table in (*CATALOGUE_TABLES, "product_variant"):
    PG_CREATE.append(f'CREATE TRIGGER catalogue_version_truncate AFTER TRUNCATE ON "{_table}"'
                     " FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_truncated()")
PG_DROP = [
    *[f'DROP TRIGGER catalogue_version_bump ON "{t}"' for t in (*CATALOGUE_TABLES, "product_variant")],
    *[f'DROP TRIGGER catalogue_version_truncate ON "{t}"' for t in (*CATALOGUE_TABLES, "product_variant")],
    *[f'DROP TRIGGER catalogue_version_stock ON "{t}"' for t in ("product_variant", *STOCK_TABLES)],
    "DROP FUNCTION catalogue_version_bump(), catalogue_version_truncated()",
    'DROP TABLE "catalogue_version"',
]


def _sqlite_trigger(name: str, event: str, table: str, scope: str = "catalogue") -> str:
    return (f'CREATE TRIGGER {name} AFTER {event} ON "{table}" FOR EACH ROW BEGIN'
            f" UPDATE catalogue_version SET {scope} = random() WHERE id = 1; END")


SQLITE_CREATE = [
    'CREATE TABLE "catalogue_version" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1),'
    ' "catalogue" BIGINT NOT NULL, "stock" BIGINT NOT NULL)',
    'INSERT INTO "catalogue_version" ("id", "catalogue", "stock") VALUES (1, random(), random())',
]
for _table in CATALOGUE_TABLES:
    for _event in ("INSERT", "UPDATE", "DELETE"):
        SQLITE_CREATE.append(_sqlite_trigger(f"catalogue_version_{_table}_{_event.lower()}", _event, _table))
SQLITE_CREATE += [
    _sqlite_trigger("catalogue_version_product_variant_insert", "INSERT", "product_variant"),
    _sqlite_trigger("catalogue_version_product_variant_delete", "DELETE", "product_variant"),
    _sqlite_trigger("catalogue_version_product_variant_update", f"UPDATE OF {', '.join(VARIANT_COLUMNS)}",
                    "product_variant"),
    _sqlite_trigger("catalogue_version_product_variant_stock", f"UPDATE OF {STOCK_COLUMN}", "product_variant",
                    "stock"),
]
for _table in STOCK_TABLES:
    for _event in ("INSERT", "UPDATE", "DELETE"):
        SQLITE_CREATE.append(_sqlite_trigger(f"catalogue_version_{_table}_{_event.lower()}", _event, _table, "stock"))
SQLITE_DROP = [
    *[f"DROP TRIGGER {sql.split()[2]}" for sql in SQLITE_CREATE if sql.startswith("CREATE TRIGGER")],
    'DROP TABLE "catalogue_version"',
]


class Migration(base.Migration):
    dependencies = [('models', '0024_inventory_locations')]

    initial = False

    operations = [base.PerDialect(PG_CREATE, PG_DROP, SQLITE_CREATE, SQLITE_DROP)]
