from models.migrations import _base as base

# The product search index (services/catalog/search.py): one document per live product, written by
# triggers in the same transaction as the product, variant, tag or tag-link change, so every writer
# (services, imports, raw SQL) keeps it in step without knowing about it.
# Parts: head (title, handle) ranks above mid (subtitle, tags, variant titles and SKUs), above tail
# (description).
_TAGS = ("SELECT {agg}(t.value, ' ') FROM product_tags pt JOIN product_tag t ON t.id = pt.product_tag_id"
         " WHERE pt.product_id = p.id AND t.deleted_at IS NULL")
_VARIANTS = ("SELECT {agg}({cat}, ' ') FROM product_variant v"
             " WHERE v.product_id = p.id AND v.deleted_at IS NULL")

PG_CREATE = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    'CREATE TABLE "product_search" ("product_id" VARCHAR(64) PRIMARY KEY, "body" TEXT NOT NULL,'
    ' "tsv" TSVECTOR NOT NULL)',
    'CREATE INDEX "product_search_tsv" ON "product_search" USING gin ("tsv")',
    'CREATE INDEX "product_search_trgm" ON "product_search" USING gin ("body" gin_trgm_ops)',
    f"""CREATE FUNCTION product_search_refresh(pid VARCHAR) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_search WHERE product_id = pid;
  INSERT INTO product_search (product_id, body, tsv)
  SELECT p.id, concat_ws(' ', d.head, d.mid, d.tail),
         setweight(to_tsvector('simple', d.head), 'A') || setweight(to_tsvector('simple', d.mid), 'B')
         || setweight(to_tsvector('simple', d.tail), 'C')
  FROM product p CROSS JOIN LATERAL (SELECT
    concat_ws(' ', p.title, p.handle) AS head,
    concat_ws(' ', p.subtitle, ({_TAGS.format(agg='string_agg')}),
              ({_VARIANTS.format(agg='string_agg', cat="concat_ws(' ', v.title, v.sku)")})) AS mid,
    coalesce(p.description, '') AS tail) d
  WHERE p.id = pid AND p.deleted_at IS NULL;
END $$""",
    """CREATE FUNCTION product_search_on_product() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN PERFORM product_search_refresh(OLD.id); ELSE PERFORM product_search_refresh(NEW.id); END IF;
  RETURN NULL;
END $$""",
    """CREATE FUNCTION product_search_on_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM product_search_refresh(OLD.product_id); END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.product_id IS DISTINCT FROM OLD.product_id) THEN
    PERFORM product_search_refresh(NEW.product_id);
  END IF;
  RETURN NULL;
END $$""",
    """CREATE FUNCTION product_search_on_tag() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM product_search_refresh(pt.product_id) FROM product_tags pt WHERE pt.product_tag_id = NEW.id;
  RETURN NULL;
END $$""",
    "CREATE TRIGGER product_search_product_write AFTER INSERT OR DELETE ON product"
    " FOR EACH ROW EXECUTE FUNCTION product_search_on_product()",
    "CREATE TRIGGER product_search_product_change AFTER UPDATE ON product FOR EACH ROW WHEN ("
    "OLD.title IS DISTINCT FROM NEW.title OR OLD.subtitle IS DISTINCT FROM NEW.subtitle"
    " OR OLD.description IS DISTINCT FROM NEW.description OR OLD.handle IS DISTINCT FROM NEW.handle"
    " OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at) EXECUTE FUNCTION product_search_on_product()",
    "CREATE TRIGGER product_search_variant_write AFTER INSERT OR DELETE ON product_variant"
    " FOR EACH ROW EXECUTE FUNCTION product_search_on_row()",
    "CREATE TRIGGER product_search_variant_change AFTER UPDATE ON product_variant FOR EACH ROW WHEN ("
    "OLD.title IS DISTINCT FROM NEW.title OR OLD.sku IS DISTINCT FROM NEW.sku"
    " OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.product_id IS DISTINCT FROM NEW.product_id)"
    " EXECUTE FUNCTION product_search_on_row()",
    "CREATE TRIGGER product_search_tag_link AFTER INSERT OR DELETE ON product_tags"
    " FOR EACH ROW EXECUTE FUNCTION product_search_on_row()",
    "CREATE TRIGGER product_search_tag_change AFTER UPDATE ON product_tag FOR EACH ROW WHEN ("
    "OLD.value IS DISTINCT FROM NEW.value OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)"
    " EXECUTE FUNCTION product_search_on_tag()",
    "SELECT product_search_refresh(id) FROM product WHERE deleted_at IS NULL",
]
PG_DROP = [
    "DROP TABLE product_search",
    *[f"DROP TRIGGER {name} ON {table}" for name, table in (
        ("product_search_product_write", "product"), ("product_search_product_change", "product"),
        ("product_search_variant_write", "product_variant"), ("product_search_variant_change", "product_variant"),
        ("product_search_tag_link", "product_tags"), ("product_search_tag_change", "product_tag"))],
    "DROP FUNCTION product_search_on_product(), product_search_on_row(), product_search_on_tag(),"
    " product_search_refresh(VARCHAR)",
]


def _sqlite_refresh(match: str) -> str:
    """SQLite triggers call no functions: each repeats the refresh for the products whose id
    `match`es ("= NEW.id", "IN (...)"). The FTS5 rowid is product_search_key's INTEGER PRIMARY
    KEY, which VACUUM keeps."""
    # (Not INSERT OR IGNORE: an outer statement's conflict policy, e.g. an upsert's, overrides a trigger's.)
    return f"""INSERT INTO product_search_key (product_id) SELECT id FROM product WHERE id {match}
    AND id NOT IN (SELECT product_id FROM product_search_key);
  DELETE FROM product_search WHERE rowid IN (SELECT rowid FROM product_search_key WHERE product_id {match});
  INSERT INTO product_search (rowid, head, mid, tail)
  SELECT k.rowid, coalesce(p.title, '') || ' ' || coalesce(p.handle, ''),
    coalesce(p.subtitle, '') || ' ' || coalesce(({_TAGS.format(agg='group_concat')}), '') || ' '
    || coalesce(({_VARIANTS.format(agg='group_concat', cat="coalesce(v.title, '') || ' ' || coalesce(v.sku, '')")}), ''),
    coalesce(p.description, '')
  FROM product p JOIN product_search_key k ON k.product_id = p.id WHERE p.id {match} AND p.deleted_at IS NULL;"""


def _sqlite_trigger(name: str, when: str, table: str, body: str, condition: str = "") -> str:
    return f"CREATE TRIGGER {name} AFTER {when} ON {table} FOR EACH ROW {condition} BEGIN {body} END"


_PRODUCT_CHANGED = ("WHEN OLD.title IS NOT NEW.title OR OLD.subtitle IS NOT NEW.subtitle"
                    " OR OLD.description IS NOT NEW.description OR OLD.handle IS NOT NEW.handle"
                    " OR OLD.deleted_at IS NOT NEW.deleted_at")
_VARIANT_CHANGED = ("WHEN OLD.title IS NOT NEW.title OR OLD.sku IS NOT NEW.sku"
                    " OR OLD.deleted_at IS NOT NEW.deleted_at OR OLD.product_id IS NOT NEW.product_id")
SQLITE_CREATE = [
    'CREATE TABLE "product_search_key" ("rowid" INTEGER PRIMARY KEY, "product_id" VARCHAR(64) NOT NULL UNIQUE)',
    # Prefix indexes of 2 and 3 characters make a shopper's first letters cheap to match.
    "CREATE VIRTUAL TABLE product_search USING fts5(head, mid, tail,"
    " tokenize='unicode61 remove_diacritics 2', prefix='2 3')",
    _sqlite_trigger("product_search_product_insert", "INSERT", "product", _sqlite_refresh("= NEW.id")),
    _sqlite_trigger("product_search_product_update", "UPDATE", "product", _sqlite_refresh("= NEW.id"),
                    _PRODUCT_CHANGED),
    _sqlite_trigger("product_search_product_delete", "DELETE", "product", _sqlite_refresh("= OLD.id")),
    _sqlite_trigger("product_search_variant_insert", "INSERT", "product_variant", _sqlite_refresh("= NEW.product_id")),
    _sqlite_trigger("product_search_variant_update", "UPDATE", "product_variant",
                    _sqlite_refresh("= OLD.product_id") + _sqlite_refresh("= NEW.product_id"), _VARIANT_CHANGED),
    _sqlite_trigger("product_search_variant_delete", "DELETE", "product_variant", _sqlite_refresh("= OLD.product_id")),
    _sqlite_trigger("product_search_tag_link_insert", "INSERT", "product_tags", _sqlite_refresh("= NEW.product_id")),
    _sqlite_trigger("product_search_tag_link_delete", "DELETE", "product_tags", _sqlite_refresh("= OLD.product_id")),
    _sqlite_trigger(
        "product_search_tag_update", "UPDATE", "product_tag",
        _sqlite_refresh("IN (SELECT product_id FROM product_tags WHERE product_tag_id = NEW.id)"),
        "WHEN OLD.value IS NOT NEW.value OR OLD.deleted_at IS NOT NEW.deleted_at"),
    # The products already there, indexed as the triggers would.
    *[sql.strip() for sql in _sqlite_refresh("IN (SELECT id FROM product)").split(";") if sql.strip()],
]
SQLITE_DROP = [
    *[f"DROP TRIGGER {sql.split()[2]}" for sql in SQLITE_CREATE if sql.startswith("CREATE TRIGGER")],
    "DROP TABLE product_search", "DROP TABLE product_search_key",
]


class Migration(base.Migration):
    dependencies = [('models', '0021_analytics_configs')]

    initial = False

    operations = [base.PerDialect(PG_CREATE, PG_DROP, SQLITE_CREATE, SQLITE_DROP)]
