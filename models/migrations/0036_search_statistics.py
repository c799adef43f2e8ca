"""Finer statistics for the substring searches' expressions (`UPPER(CAST(col AS VARCHAR))`, the
trigram indexes of migrations 0029 and 0030), so the planner knows how many rows a `q` matches.

PostgreSQL guesses how many rows `LIKE '%smith%'` matches by trying the pattern on the
expression's histogram: with the default 100 buckets, a word that 3 % of a million orders' e-mails
hold can miss every bucket, and the guess falls to its floor (0.01 %: 100 orders). The order search
then read all 30,000 matches through the trigram index and sorted them for a page of 15 (450 ms),
where walking the date index finds them in a few hundred rows (6 ms). With 1,000 buckets the guess
was 32,032 for 30,356 matches and 4,004 for 3,680. Each table's statistics are taken again here.

SQLite has no such index and no such statistics.
"""

from models.migrations import _base as base

EXPRESSION_INDEXES = [
    ("orders", "orders_email_trgm"), ("customer", "customer_email_trgm"), ("customer", "customer_first_name_trgm"),
    ("customer", "customer_last_name_trgm"), ("customer", "customer_phone_trgm"), ("address", "address_first_name_trgm"),
    ("product", "product_title_trgm"), ("product", "product_description_trgm"),
    ("product_variant", "product_variant_title_trgm"), ("product_variant", "product_variant_sku_trgm"),
]
BUCKETS = 1000

PG_FINER = [f'ALTER INDEX "{index}" ALTER COLUMN 1 SET STATISTICS {BUCKETS}' for _, index in EXPRESSION_INDEXES] + [
    f'ANALYZE "{table}"' for table in dict.fromkeys(table for table, _ in EXPRESSION_INDEXES)
]
PG_DEFAULT = [f'ALTER INDEX "{index}" ALTER COLUMN 1 SET STATISTICS -1' for _, index in EXPRESSION_INDEXES]


class Migration(base.Migration):
    dependencies = [("models", "0035_display_id_sequence")]

    operations = [base.PerDialect(PG_FINER, PG_DEFAULT, [], [])]
