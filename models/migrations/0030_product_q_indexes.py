"""Indexes for the product lists' `q` at a big catalogue (tens of thousands of products, five
variants each). `q` is Medusa v1's substring match over the product's title and description, its
variants' titles and SKUs and its collection's title, one query per place in a union
(services/catalog/product_q.py); the ORM's `icontains` is `UPPER(CAST(col AS VARCHAR)) LIKE
UPPER('%…%')`.

On PostgreSQL a `pg_trgm` GIN index on that very expression, as migration 0029 gave the order
and customer searches, so each place `q` looks finds its few matching rows instead of testing
every product and variant (the extension comes with migration 0022). Collections are few: no
index. SQLite has no such index; an embedded shop is small.
"""

from models.migrations import _base as base

TRIGRAM = [
    ("product", "title"),
    ("product", "description"),
    ("product_variant", "title"),
    ("product_variant", "sku"),
]

PG_CREATE = [
    f'CREATE INDEX "{table}_{column}_trgm" ON "{table}" USING gin (UPPER(CAST("{column}" AS VARCHAR)) gin_trgm_ops)'
    for table, column in TRIGRAM
] + [
    # An index on an expression gets the expression's statistics at the table's next analysis; until
    # then the planner guesses a handful of matches for any `q` and may pick a poor join.
    'ANALYZE "product"', 'ANALYZE "product_variant"',
]
PG_DROP = [f'DROP INDEX "{table}_{column}_trgm"' for table, column in TRIGRAM]


class Migration(base.Migration):
    dependencies = [("models", "0029_list_indexes")]

    operations = [base.PerDialect(PG_CREATE, PG_DROP, [], [])]
