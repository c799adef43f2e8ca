import importlib

from models.migrations import _base as base

# The search index's upkeep, once per product per transaction instead of once per row.
# 0022's row triggers rebuilt a product's whole document on every row that touched it: an import
# line of a product with 4 variants and 2 tags rebuilt it 7 times, which halved import throughput.
#
# PostgreSQL: statement-level triggers (their transition tables hold a statement's rows) only note
# the products touched in product_search_dirty; a deferred constraint trigger on that table
# rebuilds them, each once, set-based, when the transaction commits: still inside it, so the index
# commits or rolls back with the product change. A search in the writing transaction itself drains
# the notes first (product_search_drain(), services/catalog/search.py), so it sees its own writes.
#
# SQLite has neither statement triggers nor commit triggers: its row triggers stay, except while a
# row is in product_search_pause (a bulk writer's batch in its own transaction,
# services/catalog/search_index.py): then they only note the products, and deleting the pause row
# rebuilds them, each once.
OLD = importlib.import_module("models.migrations.0022_product_search")

_PRODUCT_CHANGED = ("o.title IS DISTINCT FROM n.title OR o.subtitle IS DISTINCT FROM n.subtitle"
                    " OR o.description IS DISTINCT FROM n.description OR o.handle IS DISTINCT FROM n.handle"
                    " OR o.deleted_at IS DISTINCT FROM n.deleted_at")
_VARIANT_CHANGED = ("o.title IS DISTINCT FROM n.title OR o.sku IS DISTINCT FROM n.sku"
                    " OR o.deleted_at IS DISTINCT FROM n.deleted_at OR o.product_id IS DISTINCT FROM n.product_id")
_TAG_CHANGED = "o.value IS DISTINCT FROM n.value OR o.deleted_at IS DISTINCT FROM n.deleted_at"

# (trigger function, the product ids a statement touched, read from its transition tables)
_MARKS = {
    "product_search_mark_new_id": "SELECT id FROM new_rows",
    "product_search_mark_old_id": "SELECT id FROM old_rows",
    "product_search_mark_new_product": "SELECT product_id FROM new_rows",
    "product_search_mark_old_product": "SELECT product_id FROM old_rows",
    "product_search_mark_product_change":
        f"SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE {_PRODUCT_CHANGED}",
    "product_search_mark_variant_change":
        f"SELECT n.product_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE {_VARIANT_CHANGED}"
        f" UNION SELECT o.product_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE {_VARIANT_CHANGED}",
    "product_search_mark_tag_change":
        "SELECT pt.product_id FROM product_tags pt JOIN new_rows n ON n.id = pt.product_tag_id"
        f" JOIN old_rows o ON o.id = n.id WHERE {_TAG_CHANGED}",
}
# (trigger, table, event, transition tables, function)
_PG_TRIGGERS = [
    ("product_search_product_insert", "product", "INSERT", "NEW TABLE AS new_rows", "product_search_mark_new_id"),
    ("product_search_product_update", "product", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows",
     "product_search_mark_product_change"),
    ("product_search_product_delete", "product", "DELETE", "OLD TABLE AS old_rows", "product_search_mark_old_id"),
    ("product_search_variant_insert", "product_variant", "INSERT", "NEW TABLE AS new_rows",
     "product_search_mark_new_product"),
    ("product_search_variant_update", "product_variant", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows",
     "product_search_mark_variant_change"),
    ("product_search_variant_delete", "product_variant", "DELETE", "OLD TABLE AS old_rows",
     "product_search_mark_old_product"),
    ("product_search_tag_link_insert", "product_tags", "INSERT", "NEW TABLE AS new_rows",
     "product_search_mark_new_product"),
    ("product_search_tag_link_delete", "product_tags", "DELETE", "OLD TABLE AS old_rows",
     "product_search_mark_old_product"),
    ("product_search_tag_update", "product_tag", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows",
     "product_search_mark_tag_change"),
]
_OLD_PG_TRIGGERS = [
    ("product_search_product_write", "product"), ("product_search_product_change", "product"),
    ("product_search_variant_write", "product_variant"), ("product_search_variant_change", "product_variant"),
    ("product_search_tag_link", "product_tags"), ("product_search_tag_change", "product_tag"),
]
_OLD_PG_FUNCTIONS = ("product_search_on_product(), product_search_on_row(), product_search_on_tag(),"
                     " product_search_refresh(VARCHAR)")

PG_CREATE = [
    *[f"DROP TRIGGER {name} ON {table}" for name, table in _OLD_PG_TRIGGERS],
    f"DROP FUNCTION {_OLD_PG_FUNCTIONS}",
    'CREATE TABLE "product_search_dirty" ("product_id" VARCHAR(64) PRIMARY KEY)',
    # Two transactions changing one product take turns: the second's note of it waits on the
    # first's (the primary key) until the first commits, so the second reads the product as the
    # first left it and neither loses the other's change. An upsert, not delete-then-insert.
    # Set-based: the products' tags and variants aggregated in one pass each (a correlated
    # subquery per product let the planner scan every tag per product), each document once.
    """CREATE FUNCTION product_search_refresh(pids VARCHAR[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_search s WHERE s.product_id = ANY(pids)
    AND NOT EXISTS (SELECT 1 FROM product p WHERE p.id = s.product_id AND p.deleted_at IS NULL);
  WITH tags AS (
    SELECT pt.product_id, string_agg(t.value, ' ') AS words FROM product_tags pt
    JOIN product_tag t ON t.id = pt.product_tag_id
    WHERE pt.product_id = ANY(pids) AND t.deleted_at IS NULL GROUP BY pt.product_id
  ), variants AS (
    SELECT v.product_id, string_agg(concat_ws(' ', v.title, v.sku), ' ') AS words FROM product_variant v
    WHERE v.product_id = ANY(pids) AND v.deleted_at IS NULL GROUP BY v.product_id
  ), d AS MATERIALIZED (
    SELECT p.id, concat_ws(' ', p.title, p.handle) AS head, concat_ws(' ', p.subtitle, tags.words, variants.words) AS mid,
           coalesce(p.description, '') AS tail
    FROM product p LEFT JOIN tags ON tags.product_id = p.id LEFT JOIN variants ON variants.product_id = p.id
    WHERE p.id = ANY(pids) AND p.deleted_at IS NULL
  )
  INSERT INTO product_search (product_id, body, tsv)
  SELECT d.id, concat_ws(' ', d.head, d.mid, d.tail),
         setweight(to_tsvector('simple', d.head), 'A') || setweight(to_tsvector('simple', d.mid), 'B')
         || setweight(to_tsvector('simple', d.tail), 'C')
  FROM d ORDER BY d.id
  ON CONFLICT (product_id) DO UPDATE SET body = excluded.body, tsv = excluded.tsv;
END $$""",
    """CREATE FUNCTION product_search_drain() RETURNS void LANGUAGE plpgsql AS $$
DECLARE pids VARCHAR[];
BEGIN
  WITH drained AS (DELETE FROM product_search_dirty RETURNING product_id)
  SELECT array_agg(product_id) INTO pids FROM drained;
  IF pids IS NOT NULL THEN PERFORM product_search_refresh(pids); END IF;
END $$""",
    # One event per product noted, each at commit: the first rebuilds them all, the others find none.
    """CREATE FUNCTION product_search_on_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM product_search_drain();
  RETURN NULL;
END $$""",
    "CREATE CONSTRAINT TRIGGER product_search_drain AFTER INSERT ON product_search_dirty"
    " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION product_search_on_commit()",
    *[f"""CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_search_dirty (product_id) SELECT DISTINCT m.id FROM ({ids}) AS m(id)
  WHERE m.id IS NOT NULL ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$""" for name, ids in _MARKS.items()],
    *[f"CREATE TRIGGER {name} AFTER {event} ON {table} REFERENCING {tables}"
      f" FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
      for name, table, event, tables, function in _PG_TRIGGERS],
]
PG_DROP = [
    *[f"DROP TRIGGER {name} ON {table}" for name, table, *_ in _PG_TRIGGERS],
    "DROP TABLE product_search_dirty",
    f"DROP FUNCTION product_search_on_commit(), product_search_drain(), product_search_refresh(VARCHAR[]),"
    f" {', '.join(name + '()' for name in _MARKS)}",
    # 0022's functions and row triggers again (its first statements made the table and indexes).
    *[sql for sql in OLD.PG_CREATE if sql.startswith(("CREATE FUNCTION", "CREATE TRIGGER"))],
]


def _sqlite_mark(ids: str) -> str:
    """Note the products `ids` (a SELECT of a column `id`) for the pause's end. (Not INSERT OR IGNORE: see 0022.)"""
    return (f"INSERT INTO product_search_dirty (product_id) SELECT m.id FROM ({ids}) AS m"
            " WHERE m.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM product_search_dirty d WHERE d.product_id = m.id);")


_PAUSED = "EXISTS (SELECT 1 FROM product_search_pause)"
# (trigger, event, table, immediate rebuild's matches, the ids noted while paused, change condition)
_SQLITE_TRIGGERS = [
    ("product_search_product_insert", "INSERT", "product", ["= NEW.id"], ["SELECT NEW.id AS id"], ""),
    ("product_search_product_update", "UPDATE", "product", ["= NEW.id"], ["SELECT NEW.id AS id"], OLD._PRODUCT_CHANGED),
    ("product_search_product_delete", "DELETE", "product", ["= OLD.id"], ["SELECT OLD.id AS id"], ""),
    ("product_search_variant_insert", "INSERT", "product_variant", ["= NEW.product_id"],
     ["SELECT NEW.product_id AS id"], ""),
    ("product_search_variant_update", "UPDATE", "product_variant", ["= OLD.product_id", "= NEW.product_id"],
     ["SELECT OLD.product_id AS id", "SELECT NEW.product_id AS id"], OLD._VARIANT_CHANGED),
    ("product_search_variant_delete", "DELETE", "product_variant", ["= OLD.product_id"],
     ["SELECT OLD.product_id AS id"], ""),
    ("product_search_tag_link_insert", "INSERT", "product_tags", ["= NEW.product_id"], ["SELECT NEW.product_id AS id"], ""),
    ("product_search_tag_link_delete", "DELETE", "product_tags", ["= OLD.product_id"], ["SELECT OLD.product_id AS id"], ""),
    ("product_search_tag_update", "UPDATE", "product_tag",
     ["IN (SELECT product_id FROM product_tags WHERE product_tag_id = NEW.id)"],
     ["SELECT product_id AS id FROM product_tags WHERE product_tag_id = NEW.id"],
     "WHEN OLD.value IS NOT NEW.value OR OLD.deleted_at IS NOT NEW.deleted_at"),
]


def _when(condition: str, paused: bool) -> str:
    pause = _PAUSED if paused else f"NOT {_PAUSED}"
    return f"{condition} AND {pause}" if condition else f"WHEN {pause}"


SQLITE_CREATE = [
    *[f"DROP TRIGGER {name}" for name, *_ in _SQLITE_TRIGGERS],
    'CREATE TABLE "product_search_dirty" ("product_id" VARCHAR(64) PRIMARY KEY) WITHOUT ROWID',
    'CREATE TABLE "product_search_pause" ("batch" INTEGER NOT NULL)',
    OLD._sqlite_trigger("product_search_resume", "DELETE", "product_search_pause",
                        OLD._sqlite_refresh("IN (SELECT product_id FROM product_search_dirty)")
                        + " DELETE FROM product_search_dirty;"),
    *[OLD._sqlite_trigger(name, event, table, "".join(OLD._sqlite_refresh(m) for m in matches),
                          _when(condition, paused=False))
      for name, event, table, matches, _, condition in _SQLITE_TRIGGERS],
    *[OLD._sqlite_trigger(f"{name}_later", event, table, "".join(_sqlite_mark(i) for i in ids),
                          _when(condition, paused=True))
      for name, event, table, _, ids, condition in _SQLITE_TRIGGERS],
]
SQLITE_DROP = [
    *[f"DROP TRIGGER {sql.split()[2]}" for sql in SQLITE_CREATE if sql.startswith("CREATE TRIGGER")],
    "DROP TABLE product_search_pause", "DROP TABLE product_search_dirty",
    *[sql for sql in OLD.SQLITE_CREATE if sql.startswith("CREATE TRIGGER")],
]


class Migration(base.Migration):
    dependencies = [('models', '0025_catalogue_version')]

    initial = False

    operations = [base.PerDialect(PG_CREATE, PG_DROP, SQLITE_CREATE, SQLITE_DROP)]
