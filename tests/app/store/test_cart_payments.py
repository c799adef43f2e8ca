"""Store carts' payment sessions: create, select, update, delete,
refresh, the medusa-js checkout flow up to a selected provider, and the re-sync that keeps the
sessions on the cart's taxed total through every change."""

from __future__ import annotations

from datetime import datetime, timezone

from models import Cart, PaymentProvider, PaymentSession, Region
from services.payments import get_provider
from services.regions.parts import touch_region
from tests.cart_factories import (
    add_item, discount, gift_card, manual_tax_region, new_cart, region_price, ship, update_cart,
)

ADDRESS = {"first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Boston",
           "country_code": "us", "postal_code": "02110"}


async def ready_cart(client, region: str = "NA") -> dict:
    """A cart with a line, an email, a shipping address and a shipping method."""
    cart = await new_cart(client, region, {"variant_cap_black": 1})
    cart = await update_cart(client, cart, email="jane@example.com", shipping_address=ADDRESS)
    return await ship(client, cart)


async def offer_system_too(region: str = "NA") -> None:
    await (await Region.get(name=region)).payment_providers.add(await PaymentProvider.get(id="system"))


async def post(client, path: str, body: dict | None = None):
    return await client.post(path, json=body or {})


async def test_the_medusa_js_checkout_flow_ends_with_manual_selected(client, seeded):
    # Given a cart ready to pay in NA, whose region offers only `manual`
    cart = await ready_cart(client)
    # When the storefront creates the payment sessions, then selects manual
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert r.status_code == 200, r.text
    assert set(r.json()) == {"cart"}
    created = r.json()["cart"]
    r = await post(client, f"/store/carts/{cart['id']}/payment-session", {"provider_id": "manual"})
    # I expect manual to be the cart's selected session, initiated for the cart's total
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    assert cart["payment_session"]["provider_id"] == "manual"
    assert [s["provider_id"] for s in cart["payment_sessions"]] == ["manual"]
    session = cart["payment_session"]
    assert session["is_selected"] is True and session["is_initiated"] is True and session["status"] == "pending"
    assert session["amount"] == cart["total"] > 0 and session["data"] == {"status": "pending"}
    assert session["id"].startswith("ps_") and created["payment_session"]["id"] == session["id"]


async def test_a_region_with_one_provider_gets_it_selected_at_once(client, seeded):
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    cart = r.json()["cart"]
    assert cart["payment_session"]["provider_id"] == "manual"
    assert cart["payment_session"]["is_initiated"] is True


async def test_a_region_with_two_providers_gets_one_unselected_session_each(client, seeded):
    await offer_system_too()
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    cart = r.json()["cart"]
    assert cart["payment_session"] is None
    sessions = {s["provider_id"]: s for s in cart["payment_sessions"]}
    assert set(sessions) == {"manual", "system"}
    assert all(s["is_selected"] is None and s["is_initiated"] is False and s["data"] == {} for s in sessions.values())
    assert all(s["amount"] == cart["total"] for s in sessions.values())


async def test_creating_sessions_twice_keeps_one_per_provider(client, seeded):
    await offer_system_too()
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert sorted(s["provider_id"] for s in r.json()["cart"]["payment_sessions"]) == ["manual", "system"]
    assert await PaymentSession.filter(cart_id=cart["id"]).count() == 2


async def test_selecting_another_provider_moves_the_selection(client, seeded):
    # Given a cart whose shopper picked manual
    await offer_system_too()
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    await post(client, f"/store/carts/{cart['id']}/payment-session", {"provider_id": "manual"})
    # When they switch to system
    r = await post(client, f"/store/carts/{cart['id']}/payment-session", {"provider_id": "system"})
    # I expect system alone to be selected, and manual back to a local session
    assert r.status_code == 200, r.text
    cart = r.json()["cart"]
    sessions = {s["provider_id"]: s for s in cart["payment_sessions"]}
    assert cart["payment_session"]["provider_id"] == "system"
    assert sessions["system"]["is_selected"] is True and sessions["manual"]["is_selected"] is None
    assert sessions["manual"]["is_initiated"] is False


async def test_the_session_amount_follows_the_cart_total(client, seeded):
    # Given a cart paying with manual
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    # When a line is added and the sessions are created again
    bigger = await add_item(client, cart, "variant_cap_black", 2)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    # I expect the selected session to be for the new total
    cart = r.json()["cart"]
    assert cart["total"] == bigger["total"] > 0
    assert cart["payment_session"]["amount"] == cart["total"]
    assert cart["payment_session"]["provider_id"] == "manual"


async def test_a_cart_with_nothing_to_pay_has_no_session(client, seeded):
    cart = await new_cart(client, "NA")
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert r.status_code == 200
    assert r.json()["cart"]["payment_sessions"] == [] and r.json()["cart"]["payment_session"] is None


async def test_sessions_of_a_cart_emptied_are_removed(client, seeded):
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    line = cart["items"][0]
    await client.delete(f"/store/carts/{cart['id']}/line-items/{line['id']}")
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert r.json()["cart"]["payment_sessions"] == []


async def test_a_provider_the_region_dropped_loses_its_session(client, seeded):
    await offer_system_too()
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    region = await Region.get(name="NA")
    await region.payment_providers.remove(await PaymentProvider.get(id="system"))
    await touch_region(region.id)  # as the admin's change of a region's providers does
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert [s["provider_id"] for s in r.json()["cart"]["payment_sessions"]] == ["manual"]


async def test_an_unknown_cart_is_not_found(client, seeded):
    for method, path, body in (
        ("post", "/payment-sessions", {}), ("post", "/payment-session", {"provider_id": "manual"}),
        ("post", "/payment-sessions/manual", {"data": {}}), ("delete", "/payment-sessions/manual", None),
        ("post", "/payment-sessions/manual/refresh", {}),
    ):
        if method == "post":
            r = await client.post(f"/store/carts/cart_missing{path}", json=body)
        else:
            r = await client.delete(f"/store/carts/cart_missing{path}")
        assert r.status_code == 404, (path, r.text)
        assert r.json()["type"] == "not_found"


async def test_a_provider_the_region_does_not_offer_cannot_be_selected(client, seeded):
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    r = await post(client, f"/store/carts/{cart['id']}/payment-session", {"provider_id": "stripe"})
    assert r.status_code == 400
    assert r.json()["type"] == "not_allowed"
    assert r.json()["message"] == "The payment method is not available in this region"


async def test_system_can_be_selected_in_any_region(client, seeded):
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    r = await post(client, f"/store/carts/{cart['id']}/payment-session", {"provider_id": "system"})
    assert r.status_code == 200, r.text
    assert r.json()["cart"]["payment_session"]["provider_id"] == "system"


async def test_a_region_provider_without_an_installed_gateway_is_not_found(client, seeded):
    await (await Region.get(name="NA")).payment_providers.add(await PaymentProvider.create(id="stripe"))
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-session", {"provider_id": "stripe"})
    assert r.status_code == 404
    assert r.json()["message"] == "Could not find a payment provider with id: stripe"


async def test_selecting_needs_a_provider_id(client, seeded):
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-session", {})
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


async def test_updating_a_session_selects_it_and_merges_its_data(client, seeded):
    await offer_system_too()
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions/manual", {"data": {"note": "cash"}})
    assert r.status_code == 200, r.text
    session = r.json()["cart"]["payment_session"]
    assert session["provider_id"] == "manual" and session["data"] == {"status": "pending", "note": "cash"}


async def test_updating_a_session_needs_a_data_object(client, seeded):
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions/manual", {"data": "cash"})
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"


async def test_deleting_a_session_removes_it_and_deleting_again_is_no_error(client, seeded):
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    for _ in range(2):
        r = await client.delete(f"/store/carts/{cart['id']}/payment-sessions/manual")
        assert r.status_code == 200, r.text
        assert r.json()["cart"]["payment_sessions"] == [] and r.json()["cart"]["payment_session"] is None


async def test_refreshing_the_selected_session_starts_it_again_and_keeps_it_selected(client, seeded):
    # Given a cart paying with manual, whose session data the shopper changed
    cart = await ready_cart(client)
    first = (await post(client, f"/store/carts/{cart['id']}/payment-sessions")).json()["cart"]["payment_session"]
    await post(client, f"/store/carts/{cart['id']}/payment-sessions/manual", {"data": {"note": "cash"}})
    # When the storefront refreshes it
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions/manual/refresh")
    # I expect a new initiated session, still selected (Medusa v1 deselects it)
    assert r.status_code == 200, r.text
    session = r.json()["cart"]["payment_session"]
    assert session["provider_id"] == "manual" and session["id"] != first["id"]
    assert session["is_selected"] is True and session["is_initiated"] is True
    assert session["data"] == {"status": "pending"} and session["amount"] == r.json()["cart"]["total"]


async def test_refreshing_an_unselected_session_updates_its_amount_only(client, seeded):
    await offer_system_too()
    cart = await ready_cart(client)
    before = (await post(client, f"/store/carts/{cart['id']}/payment-sessions")).json()["cart"]
    await PaymentSession.filter(cart_id=cart["id"], provider_id="system").update(amount=1)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions/system/refresh")
    assert r.status_code == 200, r.text
    sessions = {s["provider_id"]: s for s in r.json()["cart"]["payment_sessions"]}
    assert sessions["system"]["amount"] == before["total"] and sessions["system"]["is_selected"] is None
    assert sessions["system"]["id"] == next(s["id"] for s in before["payment_sessions"] if s["provider_id"] == "system")


async def test_refreshing_a_missing_session_is_not_found(client, seeded):
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions/manual/refresh")
    assert r.status_code == 404


async def test_a_completed_cart_cannot_change_its_payment(client, seeded):
    cart = await ready_cart(client)
    await Cart.filter(id=cart["id"]).update(completed_at=datetime.now(timezone.utc))
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert r.status_code == 400 and r.json()["type"] == "not_allowed"


# ---------------------------------------------------------------- re-sync


async def sessions_of(cart_id: str) -> dict[str, PaymentSession]:
    return {s.provider_id: s for s in await PaymentSession.filter(cart_id=cart_id)}


async def test_the_session_amount_follows_every_change_of_the_total(client, seeded):
    # Given a cart paying with manual, and a discount code
    await discount("TENOFF")
    card = await gift_card(300)
    cart = await ready_cart(client)
    cart = (await post(client, f"/store/carts/{cart['id']}/payment-sessions")).json()["cart"]
    base = f"/store/carts/{cart['id']}"
    # When the cart changes in every way that moves its total
    changes = {
        "add a line": lambda: client.post(f"{base}/line-items", json={"variant_id": "variant_mug_white", "quantity": 2}),
        "update a line": lambda: client.post(f"{base}/line-items/{cart['items'][0]['id']}", json={"quantity": 3}),
        "apply a discount": lambda: client.post(base, json={"discounts": [{"code": "TENOFF"}]}),
        "remove the discount": lambda: client.delete(f"{base}/discounts/TENOFF"),
        "add a shipping method": lambda: client.post(f"{base}/shipping-methods", json={"option_id": shipping}),
        "apply a gift card": lambda: client.post(base, json={"gift_cards": [{"code": card.code}]}),
        "delete a line": lambda: client.delete(f"{base}/line-items/{cart['items'][0]['id']}"),
    }
    shipping = cart["shipping_methods"][0]["shipping_option_id"]
    totals = [cart["total"]]
    for name, change in changes.items():
        r = await change()
        assert r.status_code == 200, (name, r.text)
        cart = r.json()["cart"]
        # I expect the selected session to be for the new total, every time
        assert cart["payment_session"]["amount"] == cart["total"] > 0, name
        assert (await sessions_of(cart["id"]))["manual"].amount == cart["total"], name
        assert cart["total"] != totals[-1], name
        totals.append(cart["total"])


async def test_the_gateway_hears_of_a_session_only_when_its_amount_changed(client, seeded, monkeypatch):
    # Given a cart whose manual session is initiated and selected, and a gateway that records calls
    cart = await ready_cart(client)
    await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    manual, calls = get_provider("manual"), []
    original = manual.update_amount

    async def recording(session, amount, cart):
        calls.append(amount)
        return await original(session, amount, cart)

    monkeypatch.setattr(manual, "update_amount", recording)
    before = (await sessions_of(cart["id"]))["manual"]
    # When the cart changes in ways that leave its total alone
    await update_cart(client, cart, context={"note": "gift"}, email="jane@example.com")
    await update_cart(client, cart, shipping_address={"first_name": "Janet"})
    # I expect no call to the gateway and the session row untouched
    assert calls == []
    after = (await sessions_of(cart["id"]))["manual"]
    assert (after.amount, after.updated_at, after.data) == (before.amount, before.updated_at, before.data)
    # When the total does change, the gateway hears of it once, with the new amount
    bigger = await add_item(client, cart, "variant_cap_black", 1)
    assert calls == [bigger["total"]]


async def test_a_cart_with_nothing_left_to_pay_loses_its_sessions(client, seeded):
    # Given a cart with sessions for two providers
    await offer_system_too()
    cart = await ready_cart(client)
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    assert len(r.json()["cart"]["payment_sessions"]) == 2
    # When a gift card covers the whole cart
    card = await gift_card(1_000_000)
    cart = await update_cart(client, cart, gift_cards=[{"code": card.code}])
    # I expect a total of 0 and no session left
    assert cart["total"] == 0
    assert cart["payment_sessions"] == [] and cart["payment_session"] is None
    assert await PaymentSession.filter(cart_id=cart["id"]).count() == 0


async def test_sessions_of_a_region_without_automatic_taxes_are_for_the_taxed_total(client, seeded):
    # Given a manual-tax region (12 %) and a cap at 100 there
    await manual_tax_region("Manual", 12)
    await region_price("variant_cap_black", "Manual", 100)
    cart = await new_cart(client, "Manual", {"variant_cap_black": 1})
    assert (cart["tax_total"], cart["total"]) == (0, 100)
    # When the sessions are created, then a second cap is added
    r = await post(client, f"/store/carts/{cart['id']}/payment-sessions")
    # I expect the session for the total with its taxes, though the cart shows none
    body = r.json()["cart"]
    assert body["total"] == 100 and body["payment_session"]["amount"] == 112
    cart = await add_item(client, cart, "variant_cap_black", 1)
    assert cart["total"] == 200 and cart["payment_session"]["amount"] == 224
