"""Payment providers beyond the built-in ones: Stripe when its key is set, and any provider a
package declares in the `commerce.payment_providers` entry-point group."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from models import PaymentProvider as ProviderRow
from services import payments
from services.payments import gateways
from tests.conftest import settings


class GiftVoucherProvider:
    """A gateway a shop's own package would ship (the interface of services/payments/__init__.py)."""

    id = "voucher"

    async def initiate(self, amount, cart, *, idempotency_key=None):
        return {"status": "pending"}


def make_voucher(settings):
    return GiftVoucherProvider()


def stay_off(settings):
    return None


@pytest.fixture
def declared(monkeypatch):
    """The entry points a shop's installed package would declare in pyproject.toml."""
    # One that answers a provider, one that stays off, one that fails to load (logged, skipped).
    declared = [EntryPoint("voucher", f"{__name__}:make_voucher", gateways.ENTRY_POINT_GROUP),
                EntryPoint("off", f"{__name__}:stay_off", gateways.ENTRY_POINT_GROUP),
                EntryPoint("broken", f"{__name__}:no_such_function", gateways.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(gateways, "entry_points",
                        lambda group: declared if group == gateways.ENTRY_POINT_GROUP else [])
    yield
    payments.unregister("voucher")


async def test_a_provider_of_the_entry_point_group_is_registered_and_installed(declared):
    gateways.configure(settings())
    assert payments.is_registered("voucher") and not payments.is_registered("stripe")
    await gateways.install()
    assert await ProviderRow.filter(id="voucher", is_installed=True).exists()


async def test_stripe_is_registered_only_with_its_key():
    try:
        gateways.configure(settings(stripe_api_key="sk_test_x"))
        assert payments.is_registered("stripe")
    finally:
        gateways.configure(settings())
    assert not payments.is_registered("stripe")


async def test_a_provider_no_longer_configured_shows_as_not_installed():
    gateways.configure(settings(stripe_api_key="sk_test_x"))
    try:
        await gateways.install()
        assert await ProviderRow.filter(id="stripe", is_installed=True).exists()
    finally:
        gateways.configure(settings())
    # The next start without STRIPE_API_KEY
    await gateways.install()
    assert await ProviderRow.filter(id="stripe", is_installed=False).exists()
    assert await ProviderRow.filter(id__in=["system", "manual"], is_installed=True).count() == 2
