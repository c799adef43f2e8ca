from models.migrations import _base as base
from tortoise.migrations import operations as ops
from tortoise import fields

# Every amount, price, total and balance becomes a 64-bit integer (sums past 2^31 - 1 overflowed).
# (table, column) of each money column, as the models name them.
AMOUNTS = (
    ("discount_rule", "value"), ("gift_card", "value"), ("gift_card", "balance"),
    ("gift_card_transaction", "amount"), ("line_item", "unit_price"), ("line_item_adjustment", "amount"),
    ("money_amount", "amount"), ("payment", "amount"), ("payment", "amount_refunded"),
    ("payment_collection", "amount"), ("payment_collection", "authorized_amount"),
    ("payment_collection_session", "amount"), ("payment_session", "amount"), ("shipping_method", "price"),
    ("shipping_option", "amount"), ("shipping_option_requirement", "amount"),
)


def _alter(kind: str) -> list[str]:
    """One ALTER TABLE per table, so PostgreSQL rewrites each table once."""
    tables: dict[str, list[str]] = {}
    for table, column in AMOUNTS:
        tables.setdefault(table, []).append(f'ALTER COLUMN "{column}" TYPE {kind}')
    return [f'ALTER TABLE "{table}" {", ".join(parts)}' for table, parts in tables.items()]


class AlterFieldState(ops.AlterField):
    """The model state only: the columns change in WidenColumns below."""

    reads_old_state = False  # no copy of the state before it (models/migrations/_base.py)

    async def database_forward(self, *args, **kwargs) -> None:
        return None

    async def database_backward(self, *args, **kwargs) -> None:
        return None


class WidenColumns(ops.RunSQL):
    """PostgreSQL only: SQLite's INTEGER already holds 64 bits, and Tortoise's AlterField there
    rebuilds the table (dropping its indexes, cascading deletes through foreign keys)."""

    async def _run_sql(self, state_editor, sqls) -> None:
        if state_editor.client.capabilities.dialect == "sqlite":
            return
        await super()._run_sql(state_editor, sqls)


class Migration(base.Migration):
    dependencies = [('models', '0009_order_edits')]

    initial = False

    operations = [
        AlterFieldState(
            model_name='DiscountRule',
            name='value',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='GiftCard',
            name='balance',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='GiftCard',
            name='value',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='GiftCardTransaction',
            name='amount',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='LineItem',
            name='unit_price',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='LineItemAdjustment',
            name='amount',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='MoneyAmount',
            name='amount',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='Payment',
            name='amount',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='Payment',
            name='amount_refunded',
            field=fields.BigIntField(default=0),
        ),
        AlterFieldState(
            model_name='PaymentCollection',
            name='amount',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='PaymentCollection',
            name='authorized_amount',
            field=fields.BigIntField(null=True),
        ),
        AlterFieldState(
            model_name='PaymentCollectionSession',
            name='amount',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='PaymentSession',
            name='amount',
            field=fields.BigIntField(null=True),
        ),
        AlterFieldState(
            model_name='ShippingMethod',
            name='price',
            field=fields.BigIntField(),
        ),
        AlterFieldState(
            model_name='ShippingOption',
            name='amount',
            field=fields.BigIntField(null=True),
        ),
        AlterFieldState(
            model_name='ShippingOptionRequirement',
            name='amount',
            field=fields.BigIntField(),
        ),
        WidenColumns(_alter("BIGINT"), reverse_sql=_alter("INTEGER")),
    ]
