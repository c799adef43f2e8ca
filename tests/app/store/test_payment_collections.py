"""Store payment collections (Medusa v1's `/store/payment-collections`, as far as an order edit's
amount due needs them): read one, start a session for a provider, authorize it."""

from __future__ import annotations

from models import Payment, PaymentCollection, PaymentProvider, Region
from services.payments import register
from tests.order_edit_factories import pay, requested_edit


class DecliningProvider:
    """A gateway that turns every authorization down."""

    id = "test-declining"

    async def initiate(self, amount, cart):
        return {"attempts": 0}

    async def authorize(self, session):
        return "error", {"declined": True}

    async def delete(self, session):
        return None


register(DecliningProvider())


def refused(r, status: int, kind: str, message: str | None = None) -> None:
    assert (r.status_code, r.json()["type"]) == (status, kind), r.text
    if message is not None:
        assert r.json()["message"] == message


async def start(client, collection_id: str, provider_id: str = "manual"):
    return await client.post(f"/store/payment-collections/{collection_id}/sessions", json={"provider_id": provider_id})


async def authorize(client, collection_id: str, session_id: str):
    return await client.post(f"/store/payment-collections/{collection_id}/sessions/{session_id}/authorize")


async def test_a_shopper_reads_the_collection_with_its_region_and_sessions(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    r = await client.get(f"/store/payment-collections/{edit['payment_collection_id']}")
    assert r.status_code == 200, r.text
    body = r.json()["payment_collection"]
    assert (body["amount"], body["currency_code"], body["status"], body["type"]) == (1750, "eur", "not_paid", "order_edit")
    assert body["region"]["name"] == "EU" and body["payment_sessions"] == [] and "created_by" not in body
    refused(await client.get("/store/payment-collections/paycol_missing"), 404, "not_found",
            "Payment collection with id paycol_missing was not found")


async def test_one_session_for_the_whole_amount_follows_the_provider_chosen(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    collection_id = edit["payment_collection_id"]
    [session] = (await start(client, collection_id)).json()["payment_collection"]["payment_sessions"]
    assert (session["provider_id"], session["amount"], session["status"]) == ("manual", 1750, "pending")
    assert session["is_selected"] and session["is_initiated"]
    # Choosing another provider replaces it; choosing the same again keeps one session
    [other] = (await start(client, collection_id, "system")).json()["payment_collection"]["payment_sessions"]
    assert other["provider_id"] == "system"
    [same] = (await start(client, collection_id, "system")).json()["payment_collection"]["payment_sessions"]
    assert same["id"] == other["id"]


async def test_a_session_needs_a_provider_of_the_region(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    collection_id = edit["payment_collection_id"]
    refused(await start(client, collection_id, "stripe"), 400, "invalid_data", "Payment provider not found")
    refused(await client.post(f"/store/payment-collections/{collection_id}/sessions", json={}), 400, "invalid_data",
            "provider_id should not be empty")
    refused(await start(client, "paycol_missing"), 404, "not_found")


async def test_authorizing_makes_the_payment_and_authorizes_the_collection_once(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    collection_id = edit["payment_collection_id"]
    session = await pay(client, collection_id)
    assert (session["status"], session["amount"]) == ("authorized", 1750) and session["payment_authorized_at"]
    collection = await PaymentCollection.get(id=collection_id)
    assert (collection.status, collection.authorized_amount) == ("authorized", 1750)
    [payment] = await Payment.filter(payment_collection_id=collection_id)
    assert (payment.amount, payment.currency_code, payment.provider_id, payment.order_id) == (1750, "eur", "manual", None)
    # Authorizing again answers the same session and pays nothing more
    r = await authorize(client, collection_id, session["id"])
    assert r.json()["payment_session"]["payment_authorized_at"] == session["payment_authorized_at"]
    assert await Payment.filter(payment_collection_id=collection_id).count() == 1
    # and a paid collection takes no new session
    refused(await start(client, collection_id), 400, "not_allowed",
            "Cannot set payment sessions for a payment collection with status authorized")


async def test_a_declined_authorization_leaves_the_collection_awaiting_another_try(client, admin_headers, seeded):
    await (await Region.get(name="EU")).payment_providers.add(await PaymentProvider.create(id="test-declining"))
    order, edit = await requested_edit(client, admin_headers)
    collection_id = edit["payment_collection_id"]
    [session] = (await start(client, collection_id, "test-declining")).json()["payment_collection"]["payment_sessions"]
    # When the gateway turns the authorization down
    r = await authorize(client, collection_id, session["id"])
    # I expect a 422, the session and collection saying so, and no payment
    refused(r, 422, "payment_authorization_error", f'Failed to authorize Payment Session id "{session["id"]}"')
    body = (await client.get(f"/store/payment-collections/{collection_id}")).json()["payment_collection"]
    assert body["status"] == "awaiting" and body["payment_sessions"][0]["status"] == "error"
    assert not await Payment.filter(payment_collection_id=collection_id).exists()
    # and the shopper may pay another way
    assert (await pay(client, collection_id, "manual"))["status"] == "authorized"


async def test_an_unknown_session_is_not_found(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    refused(await authorize(client, edit["payment_collection_id"], "ps_missing"), 404, "not_found",
            "Payment session with id ps_missing was not found")


async def test_a_canceled_edit_can_no_longer_be_paid(client, admin_headers, seeded):
    order, edit = await requested_edit(client, admin_headers)
    collection_id = edit["payment_collection_id"]
    [session] = (await start(client, collection_id)).json()["payment_collection"]["payment_sessions"]
    await client.post(f"/admin/order-edits/{edit['id']}/cancel", headers=admin_headers)
    refused(await authorize(client, collection_id, session["id"]), 400, "not_allowed",
            "Cannot authorize a payment of a payment collection with status canceled")
    refused(await start(client, collection_id), 400, "not_allowed")
