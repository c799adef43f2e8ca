from models.migrations import _base as base
from tortoise.migrations import operations as ops
from tortoise import fields

# Medusa 1.20's tax-inclusive pricing: a line item and a shipping method record whether the price
# they were made from already held its tax (`includes_tax`), so totals computed later (the order,
# its returns, swaps, claims and edits) take the tax out of the price instead of adding it on top.
# Currencies, regions, price lists and shipping options already carry the flag.

class Migration(base.Migration):
    dependencies = [('models', '0027_customer_list_version')]

    initial = False

    operations = [
        ops.AddField(
            model_name='LineItem',
            name='includes_tax',
            field=fields.BooleanField(default=False),
        ),
        ops.AddField(
            model_name='ShippingMethod',
            name='includes_tax',
            field=fields.BooleanField(default=False),
        ),
    ]
