"""The GIN indexes of the searches (the product search's, migration 0022; the order and customer
searches', 0029; the product list's `q`, 0030) take their new rows at once, not through a pending
list (PostgreSQL's `fastupdate`, on by default).

With the pending list, a row written to an indexed table goes to an unsorted list that every
search then reads whole, until a vacuum or the list's limit (`gin_pending_list_limit`, 4 MB)
merges it into the index. A shop keeps about that much pending most of the time: at 100,000
orders moved in, the order search by e-mail read 513 pending pages, 200 ms a search, where the
merged index answers in 2 ms. Written through, an insert updates the index itself: a few
trigrams' entries, fractions of a millisecond, on writes that are far fewer than searches. What
is pending now is merged here.

SQLite has no such index.
"""

from models.migrations import _base as base

GIN_INDEXES = [
    "product_search_tsv", "product_search_trgm",
    "orders_email_trgm", "customer_email_trgm", "customer_first_name_trgm", "customer_last_name_trgm",
    "customer_phone_trgm", "address_first_name_trgm",
    "product_title_trgm", "product_description_trgm", "product_variant_title_trgm", "product_variant_sku_trgm",
]

PG_WRITE_THROUGH = [f'ALTER INDEX "{name}" SET (fastupdate = off)' for name in GIN_INDEXES] + [
    f"SELECT gin_clean_pending_list('\"{name}\"'::regclass)" for name in GIN_INDEXES
]
PG_PENDING_LIST = [f'ALTER INDEX "{name}" RESET (fastupdate)' for name in GIN_INDEXES]


class Migration(base.Migration):
    dependencies = [("models", "0032_maintenance_indexes")]

    operations = [base.PerDialect(PG_WRITE_THROUGH, PG_PENDING_LIST, [], [])]
