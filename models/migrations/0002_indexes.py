"""Partial unique indexes (live rows only, so a soft-deleted row frees its value) and indexes on
the foreign keys that reads follow; written as SQL that SQLite and PostgreSQL both accept."""

from models.migrations import _base as base
from tortoise.migrations import operations as ops

UNIQUE_LIVE = [
    ("user_email_live", "user", "email"),
    ("customer_email_account_live", "customer", "email, has_account"),
    ("customer_group_name_live", "customer_group", "name"),
    ("product_handle_live", "product", "handle"),
    ("product_variant_sku_live", "product_variant", "sku"),
    ("product_collection_handle_live", "product_collection", "handle"),
]

FOREIGN_KEYS = [
    ("product_variant", "product_id"),
    ("product_option", "product_id"),
    ("product_option_value", "variant_id"),
    ("product_option_value", "option_id"),
    ("money_amount", "variant_id"),
    ("product", "collection_id"),
    ("product", "type_id"),
    ("product_tags", "product_id"),
    ("product_images", "product_id"),
    ("product_sales_channel", "product_id"),
    ("product_sales_channel", "sales_channel_id"),
    ("country", "region_id"),
    ("address", "customer_id"),
    ("customer_group_customers", "customer_id"),
    ("customer_group_customers", "customer_group_id"),
    ("region_payment_providers", "region_id"),
    ("region_fulfillment_providers", "region_id"),
    ("store_currencies", "store_id"),
    ("tax_rate", "region_id"),
    ("shipping_option", "region_id"),
    ("shipping_option_requirement", "shipping_option_id"),
]


def _forward() -> list[str]:
    sql = [
        f'CREATE UNIQUE INDEX "{name}" ON "{table}" ({cols}) WHERE deleted_at IS NULL'
        for name, table, cols in UNIQUE_LIVE
    ]
    sql += [f'CREATE INDEX "ix_{table}_{col}" ON "{table}" ("{col}")' for table, col in FOREIGN_KEYS]
    return sql


def _reverse() -> list[str]:
    return [f'DROP INDEX "{name}"' for name, _, _ in UNIQUE_LIVE] + [
        f'DROP INDEX "ix_{table}_{col}"' for table, col in FOREIGN_KEYS
    ]


class Migration(base.Migration):
    dependencies = [("models", "0001_initial")]

    operations = [ops.RunSQL(_forward(), reverse_sql=_reverse())]
