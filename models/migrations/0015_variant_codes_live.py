"""Barcode, EAN and UPC each belong to one live variant, as the SKU already does (0002): the
checks of services/catalog/product_rules.py, made safe against a concurrent request. Medusa v1
has no such index; a database holding duplicates must settle them before this applies."""

from models.migrations import _base as base
from tortoise.migrations import operations as ops

CODES = ("barcode", "ean", "upc")


class Migration(base.Migration):
    dependencies = [("models", "0014_fulfilment_returns")]

    operations = [ops.RunSQL(
        [f'CREATE UNIQUE INDEX "product_variant_{c}_live" ON "product_variant" ("{c}") WHERE deleted_at IS NULL'
         for c in CODES],
        reverse_sql=[f'DROP INDEX "product_variant_{c}_live"' for c in CODES],
    )]
