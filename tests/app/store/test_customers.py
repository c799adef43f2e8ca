"""The shopper's account: sign-up, `/me`, its changes, billing address and saved payment methods. A
customer can never see or change another's account."""

import time

import jwt
import pytest

from models import Address, Cart, Customer, Notification, Order, PaymentProvider
from services import payments
from services.notifications.messages import ORDER_CLAIM
from services.orders.claims import SIGN_IN_FIRST
from services.core.passwords import verify_password
from tests.account_factories import (
    forget_rate_limits, guest_order, hear_events, recorder, region, sent_to, token_sent_to,
)
from tests.cart_factories import shopper

ME_KEYS = {
    "id", "email", "first_name", "last_name", "billing_address_id", "phone", "has_account", "metadata",
    "created_at", "updated_at", "deleted_at", "shipping_addresses", "billing_address",
}
NEW = {"email": "James@Bond.com", "password": "shaken-not-stirred", "first_name": "James", "last_name": "Bond"}
ADDRESS = {"first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Berlin",
           "country_code": "DE", "postal_code": "10115"}


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    yield
    await forget_rate_limits()


async def test_sign_up_creates_an_account_signs_in_and_normalizes_the_email(client):
    r = await client.post("/store/customers", json=NEW)
    assert r.status_code == 200, r.text
    body = r.json()["customer"]
    assert set(body) == ME_KEYS and "password_hash" not in body
    assert (body["email"], body["first_name"], body["has_account"]) == ("james@bond.com", "James", True)
    assert body["shipping_addresses"] == [] and body["billing_address"] is None
    # the session cookie of the sign-up is a signed-in session
    me = await client.get("/store/customers/me")
    assert me.status_code == 200 and me.json()["customer"]["id"] == body["id"]
    stored = await Customer.get(id=body["id"])
    assert verify_password("shaken-not-stirred", stored.password_hash)


async def test_a_second_account_for_the_same_email_is_a_422(client):
    await client.post("/store/customers", json=NEW)
    client.cookies.clear()
    r = await client.post("/store/customers", json={**NEW, "email": "JAMES@bond.com"})
    assert r.status_code == 422
    assert r.json() == {"code": "invalid_request_error", "type": "duplicate_error",
                        "message": "A customer with the given email already has an account. Log in instead"}
    assert await Customer.filter(email="james@bond.com", has_account=True).count() == 1


async def test_an_email_with_only_guest_orders_becomes_an_account_and_is_offered_the_orders(client):
    mailbox = recorder()
    order = await guest_order("james@bond.com")
    r = await client.post("/store/customers", json=NEW)
    assert r.status_code == 200, r.text
    account = r.json()["customer"]
    assert account["has_account"] is True
    # The guest orders wait for proof that the email is the shopper's: a claim message to it.
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    [note] = await Notification.filter(event_name=ORDER_CLAIM)
    assert note.to == "james@bond.com"
    assert note.data["orders"] == [order.id] and note.data["new_customer_id"] == account["id"]
    assert (await Order.get(id=order.id)).customer_id != account["id"]
    token = await token_sent_to(mailbox, "james@bond.com")
    assert "sign in to that account" in sent_to(mailbox, "james@bond.com")[0].body

    # Reading the mail is not enough (anyone can sign up with someone else's email) ...
    session = dict(client.cookies)
    client.cookies.clear()
    r = await client.post("/store/orders/customer/confirm", json={"token": token})
    assert r.status_code == 401 and r.json()["message"] == SIGN_IN_FIRST
    assert (await Order.get(id=order.id)).customer_id != account["id"]
    # ... the account that signed up confirms it, signed in
    client.cookies.update(session)
    r = await client.post("/store/orders/customer/confirm", json={"token": token})
    assert r.status_code == 200, r.text
    assert (await Order.get(id=order.id)).customer_id == account["id"]


async def test_sign_up_refuses_bad_input_with_a_json_400(client):
    for body, message in (
        ({**NEW, "password": ""}, "password should not be empty"),
        ({**NEW, "email": "not-an-email"}, "email must be an email"),
        ({"password": "x"}, "email should not be empty"),
        ({**NEW, "has_account": False}, "property has_account should not exist"),
        ({**NEW, "first_name": 7}, "first_name must be a string"),
    ):
        r = await client.post("/store/customers", json=body)
        assert r.status_code == 400, body
        assert r.json() == {"type": "invalid_data", "message": message}
    assert await Customer.all().count() == 0


async def test_me_routes_need_a_signed_in_customer(client):
    for method, path in (("GET", "/store/customers/me"), ("POST", "/store/customers/me"),
                         ("POST", "/store/customers/me/addresses"), ("GET", "/store/customers/me/payment-methods"),
                         ("DELETE", "/store/customers/me/addresses/addr_1")):
        r = await client.request(method, path, json={} if method == "POST" else None)
        assert r.status_code == 401, path
        assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}


async def test_me_honours_fields_and_expand(client):
    _, headers = await shopper(client)
    r = await client.get("/store/customers/me?fields=email&expand=shipping_addresses", headers=headers)
    assert r.status_code == 200
    assert set(r.json()["customer"]) == {"id", "email", "shipping_addresses"}
    bad = await client.get("/store/customers/me?expand=orders", headers=headers)
    assert bad.status_code == 400


async def test_update_changes_names_phone_metadata_and_password(client):
    customer, headers = await shopper(client)
    r = await client.post("/store/customers/me", headers=headers, json={
        "first_name": "Janet", "phone": "+49 30 1234", "metadata": {"key": "value"}, "password": "new-secret",
    })
    assert r.status_code == 200, r.text
    body = r.json()["customer"]
    assert (body["first_name"], body["last_name"], body["phone"], body["metadata"]) == (
        "Janet", "Doe", "+49 30 1234", {"key": "value"})
    signed_in = await client.post("/store/auth", json={"email": customer.email, "password": "new-secret"})
    assert signed_in.status_code == 200
    old = await client.post("/store/auth", json={"email": customer.email, "password": "jane-secret"})
    assert old.status_code == 401
    # metadata merges; "" deletes a key; null clears a name
    r = await client.post("/store/customers/me", headers=headers,
                          json={"metadata": {"key": "", "other": 1}, "last_name": None})
    assert r.json()["customer"]["metadata"] == {"other": 1} and r.json()["customer"]["last_name"] is None


async def test_the_email_of_an_account_cannot_be_changed(client):
    customer, headers = await shopper(client)
    r = await client.post("/store/customers/me", headers=headers, json={"email": "other@example.com"})
    assert r.status_code == 400
    assert r.json()["message"] == "Email cannot be changed when the user has registered their account"
    same = await client.post("/store/customers/me", headers=headers, json={"email": customer.email.upper()})
    assert same.status_code == 200
    assert (await Customer.get(id=customer.id)).email == customer.email


async def test_billing_address_as_fields_then_as_an_id_then_unset(client):
    customer, headers = await shopper(client)
    r = await client.post("/store/customers/me", headers=headers, json={"billing_address": ADDRESS})
    assert r.status_code == 200, r.text
    billing = r.json()["customer"]["billing_address"]
    assert billing["address_1"] == "1 Main St" and billing["country_code"] == "de"
    # fields again: merged into the same billing address
    r = await client.post("/store/customers/me", headers=headers, json={"billing_address": {"city": "Hamburg"}})
    again = r.json()["customer"]["billing_address"]
    assert again["id"] == billing["id"] and (again["city"], again["address_1"]) == ("Hamburg", "1 Main St")
    # an id of one of the customer's saved addresses
    saved = await Address.create(customer=customer, address_1="2 Side St", country_code="de")
    r = await client.post("/store/customers/me", headers=headers, json={"billing_address": saved.id})
    assert r.json()["customer"]["billing_address_id"] == saved.id
    assert r.json()["customer"]["billing_address"]["address_1"] == "2 Side St"
    # fields now: the saved address is copied, not rewritten
    r = await client.post("/store/customers/me", headers=headers, json={"billing_address": {"city": "Bonn"}})
    copy = r.json()["customer"]["billing_address"]
    assert copy["id"] != saved.id and copy["city"] == "Bonn"
    assert (await Address.get(id=saved.id)).city is None
    r = await client.post("/store/customers/me", headers=headers, json={"billing_address": None})
    assert r.json()["customer"]["billing_address_id"] is None and r.json()["customer"]["billing_address"] is None


async def test_a_billing_address_id_of_someone_else_is_not_found_and_not_attached(client):
    _, headers = await shopper(client)
    other = await Customer.create(email="other@example.com", has_account=True)
    theirs = await Address.create(customer=other, address_1="Secret 1", city="Paris", country_code="fr")
    loose = await Address.create(address_1="A cart's address", country_code="fr")  # no customer
    for address_id in (theirs.id, loose.id, "addr_missing", "x" * 300):
        r = await client.post("/store/customers/me", headers=headers, json={"billing_address": address_id})
        assert r.status_code == 404, address_id
        assert r.json() == {"type": "not_found", "message": f"Address with id {address_id} was not found"}
    me = await client.get("/store/customers/me", headers=headers)
    assert me.json()["customer"]["billing_address_id"] is None


async def test_a_failed_update_changes_nothing(client):
    customer, headers = await shopper(client)
    r = await client.post("/store/customers/me", headers=headers,
                          json={"first_name": "Changed", "billing_address": "addr_missing"})
    assert r.status_code == 404
    assert (await Customer.get(id=customer.id)).first_name == "Jane"


async def test_update_refuses_bad_input(client):
    _, headers = await shopper(client)
    for body in ({"email": None}, {"password": ""}, {"billing_address": {"street": "x"}}, {"metadata": "x"},
                 {"billing_address": {"country_code": "zz"}}, {"id": "cus_other"}):
        r = await client.post("/store/customers/me", headers=headers, json=body)
        assert r.status_code == 400, body
        assert r.json()["type"] == "invalid_data"


async def test_saved_payment_methods_come_from_the_providers_of_the_customers_regions(client, monkeypatch):
    customer, headers = await shopper(client)
    r = await client.get("/store/customers/me/payment-methods", headers=headers)
    assert r.status_code == 200 and r.json() == {"payment_methods": []}

    class CardsOnFile:
        id = "cards-on-file"

        async def saved_methods(self, customer_id):
            return [{"card": "visa-4242", "customer": customer_id}]

    monkeypatch.setitem(payments._PROVIDERS, CardsOnFile.id, CardsOnFile())
    provider = await PaymentProvider.create(id=CardsOnFile.id)
    shop_region = await region("EU")
    await shop_region.payment_providers.add(provider)
    await Cart.create(region=shop_region, customer=customer, email=customer.email)
    r = await client.get("/store/customers/me/payment-methods", headers=headers)
    assert r.json() == {"payment_methods": [
        {"provider_id": "cards-on-file", "data": {"card": "visa-4242", "customer": customer.id}}]}
    # another customer, who never shopped there, sees none of them
    _, theirs = await shopper(client, "other@example.com")
    r = await client.get("/store/customers/me/payment-methods", headers=theirs)
    assert r.json() == {"payment_methods": []}


async def test_a_forged_token_naming_another_customer_reads_nothing(client):
    victim, _ = await shopper(client, "victim@example.com")
    forged = jwt.encode({"customer_id": victim.id, "domain": "store", "exp": int(time.time()) + 60},
                        "not-the-shop-secret-but-just-as-long-0123", algorithm="HS256")
    headers = {"Authorization": f"Bearer {forged}"}
    for method, path in (("GET", "/store/customers/me"), ("POST", "/store/customers/me")):
        body = {"first_name": "Owned"} if method == "POST" else None
        r = await client.request(method, path, headers=headers, json=body)
        assert r.status_code == 401, path
    assert (await Customer.get(id=victim.id)).first_name == "Jane"
