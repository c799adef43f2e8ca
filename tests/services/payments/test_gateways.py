"""Payment providers beyond the built-in ones: Stripe's (the built-in plugin's) when its key is
set, and any a plugin offers (services/core/plugins.py Providers.payment)."""

from __future__ import annotations

from models import PaymentProvider as ProviderRow
from services import payments, setup
from services.core.plugins import Plugin, Providers
from services.payments import gateways
from tests.conftest import configured


class GiftVoucherProvider:
    """A gateway a shop's own package would ship (the interface of services/payments/__init__.py)."""

    id = "voucher"

    async def initiate(self, amount, cart, *, idempotency_key=None):
        return {"status": "pending"}


voucher = Plugin("voucher", "1.0", providers=lambda ctx: Providers(payment=(GiftVoucherProvider(),)))
stays_off = Plugin("stays_off", "1.0", providers=lambda ctx: None)


async def test_a_gateway_a_plugin_offers_is_registered_and_installed_while_the_plugin_is_on(installed_plugins):
    installed_plugins(voucher=f"{__name__}:voucher", stays_off=f"{__name__}:stays_off")
    with configured(plugins=("voucher", "stays_off")):
        assert payments.is_registered("voucher") and not payments.is_registered("stripe")
        await setup.install_providers()
        assert await ProviderRow.filter(id="voucher", is_installed=True).exists()
    # Turned off (PLUGINS without it), its gateway is gone and its row says so at the next start
    assert not payments.is_registered("voucher")
    await setup.install_providers()
    assert await ProviderRow.filter(id="voucher", is_installed=False).exists()


async def test_installed_but_not_named_in_plugins_a_plugin_stays_off(installed_plugins):
    installed_plugins(voucher=f"{__name__}:voucher")
    with configured():
        assert not payments.is_registered("voucher")


async def test_stripe_is_registered_only_with_its_key():
    with configured(stripe_api_key="sk_test_x"):
        assert payments.is_registered("stripe") and payments.is_registered("stripe-ideal")
    assert not payments.is_registered("stripe")


async def test_a_provider_no_longer_configured_shows_as_not_installed():
    with configured(stripe_api_key="sk_test_x"):
        await gateways.install()
        assert await ProviderRow.filter(id="stripe", is_installed=True).exists()
    # The next start without STRIPE_API_KEY
    await gateways.install()
    assert await ProviderRow.filter(id="stripe", is_installed=False).exists()
    assert await ProviderRow.filter(id__in=["system", "manual"], is_installed=True).count() == 2
