"""Fulfillment providers: the registry and the built-in `manual` provider."""

import pytest

from models import FulfillmentProvider
from services import fulfillment
from services.core.errors import NotFound
from services.store.defaults import BUILTIN_FULFILLMENT_PROVIDERS, ensure_defaults


async def test_every_built_in_provider_has_a_row_after_the_defaults_and_an_implementation():
    await FulfillmentProvider.all().delete()
    await ensure_defaults()
    rows = set(await FulfillmentProvider.all().values_list("id", flat=True))
    assert rows == set(BUILTIN_FULFILLMENT_PROVIDERS) == {"manual"}
    assert all(fulfillment.is_registered(provider_id) for provider_id in rows)


async def test_the_manual_provider_offers_medusas_options_and_cannot_calculate_prices():
    manual = fulfillment.get_provider("manual")
    options = await manual.fulfillment_options()
    assert options == [{"id": "manual-fulfillment"}, {"id": "manual-fulfillment-return", "is_return": True}]
    options[0]["id"] = "changed"  # an answer is the caller's own copy
    assert (await manual.fulfillment_options())[0]["id"] == "manual-fulfillment"
    assert await manual.validate_option({"id": "manual-fulfillment"}) is True
    assert await manual.can_calculate({"id": "manual-fulfillment"}) is False
    assert await manual.validate_fulfillment_data({"id": "manual-fulfillment"}, {"note": "x"}) == {"note": "x"}


async def test_a_registered_provider_is_found_by_its_id_until_unregistered():
    class Courier:
        id = "courier"

        async def fulfillment_options(self):
            return [{"id": "next-day"}]

    fulfillment.register(Courier())
    try:
        assert await fulfillment.get_provider("courier").fulfillment_options() == [{"id": "next-day"}]
    finally:
        fulfillment.unregister("courier")
    with pytest.raises(NotFound, match="Could not find a fulfillment provider with id: courier"):
        fulfillment.get_provider("courier")
